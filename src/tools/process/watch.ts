import { StringDecoder } from "node:string_decoder";
import { cleanTerminalOutput } from "../output.js";
import { readFrom } from "./log.js";

/**
 * `watch_patterns`: follows a background process's log and reports new lines matching any of the
 * patterns. The log is polled (output goes straight from the process to the file, so nothing else
 * sees it); each poll's matches make at most one notice, and a process gets a bounded number.
 */

/** Where notices go: the agent delivers them with its next tool result or user message. */
export interface NoticeSink {
  push(text: string): void;
}

const POLL_MS = 500;
const READ_MAX = 1024 * 1024;
const MAX_LINES_PER_NOTICE = 5;
export const MAX_WATCH_NOTICES = 20;
const MAX_LINE = 500;

/** Compiles patterns; the message names the first invalid one. */
export function compilePatterns(patterns: readonly string[]): RegExp[] | { error: string } {
  const out: RegExp[] = [];
  for (const p of patterns) {
    try {
      out.push(new RegExp(p));
    } catch (err) {
      return { error: `Invalid watch_patterns regex ${JSON.stringify(p)}: ${(err as Error).message}` };
    }
  }
  return out;
}

export class LogWatcher {
  private offset = 0;
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");
  private timer: NodeJS.Timeout | undefined;
  private notices = 0;
  private busy = false;

  constructor(
    private readonly id: string,
    private readonly logPath: string,
    private readonly patterns: readonly RegExp[],
    private readonly sink: NoticeSink,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Stops polling after one last read (the process has exited). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.poll(true);
  }

  private async poll(final = false): Promise<void> {
    if (this.busy || this.notices >= MAX_WATCH_NOTICES) return;
    this.busy = true;
    try {
      const matches: string[] = [];
      for (;;) {
        const chunk = await readFrom(this.logPath, this.offset, READ_MAX);
        if (chunk.length === 0) break;
        this.offset += chunk.length;
        const lines = (this.partial + this.decoder.write(chunk)).split("\n");
        this.partial = (lines.pop() ?? "").slice(-READ_MAX);
        this.match(lines, matches);
        if (chunk.length < READ_MAX) break;
      }
      if (final && this.partial) this.match([this.partial], matches);
      if (matches.length > 0) this.report(matches);
    } finally {
      this.busy = false;
    }
  }

  private match(lines: string[], into: string[]): void {
    for (const raw of lines) {
      const line = cleanTerminalOutput(raw);
      if (this.patterns.some((p) => p.test(line))) into.push(line.slice(0, MAX_LINE));
    }
  }

  private report(matches: string[]): void {
    this.notices += 1;
    const shown = matches.slice(0, MAX_LINES_PER_NOTICE).map((l) => `  ${l}`);
    const more = matches.length > shown.length ? `\n  (+${matches.length - shown.length} more)` : "";
    const last =
      this.notices >= MAX_WATCH_NOTICES
        ? `\nNo further watch notices for ${this.id}; use process(action="log") to read its output.`
        : "";
    this.sink.push(
      `[Background process ${this.id}: output matched watch_patterns:\n${shown.join("\n")}${more}${last}]`,
    );
  }
}
