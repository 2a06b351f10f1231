import type { AgentEvent, StatusKind, SubagentEvent } from "../agent/events.js";
import type { LiveArea } from "./live-area.js";
import { colorEnabled, type MaybeTty, paint } from "./terminal-text.js";

export interface RendererOptions {
  /** Where the answer goes. */
  out: MaybeTty;
  /** Where progress (tools, retries) goes. */
  status: MaybeTty;
  /** Stream answer text as it arrives (chat) or leave it to the caller (one-shot). */
  streamText: boolean;
  showTools: boolean;
  showReasoning: boolean;
  /**
   * The terminal's live area: a spinner with elapsed time while the model thinks or tools run, and
   * every line goes through it. Without one, tools print a line when they start and nothing animates.
   */
  live?: LiveArea | undefined;
  /** Colour for errors and warnings (default: the stream is a terminal and NO_COLOR is unset). */
  color?: boolean;
}

/** Left where a withdrawn attempt's text ends (the retry's text follows on the next line). */
const DISCARDED = "  [previous partial answer discarded]";
const PREVIEW_KEYS = ["command", "path", "pattern", "query", "url", "goal", "code"];
/** Status kinds that mean something went wrong or needs attention. */
const WARNING_KINDS: ReadonlySet<StatusKind> = new Set(["retry", "rotate", "fallback", "budget", "warning"]);

/** A short, single-line description of a tool call for progress lines. */
export function previewArgs(args: Record<string, unknown>, max = 70): string {
  const key =
    PREVIEW_KEYS.find((k) => typeof args[k] === "string") ??
    Object.keys(args).find((k) => typeof args[k] === "string");
  if (!key) return "";
  const flat = String(args[key]).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

interface RunningTool {
  label: string;
  started: number;
}

/**
 * Renders agent events on a terminal: streamed text, the live area's spinner while the model
 * thinks or tools run, one line per finished tool, and retry/budget notices. Never throws.
 */
export class TerminalRenderer {
  private readonly running = new Map<string, RunningTool>();
  /** When the wait for the model began (undefined: not waiting, or its text is streaming). */
  private thinkingSince: number | undefined;
  /** The user interrupted: tools that end now were stopped, not finished. */
  private stopping = false;
  private textOpen = false;
  private reasoningOpen = false;
  /** The attempts whose answer text / reasoning was last shown (an `attempt_discarded` may withdraw them). */
  private textAttempt: number | undefined;
  private reasoningAttempt: number | undefined;
  private readonly colorOut: boolean;
  private readonly colorStatus: boolean;

  constructor(private readonly opts: RendererOptions) {
    this.colorOut = opts.color ?? colorEnabled(opts.out);
    this.colorStatus = opts.color ?? colorEnabled(opts.status);
  }

  handle = (event: AgentEvent): void => {
    switch (event.type) {
      case "turn_start":
        this.thinkingSince ??= Date.now();
        this.showStatus();
        return;
      case "text_delta":
        if (!this.opts.streamText) return;
        this.thinkingSince = undefined;
        this.showStatus();
        this.endReasoning();
        this.write(this.opts.out, event.text);
        this.textOpen = true;
        this.textAttempt = event.attempt;
        return;
      case "reasoning_delta":
        if (!this.opts.showReasoning) return;
        this.thinkingSince = undefined;
        this.showStatus();
        this.write(this.opts.status, paint("dim", event.text, this.colorStatus));
        this.reasoningOpen = true;
        this.reasoningAttempt = event.attempt;
        return;
      case "attempt_discarded":
        this.discard(event.attempt);
        // A retry or another model follows (or `done`, when the run gives up).
        this.thinkingSince ??= Date.now();
        this.showStatus();
        return;
      case "tool_start": {
        if (!this.opts.showTools) return;
        this.endText();
        this.endReasoning();
        const label = `${event.emoji} ${event.name}${fmtPreview(previewArgs(event.args))}`;
        this.running.set(event.callId, { label, started: Date.now() });
        this.thinkingSince = undefined;
        if (this.opts.live) this.showStatus();
        else this.write(this.opts.status, `  ${label}\n`);
        return;
      }
      case "tool_end":
        if (!this.opts.showTools) return;
        this.toolEnded(event);
        return;
      case "status": {
        this.endText();
        this.endReasoning();
        const line = `  [${event.kind}] ${event.message}`;
        this.write(
          this.opts.status,
          `${paint("warning", line, this.colorStatus && WARNING_KINDS.has(event.kind))}\n`,
        );
        return;
      }
      case "done":
        this.thinkingSince = undefined;
        this.running.clear();
        this.stopping = false;
        this.showStatus();
        this.endText();
        this.endReasoning();
        // Attempt numbers start again with the next request.
        this.textAttempt = undefined;
        this.reasoningAttempt = undefined;
        return;
      case "subagent":
        if (!this.opts.showTools || event.phase === "tool") return;
        this.endText();
        this.endReasoning();
        this.write(this.opts.status, `  ${subagentLine(event)}\n`);
        return;
      case "inner_tool":
        if (!this.opts.showTools) return;
        this.endText();
        this.endReasoning();
        this.write(
          this.opts.status,
          `    ↳ ${event.name}${fmtPreview(previewArgs(event.args))}${event.isError ? ` ${paint("error", "✗", this.colorStatus)}` : ""}\n`,
        );
        return;
      case "usage":
      case "message":
      // Shown through the "compress" status event that accompanies it.
      case "compression":
        return;
    }
  };

  /** The user interrupted the turn: tools that end from now on show as interrupted. */
  interrupted(): void {
    this.stopping = true;
  }

  /** Hides the spinner (call before exiting); the owner of the live area closes it. */
  close(): void {
    this.thinkingSince = undefined;
    this.running.clear();
    this.opts.live?.setStatus(undefined);
  }

  /** Hides the spinner while something else owns the terminal (an approval prompt). */
  pause(): void {
    this.opts.live?.suspend();
  }

  resume(): void {
    this.opts.live?.resume();
  }

  private toolEnded(event: Extract<AgentEvent, { type: "tool_end" }>): void {
    const label = this.running.get(event.callId)?.label ?? event.name;
    this.running.delete(event.callId);
    const stopped = this.stopping || wasInterrupted(event.result);
    const c = this.colorStatus;
    if (this.opts.live) {
      const mark = stopped
        ? paint("warning", "⊘ interrupted", c)
        : event.isError
          ? paint("error", "✗", c)
          : "✓";
      // The model is asked again once the last tool of the batch is done.
      if (this.running.size === 0 && !this.stopping) this.thinkingSince = Date.now();
      this.write(this.opts.status, `  ${label} ${mark} ${(event.durationMs / 1000).toFixed(1)}s\n`);
      this.showStatus();
    } else if (stopped) {
      this.write(this.opts.status, `  ${label} ${paint("warning", "⊘ interrupted", c)}\n`);
    } else if (event.isError) {
      this.write(this.opts.status, `  ${label} ${paint("error", `✗ ${firstLine(event.result)}`, c)}\n`);
    }
  }

  /** The spinner line: running tools first, else the wait for the model, else nothing. */
  private showStatus(): void {
    const live = this.opts.live;
    if (!live) return;
    const tools = [...this.running.values()];
    if (tools.length > 0) {
      const label =
        tools.length === 1
          ? tools[0]!.label
          : `${tools.length} tools: ${tools.map((t) => t.label.split(" ")[1]?.replace(/:$/, "")).join(", ")}`;
      live.setStatus({ label, since: Math.min(...tools.map((t) => t.started)) });
    } else if (this.thinkingSince !== undefined) {
      live.setStatus({ label: "thinking", since: this.thinkingSince });
    } else live.setStatus(undefined);
  }

  private write(stream: MaybeTty, text: string): void {
    if (this.opts.live) this.opts.live.write(text, stream);
    else stream.write(text);
  }

  /**
   * What was printed cannot be unprinted (it may have scrolled or gone down a pipe): the withdrawn
   * text is closed off with a marker on its own line, in the stream that showed it.
   */
  private discard(attempt: number): void {
    const text = this.textAttempt === attempt;
    const reasoning = this.reasoningAttempt === attempt;
    if (!text && !reasoning) return;
    if (text) {
      this.endText();
      this.write(this.opts.out, `${paint("dim", DISCARDED, this.colorOut)}\n`);
    } else {
      this.reasoningOpen = false;
      this.write(this.opts.status, `\n${paint("dim", DISCARDED, this.colorStatus)}\n`);
    }
    this.textAttempt = undefined;
    this.reasoningAttempt = undefined;
  }

  private endText(): void {
    if (this.textOpen) {
      this.write(this.opts.out, "\n");
      this.textOpen = false;
    }
  }

  private endReasoning(): void {
    if (this.reasoningOpen) {
      this.write(this.opts.status, "\n");
      this.reasoningOpen = false;
    }
  }
}

const fmtPreview = (p: string): string => (p ? `: ${p}` : "");

/** A result that says its tool was stopped by an interrupt (terminal, execute_code, the runner's own). */
function wasInterrupted(result: string): boolean {
  try {
    const parsed = JSON.parse(result) as { interrupted?: unknown; status?: unknown; error?: unknown };
    return (
      parsed.interrupted === true ||
      parsed.status === "interrupted" ||
      (typeof parsed.error === "string" && parsed.error.startsWith("Interrupted by the user"))
    );
  } catch {
    return false;
  }
}

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
