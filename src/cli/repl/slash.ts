/** Slash commands of the interactive chat: one table feeds dispatch, /help and completion. */

import type { PluginService } from "../../plugins/service.js";
import type { BrowserStatus } from "../../tools/builtin/browser/manager.js";
import { droppedImageTurn, imageTurn } from "../../tools/builtin/media/user-image.js";

/** What /browser needs of the run's browser tools. */
export interface BrowserControl {
  /** Attaches to a running Chrome from now on; rejects when it cannot be reached. */
  connect(cdpUrl: string): Promise<void>;
  /** Leaves an attached Chrome running and goes back to launching Chromium. */
  disconnect(): Promise<void>;
  status(): BrowserStatus;
}

/** The commands of the enabled plugins, as the chat runs them. */
export type PluginSlashCommands = Pick<PluginService, "commands" | "runCommand">;

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
  /** Applies config.yaml's MCP servers again and gives this session the tools now available; prints the outcome itself. */
  reloadMcp?(): void;
  /** Continues in a copy of this conversation; returns the new session id (or an error message). */
  branch?(title: string | undefined): { id: string; saved: boolean } | { error: string };
  /** The browser tools of this run (/browser); absent where there are none. */
  browser?: BrowserControl;
  /** Holds the next prompt until `task` settles, so what it prints comes first. */
  wait?(task: Promise<void>): void;
  /** `/skills`: the skills this chat can run as commands. */
  skillsListing?(): string;
  /** `/reload-skills --now`: rebuilds the skills index of this session's prompt; prints the outcome itself. */
  reloadSkills?(): void;
  /** `/<skill-name> args`: runs the skill when one has that name; false when none does. */
  runSkill?(name: string, args: string): boolean;
  /** Commands of the enabled plugins (`/verb args`); absent where there are none. */
  plugins?: PluginSlashCommands;
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
    name: "reload-mcp",
    aliases: ["reload_mcp"],
    help: "reconnect the MCP servers of config.yaml and give this session the MCP tools available now",
    run: (_arg, ctx) => {
      if (!ctx.reloadMcp) return ctx.print("MCP servers are not available here.");
      ctx.reloadMcp();
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
    name: "browser",
    aliases: [],
    args: "[connect [url]|disconnect|status]",
    help: "browser tools: attach to a Chrome started with --remote-debugging-port, go back to a local Chromium, or show which one they use",
    run: (arg, ctx) => {
      const browser = ctx.browser;
      if (!browser) return ctx.print("The browser tools are not available here.");
      const [sub = "status", url = DEFAULT_CDP_URL, ...extra] = arg.split(/\s+/).filter(Boolean);
      const settle = (task: Promise<void>) => (ctx.wait ? ctx.wait(task) : void task);
      if (sub === "status" && !arg.includes(" ")) return ctx.print(browserStatusText(browser.status()));
      if (sub === "connect" && extra.length === 0 && /^(https?|wss?):\/\/\S+$/.test(url))
        return settle(
          browser.connect(url).then(
            () =>
              ctx.print(
                `Browser tools now drive the Chrome at ${url} (new tabs; /browser disconnect leaves it running).`,
              ),
            (err: Error) => ctx.print(`Could not attach to ${url}: ${err.message.split("\n")[0]}`),
          ),
        );
      if (sub === "disconnect" && !arg.includes(" "))
        return settle(
          browser.disconnect().then(() => ctx.print("Browser tools will launch their own Chromium again.")),
        );
      ctx.print(
        `Usage: /browser connect [url] (default ${DEFAULT_CDP_URL}, from chrome --remote-debugging-port=9222), /browser disconnect, /browser status`,
      );
    },
  },
  {
    name: "image",
    aliases: [],
    args: "<path|url> [question]",
    help: "show the model an image, with an optional question (sent through vision_analyze)",
    run: (arg, ctx) => {
      if (!ctx.resend) return ctx.print("Images cannot be sent here.");
      const turn = imageTurn(arg, process.cwd());
      if (!turn.ok) return ctx.print(turn.error);
      ctx.resend(turn.text);
    },
  },
  {
    name: "skills",
    aliases: [],
    help: "list the skills you can run as /<skill-name> [arguments]",
    run: (_arg, ctx) => ctx.print(ctx.skillsListing?.() ?? "Skills are not available here."),
  },
  {
    name: "reload-skills",
    aliases: [],
    args: "[--now]",
    help: "skill changes reach the index in the next session; --now rebuilds it for this one",
    run: (arg, ctx) => {
      if (arg !== "--now" || !ctx.reloadSkills)
        return ctx.print(
          "Skill changes reach the system prompt's skills index in the next session (/new). " +
            "/reload-skills --now rebuilds it for this session, which costs the prompt cache once.",
        );
      ctx.reloadSkills();
    },
  },
  {
    name: "help",
    aliases: ["?"],
    help: "list commands",
    run: (_arg, ctx) => ctx.print(slashHelp(ctx.plugins)),
  },
  {
    name: "exit",
    aliases: ["quit", "q"],
    help: "leave the chat",
    run: (_arg, ctx) => ctx.exit(),
  },
];

/** Where `chrome --remote-debugging-port=9222` listens. */
const DEFAULT_CDP_URL = "http://127.0.0.1:9222";

export function browserStatusText(status: BrowserStatus): string {
  const what =
    status.mode === "cdp"
      ? `attached to the Chrome at ${status.target}`
      : status.target
        ? `launching ${status.target} (headless)`
        : "no Chromium found: install it (apt-get install chromium) or set browser.executable_path";
  const state = status.running ? "running" : "not running (starts with the first browser call)";
  const pages = status.sessions.map((s) => `\n  ${s.taskId}: ${s.url}`).join("");
  return `Browser: ${what}; ${state}.${status.sessions.length ? `\nOpen pages:${pages}` : ""}`;
}

export function slashHelp(plugins?: PluginSlashCommands): string {
  const rows = SLASH_COMMANDS.map((c) => {
    const names = [c.name, ...c.aliases].map((n) => `/${n}`).join(", ");
    return `  ${`${names}${c.args ? ` ${c.args}` : ""}`.padEnd(26)} ${c.help}`;
  });
  for (const c of plugins?.commands() ?? []) {
    if (findSlashCommand(c.name)) continue;
    rows.push(
      `  ${`/${c.name}${c.args ? ` ${c.args}` : ""}`.padEnd(26)} ${c.description || "(no description)"} [plugin ${c.plugin}]`,
    );
  }
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
    if (ctx.runSkill?.(match[1]!, match[2]!.trim())) return true;
    if (runPluginCommand(match[1]!, match[2]!.trim(), ctx)) return true;
    const image = ctx.resend ? droppedImageTurn(line, process.cwd()) : undefined;
    if (image?.ok) {
      ctx.resend?.(image.text);
      return true;
    }
    ctx.print(`Unknown command /${match[1]}. Type /help for the list.`);
    return true;
  }
  cmd.run(match[2]!.trim(), ctx);
  return true;
}

/** `/verb args` of an enabled plugin (built-in commands win a shared name); false when none has it. */
function runPluginCommand(name: string, arg: string, ctx: SlashContext): boolean {
  const command = ctx.plugins?.commands().find((c) => c.name === name);
  if (!command || !ctx.plugins) return false;
  const args = arg.split(/\s+/).filter(Boolean);
  const task = ctx.plugins
    .runCommand(command.plugin, command.name, args, { print: (text) => ctx.print(text), surface: "chat" })
    .then((r) => {
      if (!r.ok) ctx.print(`/${name} (plugin ${command.plugin}): ${r.error}`);
    });
  if (ctx.wait) ctx.wait(task);
  else void task;
  return true;
}

/** Tab completion for slash commands. */
export function completeSlash(line: string): [string[], string] {
  if (!line.startsWith("/")) return [[], line];
  const names = SLASH_COMMANDS.flatMap((c) => [c.name, ...c.aliases]).map((n) => `/${n}`);
  return [names.filter((n) => n.startsWith(line)), line];
}
