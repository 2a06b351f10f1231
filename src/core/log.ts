import { join } from "node:path";
import type { Logger as PinoLogger } from "pino";

/**
 * File logging to `HERMES_HOME/logs/agent.log` through pino. stdout belongs to the user, so nothing
 * here ever prints. pino loads in the background; records made before it is ready are buffered.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Resolves once every record so far is on disk. */
  flush(): Promise<void>;
}

export function createLogger(home: string, level: LogLevel = "info"): Logger {
  const pending: Array<[LogLevel, string, Record<string, unknown> | undefined]> = [];
  let pino: PinoLogger | undefined;
  let failed = false;
  const ready = import("pino")
    .then(({ default: create }) => {
      pino = create(
        { level, base: { pid: process.pid }, timestamp: create.stdTimeFunctions.isoTime },
        create.destination({ dest: join(home, "logs", "agent.log"), sync: true, mkdir: true }),
      );
      for (const [l, m, f] of pending.splice(0)) pino[l](f ?? {}, m);
    })
    .catch(() => {
      // Logging is never worth failing a session over.
      failed = true;
      pending.length = 0;
    });
  const write = (l: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (pino) pino[l](fields ?? {}, msg);
    else if (!failed) pending.push([l, msg, fields]);
  };
  return {
    log: write,
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    debug: (m, f) => write("debug", m, f),
    flush: () => ready,
  };
}
