/** Slash commands of the interactive chat: one table feeds dispatch, /help and completion. */

export interface SlashContext {
  print(text: string): void;
  newSession(): void;
  currentModel(): string;
  setModel(model: string): void;
  /** The /usage table for this chat. */
  usageTable(): string;
  resetUsage(): void;
  /** Sets YOLO mode (toggles when `on` is undefined); returns the new state. */
  setYolo(on?: boolean): boolean;
  /** Titles the current session (stored in state.db); returns an error message when it cannot. */
  setTitle?(title: string): string | undefined;
  /** One line per message of the current conversation. */
  historyLines?(): string[];
  /** Drops the last user turn and what followed (history and state.db); returns its text. */
  undo?(): string | undefined;
  /** Sends `text` as the next user message once the command returns (/retry). */
  resend?(text: string): void;
  /** Compresses the conversation now, favouring `focus` in the summary; prints the outcome itself. */
  compress?(focus: string): void;
  /** Continues in a copy of this conversation; returns the new session id (or an error message). */
  branch?(title: string | undefined): { id: string; saved: boolean } | { error: string };
  exit(): void;
}

export interface SlashCommand {
  name: string;
  aliases: readonly string[];
  args?: string;
  help: string;
  run(arg: string, ctx: SlashContext): void;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "title",
    aliases: [],
    args: "<title>",
    help: "name this session (then 'hermes -r TITLE' resumes it)",
    run: (arg, ctx) => {
      if (!arg) return ctx.print("Usage: /title <title>");
      // setTitle returns undefined on success: only a missing setTitle means "not available".
      const problem = ctx.setTitle ? ctx.setTitle(arg) : "titles are not available here";
      ctx.print(problem ? `Cannot set the title: ${problem}` : `Session titled "${arg}".`);
    },
  },
  {
    name: "history",
    aliases: [],
    help: "show the messages of this session so far",
    run: (_arg, ctx) => {
      const lines = ctx.historyLines?.() ?? [];
      ctx.print(lines.length ? lines.join("\n") : "No messages yet.");
    },
  },
  {
    name: "undo",
    aliases: [],
    args: "[N]",
    help: "take back your last message (or last N) and everything after it",
    run: (arg, ctx) => {
      const count = arg ? Number(arg) : 1;
      if (!Number.isInteger(count) || count < 1)
        return ctx.print("Usage: /undo [N] (N: how many of your messages, 1 or more)");
      const undone: string[] = [];
      for (let i = 0; i < count; i++) {
        const text = ctx.undo?.();
        if (text === undefined) break;
        undone.push(text);
      }
      if (undone.length === 0) return ctx.print("Nothing to undo.");
      const short = (t: string) => `"${t.length > 60 ? `${t.slice(0, 60)}…` : t}"`;
      if (undone.length === 1) return ctx.print(`Undone: ${short(undone[0]!)}`);
      const note = undone.length < count ? ` (all there were)` : "";
      ctx.print(`Undone ${undone.length} messages${note}, back to before ${short(undone.at(-1)!)}`);
    },
  },
  {
    name: "retry",
    aliases: [],
    help: "send your last message again (its previous answer is dropped)",
    run: (_arg, ctx) => {
      const text = ctx.undo?.();
      if (text === undefined) return ctx.print("Nothing to retry.");
      ctx.print("Retrying your last message…");
      ctx.resend?.(text);
    },
  },
  {
    name: "branch",
    aliases: ["fork"],
    args: "[title]",
    help: "continue in a copy of this session (the original stays as it is)",
    run: (arg, ctx) => {
      const r = ctx.branch?.(arg || undefined) ?? { error: "branching is not available here" };
      if ("error" in r) return ctx.print(`Cannot branch: ${r.error}`);
      ctx.print(
        r.saved
          ? `Branched into session ${r.id}; the original is unchanged ('hermes -r ${r.id}' comes back here).`
          : `Branched into session ${r.id} (not saved: the session store is unavailable).`,
      );
    },
  },
  {
    name: "new",
    aliases: ["reset"],
    help: "start a new session (fresh history and system prompt)",
    run: (_arg, ctx) => {
      ctx.newSession();
      ctx.print("Started a new session.");
    },
  },
  {
    name: "model",
    aliases: [],
    args: "[model]",
    help: "show the model, or switch to another one for the following turns",
    run: (arg, ctx) => {
      if (!arg) return ctx.print(`Model: ${ctx.currentModel()}`);
      ctx.setModel(arg);
      ctx.print(`Model switched to ${arg} for the following turns.`);
    },
  },
  {
    name: "compress",
    aliases: [],
    args: "[topic]",
    help: "summarise earlier turns now to free context (topic: what the summary should keep in most detail)",
    run: (arg, ctx) => {
      if (!ctx.compress) return ctx.print("Compression is not available here.");
      ctx.compress(arg);
    },
  },
  {
    name: "usage",
    aliases: [],
    args: "[reset]",
    help: "tokens and estimated cost of this chat, per model (reset: start counting again)",
    run: (arg, ctx) => {
      if (arg === "reset") {
        ctx.resetUsage();
        return ctx.print("Usage counters reset.");
      }
      ctx.print(ctx.usageTable());
    },
  },
  {
    name: "yolo",
    aliases: [],
    args: "[on|off]",
    help: "toggle YOLO mode: run flagged commands without asking (hardline rules still apply)",
    run: (arg, ctx) => {
      const want = arg.toLowerCase();
      const on = ctx.setYolo(want === "on" ? true : want === "off" ? false : undefined);
      ctx.print(
        on
          ? "YOLO mode on: dangerous commands run without asking for this session (rm -rf /, mkfs on disks and the other hardline rules stay blocked)."
          : "YOLO mode off: dangerous commands ask for approval again.",
      );
    },
  },
  {
    name: "help",
    aliases: ["?"],
    help: "list commands",
    run: (_arg, ctx) => ctx.print(slashHelp()),
  },
  {
    name: "exit",
    aliases: ["quit", "q"],
    help: "leave the chat",
    run: (_arg, ctx) => ctx.exit(),
  },
];

export function slashHelp(): string {
  const rows = SLASH_COMMANDS.map((c) => {
    const names = [c.name, ...c.aliases].map((n) => `/${n}`).join(", ");
    return `  ${`${names}${c.args ? ` ${c.args}` : ""}`.padEnd(26)} ${c.help}`;
  });
  return [
    "Commands:",
    ...rows,
    "",
    "Ctrl+C interrupts the agent; press it twice to exit. Lines typed while the agent works are passed to it as guidance.",
  ].join("\n");
}

export function findSlashCommand(name: string): SlashCommand | undefined {
  const n = name.toLowerCase();
  return SLASH_COMMANDS.find((c) => c.name === n || c.aliases.includes(n));
}

/** Runs a `/command arg` line. Returns false when the line is not a known command. */
export function runSlash(line: string, ctx: SlashContext): boolean {
  const match = /^\/(\S+)\s*(.*)$/s.exec(line.trim());
  if (!match) return false;
  const cmd = findSlashCommand(match[1]!);
  if (!cmd) {
    ctx.print(`Unknown command /${match[1]}. Type /help for the list.`);
    return true;
  }
  cmd.run(match[2]!.trim(), ctx);
  return true;
}

/** Tab completion for slash commands. */
export function completeSlash(line: string): [string[], string] {
  if (!line.startsWith("/")) return [[], line];
  const names = SLASH_COMMANDS.flatMap((c) => [c.name, ...c.aliases]).map((n) => `/${n}`);
  return [names.filter((n) => n.startsWith(line)), line];
}
