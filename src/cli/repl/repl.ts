import { createInterface, type Interface } from "node:readline";
import type { Agent } from "../../agent/agent.js";
import type { AgentEvent } from "../../agent/events.js";
import { formatUsageTable, UsageTracker } from "../../agent/usage.js";
import { pricingLookup } from "../../llm/models/index.js";
import type { ChatMessage } from "../../llm/types.js";
import { autoTitleEnabled } from "../../runtime/auto-title.js";
import type { Runtime } from "../../runtime/runtime.js";
import { messageText, type SessionRecord } from "../../state/store.js";
import { openRuntime, type RunFlags } from "../open-runtime.js";
import { TerminalRenderer } from "../render.js";
import { announceResume, resolveResume } from "../resume.js";
import { createApprovalPrompt } from "./approval-prompt.js";
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
  if (resumed.error) {
    process.stderr.write(`hermes: ${resumed.error}\n`);
    await runtime.dispose();
    return 1;
  }
  if (resumed.resume) announceResume(resumed.resume);
  if (runtime.storeProblem)
    process.stderr.write(`warning: ${runtime.storeProblem} Sessions are not being saved.\n`);
  for (const w of runtime.configWarnings) process.stderr.write(`warning: ${w}\n`);
  if (runtime.unknownToolsets.length > 0) {
    process.stderr.write(`warning: unknown toolsets ignored: ${runtime.unknownToolsets.join(", ")}\n`);
  }
  const renderer = new TerminalRenderer({
    out: process.stdout,
    status: process.stderr,
    streamText: true,
    showTools: runtime.config.display.tool_progress,
    showReasoning: runtime.config.display.show_reasoning,
  });
  const session = new ReplSession(runtime, renderer, resumed.resume);
  try {
    return await session.run(firstMessage);
  } finally {
    renderer.close();
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

  constructor(
    private readonly runtime: Runtime,
    private readonly renderer: TerminalRenderer,
    resume?: SessionRecord,
  ) {
    this.model = runtime.target.model;
    this.usage = new UsageTracker(pricingLookup(runtime.target, { home: runtime.paths.home }));
    this.agent = runtime.newAgent(this.onAgentEvent, {
      approve: this.approve,
      clarify: this.clarify,
      autoTitle: this.autoTitle,
      ...(resume ? { resume } : {}),
    });
  }

  /** sessions.auto_title: the chat on a terminal names its sessions by default. */
  private get autoTitle(): boolean {
    return autoTitleEnabled(this.runtime.config.sessions.auto_title, Boolean(process.stdin.isTTY));
  }

  /** /retry: the message to send once the slash command returns. */
  private resendText: string | undefined;

  /** Approval prompts on the chat's own readline; piped input has no one to answer (denied). */
  private readonly approve = process.stdin.isTTY
    ? createApprovalPrompt({
        output: process.stdout,
        rl: () => this.rl,
        onOpen: () => this.renderer.pause(),
        onClose: () => this.renderer.resume(),
      })
    : undefined;

  /** clarify questions on the chat's readline (numbers pick a choice); hidden when stdin is not a terminal. */
  private readonly clarify = process.stdin.isTTY
    ? createClarifyPrompt({
        output: process.stdout,
        rl: () => this.rl,
        onOpen: () => this.renderer.pause(),
        onClose: () => this.renderer.resume(),
      })
    : undefined;

  private readonly onAgentEvent = (e: AgentEvent): void => {
    this.usage.handle(e);
    this.renderer.handle(e);
  };

  /** `firstMessage` (from `hermes "PROMPT"`) is sent as if typed at the first prompt. */
  run(firstMessage?: string): Promise<number> {
    const interactive = this.interactive;
    const rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      prompt: interactive ? "❯ " : "",
      completer: completeSlash,
      terminal: interactive,
    });
    this.rl = rl;
    if (interactive) {
      process.stdout.write(`Hermes Agent · ${this.model} · /help for commands, Ctrl+C twice to exit\n`);
      if (firstMessage) process.stdout.write(`❯ ${firstMessage}\n`);
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
      process.stderr.write("\n  [interrupt] stopping… (Ctrl+C again to exit)\n");
    } else {
      process.stdout.write("\n(press Ctrl+C again to exit, or type /exit)\n");
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
          .then((r) => process.stderr.write(`  [compress] ${r.message}\n`));
        return;
      }
      if (line) {
        this.agent.steer(line);
        process.stderr.write("  [steer] noted; the agent will see it with its next tool result\n");
      }
      return;
    }
    if (!line) return this.rl?.prompt();
    if (line.startsWith("/") && runSlash(line, this.slashContext())) {
      const task = this.slashTask;
      this.slashTask = undefined;
      if (task) {
        this.busy = true;
        await task;
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
    const result = await this.agent.runConversation(line);
    this.busy = false;
    // A request that ends without answer text failed as well, whatever its status says.
    this.lastFailed =
      result.status === "failed" || (result.status !== "interrupted" && !result.finalText.trim());
    if (this.lastFailed) process.stderr.write(`  [error] ${result.error?.message ?? "the request failed"}\n`);
    if (result.status === "interrupted") process.stderr.write("  [interrupted]\n");
    return this.next();
  }

  /** After a line: run the next queued one, leave once piped input is used up, or prompt again. */
  private next(): Promise<void> | void {
    if (!this.resolveExit) return; // /exit ran
    const queued = this.queue.shift();
    if (queued !== undefined) return this.onLine(queued);
    if (this.closing) return this.exit(this.lastFailed ? 1 : 0);
    this.rl?.prompt();
  }

  /** Whether the last request failed: the exit code of a piped session. */
  private lastFailed = false;

  private slashContext(): SlashContext {
    return {
      print: (text) => process.stdout.write(`${text}\n`),
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
          if (!r.ok) process.stdout.write(`${r.message}\n`);
        });
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
      exit: () => this.exit(0),
    };
  }

  private exit(code: number): void {
    this.rl?.close();
    this.resolveExit?.(code);
    this.resolveExit = undefined;
  }
}
