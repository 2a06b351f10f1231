import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * File logging to `HERMES_HOME/logs/agent.log`: one JSON object per line in pino's format
 * (`level` 20/30/40/50, ISO `time`, `pid`, the fields, `msg`), so pino's tools read it. Written
 * synchronously by this module: the pino package would add ~5 MB and a worker-thread module to
 * every run for the same lines. stdout belongs to the user, so nothing here ever prints. Secrets
 * are redacted from every line by the redactor the caller injects (core knows no secret patterns).
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Resolves once every record so far is on disk (and releases the file until the next record). */
  flush(): Promise<void>;
}

export interface LoggerOptions {
  /** Applied to each line (a compact JSON record) before it is written. */
  redact?: (text: string) => string;
}

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50 };

/** One record as a line; values JSON cannot hold (cycles, bigints) are written as text. */
export function formatRecord(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): string {
  const record = { level: LEVELS[level], time: new Date().toISOString(), pid: process.pid, ...fields, msg };
  try {
    return `${JSON.stringify(record)}\n`;
  } catch {
    const seen = new WeakSet<object>();
    return `${JSON.stringify(record, (_key, value: unknown) => {
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "object" && value !== null) {
        if (seen.has(value)) return "[Circular]";
        seen.add(value);
      }
      return value;
    })}\n`;
  }
}

/** A logger appending to `HERMES_HOME/logs/<fileName>` (agent.log; the gateway keeps gateway.log). */
export function createLogger(
  home: string,
  level: LogLevel = "info",
  fileName = "agent.log",
  options: LoggerOptions = {},
): Logger {
  const dir = join(home, "logs");
  const file = join(dir, fileName);
  const threshold = LEVELS[level];
  let fd: number | undefined;
  let failed = false;
  const { redact } = options;
  const line = (l: LogLevel, msg: string, fields?: Record<string, unknown>): string => {
    const text = formatRecord(l, msg, fields);
    if (!redact) return text;
    try {
      // The record without its newline is compact JSON: the redactor keeps it JSON.
      return `${redact(text.slice(0, -1))}\n`;
    } catch {
      // Never the unredacted line: say that one was held back.
      return formatRecord("error", "log record withheld: its redaction failed");
    }
  };
  const write = (l: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (failed || LEVELS[l] < threshold) return;
    try {
      if (fd === undefined) {
        mkdirSync(dir, { recursive: true });
        fd = openSync(file, "a");
      }
      writeSync(fd, line(l, msg, fields));
    } catch {
      // Logging is never worth failing a session over.
      failed = true;
    }
  };
  return {
    log: write,
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    debug: (m, f) => write("debug", m, f),
    flush: async () => {
      if (fd === undefined) return;
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
      fd = undefined;
    },
  };
}
