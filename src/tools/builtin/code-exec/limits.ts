import type { HermesConfig } from "../../../core/config.js";

/** Bytes of stdout the model gets back: the script should print a summary, not raw tool output. */
export const MAX_STDOUT_BYTES = 50_000;
/** Bytes of stderr kept for error reports (tracebacks). */
export const MAX_STDERR_BYTES = 10_000;
/** Time between SIGTERM and SIGKILL when a script overruns its time. */
export const KILL_GRACE_MS = 5_000;

export type CodeExecMode = "project" | "strict";

export interface CodeExecSettings {
  mode: CodeExecMode;
  timeoutSeconds: number;
  maxToolCalls: number;
}

/** The code_execution section of the config, with defaults for missing or odd values. */
export function codeExecSettings(config: HermesConfig | undefined): CodeExecSettings {
  const c = config?.code_execution;
  const timeout = c?.timeout;
  const calls = c?.max_tool_calls;
  return {
    mode: c?.mode === "strict" ? "strict" : "project",
    timeoutSeconds: typeof timeout === "number" && timeout > 0 ? timeout : 300,
    maxToolCalls: typeof calls === "number" && calls >= 1 ? Math.floor(calls) : 50,
  };
}

const kb = (bytes: number): string => `${Math.round(bytes / 1000)} KB`;

/**
 * Collects a stream's bytes in bounded memory: the first 70% of the cap as they come, then a rolling
 * tail of the last 30%. `text()` joins them with a marker that says how much was cut.
 */
export class OutputCapture {
  private readonly headMax: number;
  private readonly tailMax: number;
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly label: string,
  ) {
    this.headMax = Math.floor(maxBytes * 0.7);
    this.tailMax = maxBytes - this.headMax;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headLen < this.headMax) {
      const take = Math.min(chunk.length, this.headMax - this.headLen);
      this.head.push(chunk.subarray(0, take));
      this.headLen += take;
      chunk = chunk.subarray(take);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tailLen - (this.tail[0]?.length ?? 0) >= this.tailMax) {
      this.tailLen -= this.tail.shift()!.length;
    }
  }

  get bytes(): number {
    return this.total;
  }

  text(): string {
    const head = Buffer.concat(this.head);
    if (this.total <= this.maxBytes) return Buffer.concat([head, ...this.tail]).toString("utf8");
    const tailAll = Buffer.concat(this.tail);
    const tail = tailAll.subarray(Math.max(0, tailAll.length - this.tailMax));
    const cut = this.total - head.length - tail.length;
    return (
      `${head.toString("utf8")}\n[... ${cut} bytes of ${this.label} cut: ${this.label} is capped at ` +
      `${kb(this.maxBytes)}, first and last parts kept ...]\n${tail.toString("utf8")}`
    );
  }
}
