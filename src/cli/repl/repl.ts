import { createInterface, type Interface } from "node:readline";
import type { Agent } from "../../agent/agent.js";
import type { AgentEvent } from "../../agent/events.js";
import { formatUsageTable, UsageTracker } from "../../agent/usage.js";
import { pricingLookup } from "../../llm/models/index.js";
import type { ChatMessage } from "../../llm/types.js";
import { autoTitleEnabled } from "../../runtime/auto-title.js";
import { describeMcpReload } from "../../runtime/mcp.js";
import type { Runtime } from "../../runtime/runtime.js";
import { messageText, type SessionRecord } from "../../state/store.js";
import type { ApproveFn } from "../../tools/approval/types.js";
import type { ClarifyFn } from "../../tools/context.js";
import { liveAreaFor } from "../live-area.js";
import { openRuntime, type RunFlags } from "../open-runtime.js";
import { TerminalRenderer } from "../render.js";
import { announceResume, resolveResume } from "../resume.js";
import { expandSkillCommand, skillsListing } from "../skill-command.js";
import { colorEnabled, paint } from "../terminal-text.js";
import { createApprovalPrompt } from "./approval-prompt.js";
import { ChatScreen } from "./chat-screen.js";
import { createClarifyPrompt } from "./clarify-prompt.js";
import { completeSlash, runSlash, type SlashContext } from "./slash.js";

const DOUBLE_PRESS_MS = 2000;

/** /history: one line per message (system prompt left out), long text cut. */
function historyLines(messages: readonly ChatMessage[]): string[] {
  const cut = (s: string): string => {
    const one = s.replace(/\s+/g, " ").trim();
    return one.length > 100 ? `${one.slice(0, 100)}…` : one;
  };
  return messages
    .filter((m) => m.role !== "system")
    .map((m, i) => {
      const calls =
        m.role === "assistant" && m.tool_calls?.length
          ? ` [calls ${m.tool_calls.map((t) => t.function.name).join(", ")}]`
          : "";
      const who = m.role === "tool" ? `tool${m.name ? ` ${m.name}` : ""}` : m.role;
      return `  ${String(i + 1).padStart(3)}. ${who}: ${cut(messageText(m))}${calls}`;
    });
}

/**
 * The interactive chat. Streams answers to stdout, shows tool progress, and maps Ctrl+C to
 * "interrupt the turn" (twice: exit). Resolves to the exit code when the user leaves.
 */
export async function runRepl(flags: RunFlags, firstMessage?: string): Promise<number> {
  const runtime = await openRuntime(flags);
  if (!runtime) return 1;
  const resumed = resolveResume(runtime, flags);
  const color = colorEnabled(process.stderr);
  if (resumed.error) {
    process.stderr.write(`${paint("error", `hermes: ${resumed.error}`, color)}\n`);
    await runtime.dispose();
    return 1;
  }
  if (resumed.resume) announceResume(resumed.resume);
  const warn = (text: string): void => {
    process.stderr.write(`${paint("warning", `warning: ${text}`, color)}\n`);
  };
  if (runtime.storeProblem) warn(`${runtime.storeProblem} Sessions are not being saved.`);
  for (const w of runtime.configWarnings) warn(w);
  if (runtime.unknownToolsets.length > 0)
    warn(`unknown toolsets ignored: ${runtime.unknownToolsets.join(", ")}`);
  // The spinner and the typed-ahead line live below the answer on the terminal (stderr if stdout is redirected).
  const area = process.stdout.isTTY ? liveAreaFor(process.stdout) : liveAreaFor(process.stderr);
  const renderer = new TerminalRenderer({
    out: process.stdout,
    status: process.stderr,
    streamText: true,
    showTools: runtime.config.display.tool_progress,
    showReasoning: runtime.config.display.show_reasoning,
    live: area,
  });
  const screen = new ChatScreen(area, renderer, Boolean(process.stdin.isTTY));
  const session = new ReplSession(runtime, renderer, screen, resumed.resume);
  try {
    return await session.run(firstMessage);
  } finally {
    renderer.close();
    // Clears the area and ends an unfinished line, so the shell's prompt starts on a fresh one.
    area?.close();
    await runtime.dispose();
  }
}

class ReplSession {
  private agent: Agent;
  private rl: Interface | undefined;
  private lastSigint = 0;
  private busy = false;
  private model: string;
  private resolveExit: ((code: number) => void) | undefined;
  /** Usage of the whole chat (kept across /new), for /usage. */
  private readonly usage: UsageTracker;

  /** Approval prompts on the chat's own readline; piped input has no one to answer (denied). */
  private readonly approve: ApproveFn | undefined;
  /** clarify questions on the chat's readline (numbers pick a choice); hidden when stdin is not a terminal. */
  private readonly clarify: ClarifyFn | undefined;

  constructor(
    private readonly runtime: Runtime,
    private readonly renderer: TerminalRenderer,
    private readonly screen: ChatScreen,
    resume?: SessionRecord,
  ) {
    const prompt = {
      output: screen.promptOutput,
      rl: () => this.rl,
      onOpen: screen.promptOpened,
      onClose: screen.promptClosed,
    };
    this.approve = process.stdin.isTTY
      ? createApprovalPrompt({ ...prompt, color: colorEnabled(process.stdout) })
      : undefined;
    this.clarify = process.stdin.isTTY ? createClarifyPrompt(prompt) : undefined;
    this.model = runtime.target.model;
    this.usage = new UsageTracker(pricingLookup(runtime.target, { home: runtime.paths.home }));
    this.agent = runtime.newAgent(this.onAgentEvent, {
      approve: this.approve,
      clarify: this.clarify,
      autoTitle: this.autoTitle,
      ...(resume ? { resume } : {}),
    });
  }

  /** Scrollback text (through the live area on a terminal). */
  private say(text: string, stream: NodeJS.WritableStream = process.stdout): void {
    this.screen.say(text, stream);
  }

  /** sessions.auto_title: the chat on a terminal names its sessions by default. */
  private get autoTitle(): boolean {
    return autoTitleEnabled(this.runtime.config.sessions.auto_title, Boolean(process.stdin.isTTY));
  }

  /** /retry: the message to send once the slash command returns. */
  private resendText: string | undefined;

  private readonly onAgentEvent = (e: AgentEvent): void => {
    this.usage.handle(e);
    this.renderer.handle(e);
  };

  /** `firstMessage` (from `hermes "PROMPT"`) is sent as if typed at the first prompt. */
  run(firstMessage?: string): Promise<number> {
    const interactive = this.interactive;
    const rl = createInterface({
      input: process.stdin,
      output: this.screen.editorOutput(),
      prompt: interactive ? "❯ " : "",
      completer: completeSlash,
      terminal: interactive,
    });
    this.rl = rl;
    this.screen.rl = rl;
    if (interactive) {
      this.say(`Hermes Agent · ${this.model} · /help for commands, Ctrl+C twice to exit\n`);
      if (firstMessage) this.say(`❯ ${firstMessage}\n`);
      else rl.prompt();
    }
    return new Promise<number>((resolve) => {
      this.resolveExit = resolve;
      rl.on("line", (line) => void this.onLine(line));
      rl.on("SIGINT", () => this.onSigint());
      rl.on("close", () => {
        if (!this.busy) this.exit(0);
        else {
          // stdin ended (piped input) while a turn runs: finish it, then leave.
          this.closing = true;
        }
      });
      process.on("SIGINT", () => this.onSigint());
      process.on("SIGTERM", () => {
        this.agent.interrupt();
        this.exit(143);
      });
      if (firstMessage) void this.onLine(firstMessage);
    });
  }

  private closing = false;
  /** Work a slash command started (/compress) that must finish before the next line runs. */
  private slashTask: Promise<void> | undefined;
  /** Piped input: lines that arrive while a turn runs are the next prompts, not guidance. */
  private readonly queue: string[] = [];
  private readonly interactive = Boolean(process.stdin.isTTY);

  private onSigint(): void {
    const now = Date.now();
    const double = now - this.lastSigint < DOUBLE_PRESS_MS;
    this.lastSigint = now;
    if (double) {
      this.exit(130);
      return;
    }
    if (this.busy) {
      this.agent.interrupt();
      this.renderer.interrupted();
      this.screen.freshLine(process.stderr);
      this.screen.sayStatus("  [interrupt] stopping… (Ctrl+C again to exit)", "warning");
    } else {
      this.say("\n(press Ctrl+C again to exit, or type /exit)\n");
      this.rl?.prompt();
    }
  }

  private async onLine(raw: string): Promise<void> {
    const line = raw.trim();
    if (this.busy) {
      if (line && !this.interactive) {
        this.queue.push(line);
        return;
      }
      if (/^\/compress(\s|$)/.test(line)) {
        // The running turn is the history's one writer: the agent says why it will not compress now.
        void this.agent
          .compressContext("Manual compression")
          .then((r) => this.say(`  [compress] ${r.message}\n`, process.stderr));
        return;
      }
      if (line) {
        this.agent.steer(line);
        // Repeats what was queued: the agent sees it with its next tool result.
        this.say(`  [steer] ${line}\n`, process.stderr);
      }
      return;
    }
    if (!line) return this.rl?.prompt();
    if (line.startsWith("/") && runSlash(line, this.slashContext())) {
      const task = this.slashTask;
      this.slashTask = undefined;
      if (task) {
        this.busy = true;
        this.screen.typingInArea(true);
        await task;
        this.screen.typingInArea(false);
        this.busy = false;
      }
      const again = this.resendText;
      this.resendText = undefined;
      if (again === undefined) return this.next();
      return this.runTurn(again);
    }
    return this.runTurn(line);
  }

  private async runTurn(line: string): Promise<void> {
    this.busy = true;
    this.screen.typingInArea(true);
    const result = await this.agent.runConversation(line);
    // A request that ends without answer text failed as well, whatever its status says.
    this.lastFailed =
      result.status === "failed" || (result.status !== "interrupted" && !result.finalText.trim());
    if (this.lastFailed)
      this.screen.sayStatus(`  [error] ${result.error?.message ?? "the request failed"}`, "error");
    if (result.status === "interrupted") this.screen.sayStatus("  [interrupted]", "warning");
    this.screen.typingInArea(false);
    this.busy = false;
    return this.next();
  }

  /** After a line: run the next queued one, leave once piped input is used up, or prompt again. */
  private next(): Promise<void> | void {
    if (!this.resolveExit) return; // /exit ran
    const queued = this.queue.shift();
    if (queued !== undefined) return this.onLine(queued);
    if (this.closing) return this.exit(this.lastFailed ? 1 : 0);
    // A line typed ahead during the turn stays, with its cursor where it was.
    this.rl?.prompt(true);
  }

  /** Whether the last request failed: the exit code of a piped session. */
  private lastFailed = false;

  private slashContext(): SlashContext {
    return {
      print: (text) => this.say(`${text}\n`),
      newSession: () => {
        const previous = this.agent;
        this.agent = this.runtime.newAgent(this.onAgentEvent, {
          approve: this.approve,
          clarify: this.clarify,
          autoTitle: this.autoTitle,
        });
        this.agent.setModel(this.model);
        // The old session ends now (its row, background subagents, shell state), before the next line.
        this.slashTask = previous.close("new_session");
      },
      undo: () => {
        const r = this.agent.rewindToLastUser();
        if (!r) return undefined;
        this.runtime.dropStoredMessages(this.agent.sessionId, r.removed);
        return r.text;
      },
      resend: (text) => {
        this.resendText = text;
      },
      branch: (title) => {
        const parent = this.agent;
        if (!parent.messages.some((m) => m.role !== "system")) return { error: "nothing to branch from yet" };
        const parentTitle = this.runtime.sessions?.getSession(parent.sessionId)?.title;
        const name = title ?? (parentTitle ? `${parentTitle} (branch)` : undefined);
        try {
          this.agent = this.runtime.newAgent(this.onAgentEvent, {
            approve: this.approve,
            clarify: this.clarify,
            autoTitle: this.autoTitle,
            branch: {
              parentSessionId: parent.sessionId,
              messages: parent.messages,
              ...(name ? { title: name } : {}),
            },
          });
        } catch (err) {
          return { error: (err as Error).message };
        }
        this.agent.setModel(this.model);
        this.slashTask = parent.close("branched");
        return { id: this.agent.sessionId, saved: this.runtime.sessions !== undefined };
      },
      // The agent's view: a fallback that answered the last request shows until the next one.
      currentModel: () => this.agent.target.model,
      setModel: (model) => {
        this.model = model;
        this.agent.setModel(model);
      },
      compress: (focus) => {
        this.slashTask = this.agent.compressContext("Manual compression", focus || undefined).then((r) => {
          if (!r.ok) this.say(`${r.message}\n`);
        });
      },
      reloadMcp: () => {
        this.slashTask = this.runtime.mcp
          .reload()
          .then(async (outcome) =>
            this.say(`${describeMcpReload(outcome, await this.agent.reloadTools())}\n`),
          )
          .catch((err: unknown) => this.say(`Cannot reload MCP servers: ${(err as Error).message}\n`));
      },
      usageTable: () => formatUsageTable(this.usage),
      resetUsage: () => this.usage.reset(),
      // This chat's session only: a new session starts from --yolo again.
      setYolo: (on) => {
        const approvals = this.agent.approvals;
        if (!approvals) return false;
        approvals.yolo = on ?? !approvals.yolo;
        return approvals.yolo;
      },
      setTitle: (title) => this.runtime.setSessionTitle(this.agent.sessionId, title),
      historyLines: () => historyLines(this.agent.messages),
      skillsListing: () => skillsListing(this.agent.skills),
      reloadSkills: () => {
        this.slashTask = this.agent
          .reloadSkills()
          .then((changed) =>
            this.say(changed ? "Skills index rebuilt for this session.\n" : "Skills index unchanged.\n"),
          );
      },
      runSkill: (name, args) => {
        if (!this.agent.skills.has(name.toLowerCase())) return false;
        this.slashTask = expandSkillCommand(this.agent.skills, `/${name} ${args}`).then((r) => {
          if ("error" in r) this.say(`${r.error}\n`);
          else this.resendText = r.text;
        });
        return true;
      },
      browser: this.runtime.browser,
      plugins: this.runtime.plugins.service,
      wait: (task) => {
        this.slashTask = task;
      },
      exit: () => this.exit(0),
    };
  }

  private exit(code: number): void {
    // Taken first: closing readline emits "close", whose handler would otherwise exit with 0.
    const resolve = this.resolveExit;
    this.resolveExit = undefined;
    this.rl?.close();
    resolve?.(code);
  }
}
