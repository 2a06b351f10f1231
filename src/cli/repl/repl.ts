import { createInterface, type Interface } from "node:readline";
import type { Agent } from "../../agent/agent.js";
import { TerminalRenderer } from "../render.js";
import { openRuntime, type RunFlags, type Runtime } from "../runtime.js";
import { completeSlash, runSlash, type SlashContext } from "./slash.js";

const DOUBLE_PRESS_MS = 2000;

/**
 * The interactive chat. Streams answers to stdout, shows tool progress, and maps Ctrl+C to
 * "interrupt the turn" (twice: exit). Resolves to the exit code when the user leaves.
 */
export async function runRepl(flags: RunFlags): Promise<number> {
  const runtime = openRuntime(flags);
  if (!runtime) return 1;
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
  const session = new ReplSession(runtime, renderer);
  try {
    return await session.run();
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

  constructor(
    private readonly runtime: Runtime,
    private readonly renderer: TerminalRenderer,
  ) {
    this.model = runtime.target.model;
    this.agent = runtime.newAgent(renderer.handle);
  }

  run(): Promise<number> {
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
      rl.prompt();
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
    });
  }

  private closing = false;
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
      if (line) {
        this.agent.steer(line);
        process.stderr.write("  [steer] noted; the agent will see it with its next tool result\n");
      }
      return;
    }
    if (!line) return this.rl?.prompt();
    if (line.startsWith("/") && runSlash(line, this.slashContext())) {
      if (!this.closing) this.rl?.prompt();
      return;
    }
    this.busy = true;
    const result = await this.agent.runConversation(line);
    this.busy = false;
    if (result.status === "failed")
      process.stderr.write(`  [error] ${result.error?.message ?? "the request failed"}\n`);
    if (result.status === "interrupted") process.stderr.write("  [interrupted]\n");
    if (this.closing && this.queue.length === 0) return this.exit(result.status === "failed" ? 1 : 0);
    const next = this.queue.shift();
    if (next !== undefined) return this.onLine(next);
    this.rl?.prompt();
  }

  private slashContext(): SlashContext {
    return {
      print: (text) => process.stdout.write(`${text}\n`),
      newSession: () => {
        this.agent = this.runtime.newAgent(this.renderer.handle);
        this.agent.setModel(this.model);
      },
      currentModel: () => this.model,
      setModel: (model) => {
        this.model = model;
        this.agent.setModel(model);
      },
      exit: () => this.exit(0),
    };
  }

  private exit(code: number): void {
    this.rl?.close();
    this.resolveExit?.(code);
    this.resolveExit = undefined;
  }
}
