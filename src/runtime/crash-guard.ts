/**
 * The long-running servers (`hermes gateway run`, `hermes api serve`) outlive an error nobody
 * caught: a plugin's timer that throws, a rejected promise of an MCP client or a platform adapter.
 * Such an error is logged with its source (the code that started it, see core/fault-source.ts, or
 * a plugin's folder in its stack) and the server goes on; a plugin traced this way counts a
 * failure, and one that keeps failing is disabled. The CLI keeps Node's default: a one-shot run or
 * a chat should stop loudly on a bug rather than go on in an unknown state.
 */
import { sep } from "node:path";
import { fileURLToPath } from "node:url";
import { currentSource, describeSource, type FaultSource } from "../core/fault-source.js";
import type { Runtime } from "./runtime.js";

export interface CrashGuardOptions {
  runtime: Pick<Runtime, "plugins">;
  /** The server's log file. */
  log: (level: "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
  /** One line for the console (stderr). */
  say: (line: string) => void;
}

export interface CrashGuard {
  /** Removes the listeners (the server has stopped). */
  dispose(): void;
}

type Attribution = FaultSource | "unknown";

/** Records per source and minute past which a source's errors are counted, not written. */
const RECORDS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

const FRAME_PATH = /(?:\(|at )((?:file:\/\/)?\/[^():]+)(?::\d+){0,2}\)?\s*$/;

/** The file paths of a stack's frames, innermost first. */
function stackPaths(stack: string): string[] {
  const paths: string[] = [];
  for (const line of stack.split("\n")) {
    const m = FRAME_PATH.exec(line.trim());
    if (!m?.[1]) continue;
    try {
      paths.push(m[1].startsWith("file://") ? fileURLToPath(m[1]) : m[1]);
    } catch {
      // Not a path after all.
    }
  }
  return paths;
}

/**
 * Who an uncaught error belongs to: a plugin whose folder holds the innermost frame of its stack
 * that lies in any plugin's folder, else the source the failing code ran as, else "unknown".
 */
export function attributeFault(
  error: unknown,
  context: FaultSource | undefined,
  pluginFolders: ReadonlyArray<{ name: string; dir: string }>,
): Attribution {
  const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : "";
  if (stack && pluginFolders.length > 0) {
    for (const path of stackPaths(stack)) {
      const owner = pluginFolders.find((p) => path.startsWith(p.dir.endsWith(sep) ? p.dir : p.dir + sep));
      if (owner) return `plugin:${owner.name}`;
    }
  }
  return context ?? "unknown";
}

const describeError = (error: unknown): string => {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return typeof error === "string" ? error : `thrown value ${JSON.stringify(error)}`;
  } catch {
    return String(error);
  }
};

/** A failed write to our own closed console: saying so would fail the same way, forever. */
const isConsoleWriteFailure = (error: unknown): boolean => {
  const e = error as NodeJS.ErrnoException | undefined;
  return e?.code === "EPIPE" || e?.code === "ERR_STREAM_DESTROYED";
};

/** Installs the process-wide listeners. One guard per process: a second call replaces the first. */
export function installCrashGuard(o: CrashGuardOptions): CrashGuard {
  active?.dispose();
  const plugins = o.runtime.plugins.service;
  const written = new Map<Attribution, number[]>();

  /** True while `source` is under its record budget for the last minute. */
  const mayWrite = (source: Attribution, now: number): boolean => {
    const recent = (written.get(source) ?? []).filter((t) => now - t < MINUTE_MS);
    const ok = recent.length < RECORDS_PER_MINUTE;
    if (ok) recent.push(now);
    written.set(source, recent);
    return ok;
  };

  const handle = (kind: "uncaught exception" | "unhandled rejection", error: unknown): void => {
    try {
      const source = attributeFault(error, currentSource(), plugins.folders());
      const text = describeError(error);
      if (mayWrite(source, Date.now())) {
        o.log("error", kind, {
          source,
          error: text,
          ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
        });
        if (!isConsoleWriteFailure(error))
          o.say(`hermes: ${kind} from ${describeSource(source)}: ${text} (logged; still running)`);
      }
      if (source.startsWith("plugin:")) plugins.recordFault(source.slice("plugin:".length), text);
    } catch {
      // The guard itself must never be the thing that stops the server.
    }
  };
  const onException = (error: unknown): void => handle("uncaught exception", error);
  const onRejection = (reason: unknown): void => handle("unhandled rejection", reason);
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  // The plugin service has logged it (agent.log, with the plugin's other records); the console hears it too.
  const unsubscribe = plugins.onDisabled((plugin, reason) =>
    o.say(`hermes: plugin '${plugin}' disabled: ${reason}`),
  );
  const guard: CrashGuard = {
    dispose: () => {
      process.off("uncaughtException", onException);
      process.off("unhandledRejection", onRejection);
      unsubscribe();
      if (active === guard) active = undefined;
    },
  };
  active = guard;
  return guard;
}

let active: CrashGuard | undefined;
