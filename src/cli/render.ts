import type { AgentEvent, SubagentEvent } from "../agent/events.js";

export interface RendererOptions {
  /** Where the answer goes. */
  out: NodeJS.WritableStream;
  /** Where progress (tools, retries) goes. */
  status: NodeJS.WritableStream & { isTTY?: boolean };
  /** Stream answer text as it arrives (chat) or leave it to the caller (one-shot). */
  streamText: boolean;
  showTools: boolean;
  showReasoning: boolean;
}

/** Left where a withdrawn attempt's text ends (the retry's text follows on the next line). */
const DISCARDED = "  [previous partial answer discarded]";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const PREVIEW_KEYS = ["command", "path", "pattern", "query", "url", "goal", "code"];

/** A short, single-line description of a tool call for progress lines. */
export function previewArgs(args: Record<string, unknown>, max = 70): string {
  const key =
    PREVIEW_KEYS.find((k) => typeof args[k] === "string") ??
    Object.keys(args).find((k) => typeof args[k] === "string");
  if (!key) return "";
  const flat = String(args[key]).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Renders agent events on a terminal: streamed text, a spinner line while tools run (TTY only),
 * one line per finished tool, and retry/budget notices. Never throws.
 */
export class TerminalRenderer {
  private readonly running = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private spinnerShown = false;
  private textOpen = false;
  private paused = false;
  /** The attempts whose answer text / reasoning was last shown (an `attempt_discarded` may withdraw them). */
  private textAttempt: number | undefined;
  private reasoningAttempt: number | undefined;

  constructor(private readonly opts: RendererOptions) {}

  handle = (event: AgentEvent): void => {
    switch (event.type) {
      case "text_delta":
        if (!this.opts.streamText) return;
        this.clearSpinner();
        this.opts.out.write(event.text);
        this.textOpen = true;
        this.textAttempt = event.attempt;
        return;
      case "reasoning_delta":
        if (!this.opts.showReasoning) return;
        this.opts.status.write(`\x1b[2m${event.text}\x1b[0m`);
        this.reasoningAttempt = event.attempt;
        return;
      case "attempt_discarded":
        this.discard(event.attempt);
        return;
      case "tool_start":
        if (!this.opts.showTools) return;
        this.endText();
        this.running.set(event.callId, `${event.emoji} ${event.name}${fmtPreview(previewArgs(event.args))}`);
        if (this.opts.status.isTTY) this.startSpinner();
        else this.opts.status.write(`  ${this.running.get(event.callId)}\n`);
        return;
      case "tool_end": {
        if (!this.opts.showTools) return;
        const label = this.running.get(event.callId) ?? event.name;
        this.running.delete(event.callId);
        if (this.opts.status.isTTY) {
          this.clearSpinner();
          const mark = event.isError ? "✗" : "✓";
          this.opts.status.write(`  ${label} ${mark} ${(event.durationMs / 1000).toFixed(1)}s\n`);
          if (this.running.size === 0) this.stopSpinner();
          else this.drawSpinner();
        } else if (event.isError) {
          this.opts.status.write(`  ${label} ✗ ${firstLine(event.result)}\n`);
        }
        return;
      }
      case "status":
        this.endText();
        this.clearSpinner();
        this.opts.status.write(`  [${event.kind}] ${event.message}\n`);
        return;
      case "done":
        this.stopSpinner();
        this.endText();
        // Attempt numbers start again with the next request.
        this.textAttempt = undefined;
        this.reasoningAttempt = undefined;
        return;
      case "subagent":
        if (!this.opts.showTools || event.phase === "tool") return;
        this.endText();
        this.clearSpinner();
        this.opts.status.write(`  ${subagentLine(event)}\n`);
        if (this.opts.status.isTTY && this.running.size > 0) this.drawSpinner();
        return;
      case "inner_tool":
        if (!this.opts.showTools) return;
        this.endText();
        this.clearSpinner();
        this.opts.status.write(
          `    ↳ ${event.name}${fmtPreview(previewArgs(event.args))}${event.isError ? " ✗" : ""}\n`,
        );
        if (this.opts.status.isTTY && this.running.size > 0) this.drawSpinner();
        return;
      case "turn_start":
      case "usage":
      case "message":
      // Shown through the "compress" status event that accompanies it.
      case "compression":
        return;
    }
  };

  /** Stops the spinner timer (call before exiting). */
  close(): void {
    this.stopSpinner();
  }

  /** Hides the spinner while something else owns the terminal (an approval prompt). */
  pause(): void {
    this.paused = true;
    this.stopSpinner();
  }

  resume(): void {
    this.paused = false;
    if (this.running.size > 0 && this.opts.status.isTTY) this.startSpinner();
  }

  /**
   * What was printed cannot be unprinted (it may have scrolled or gone down a pipe): the withdrawn
   * text is closed off with a marker on its own line, in the stream that showed it.
   */
  private discard(attempt: number): void {
    const text = this.textAttempt === attempt;
    const reasoning = this.reasoningAttempt === attempt;
    if (!text && !reasoning) return;
    this.clearSpinner();
    if (text) {
      this.endText();
      this.opts.out.write(dim(DISCARDED, this.opts.out));
    } else {
      this.opts.status.write(`\n${dim(DISCARDED, this.opts.status)}`);
    }
    this.textAttempt = undefined;
    this.reasoningAttempt = undefined;
  }

  private endText(): void {
    if (this.textOpen) {
      this.opts.out.write("\n");
      this.textOpen = false;
    }
  }

  private startSpinner(): void {
    this.drawSpinner();
    if (!this.timer) {
      this.timer = setInterval(() => this.drawSpinner(), 100);
      this.timer.unref();
    }
  }

  private drawSpinner(): void {
    if (this.running.size === 0 || this.paused) return;
    const labels = [...this.running.values()];
    const head =
      labels.length === 1
        ? labels[0]
        : `${labels.length} tools: ${labels.map((l) => l.split(" ")[1]).join(", ")}`;
    const cols = (this.opts.status as { columns?: number }).columns ?? 100;
    const line = `  ${SPINNER[this.frame++ % SPINNER.length]} ${head}`.slice(0, cols - 1);
    this.opts.status.write(`\r${line}\x1b[K`);
    this.spinnerShown = true;
  }

  private clearSpinner(): void {
    if (this.spinnerShown) {
      this.opts.status.write("\r\x1b[K");
      this.spinnerShown = false;
    }
  }

  private stopSpinner(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearSpinner();
  }
}

const fmtPreview = (p: string): string => (p ? `: ${p}` : "");

/** One line, dimmed on a terminal. */
const dim = (line: string, stream: NodeJS.WritableStream): string =>
  (stream as { isTTY?: boolean }).isTTY ? `\x1b[2m${line}\x1b[0m\n` : `${line}\n`;

/** One compact line per child start/finish: `↳ [2] goal… started` / `↳ [2] goal… done`. */
function subagentLine(e: SubagentEvent): string {
  const goal = e.goal.length > 60 ? `${e.goal.slice(0, 59)}…` : e.goal;
  const indent = "  ".repeat(Math.max(0, e.depth - 1));
  return `${indent}↳ subagent ${goal} ${e.phase === "start" ? "started" : (e.status ?? "done")}`;
}

function firstLine(result: string): string {
  try {
    const parsed = JSON.parse(result) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error.split("\n")[0]!.slice(0, 160);
  } catch {
    // not JSON
  }
  return result.split("\n")[0]!.slice(0, 160);
}
