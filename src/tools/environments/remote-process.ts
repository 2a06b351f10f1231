import type { ChildProcess } from "node:child_process";
import { parseMarker, type RunMarker } from "./remote-script.js";
import { type OutputStream, releaseStreams, type Supervised } from "./supervise.js";

/** The promise's value, or undefined as soon as the signal aborts (connecting can take a while). */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  if (!signal) return promise;
  return new Promise<T | undefined>((resolveWait, reject) => {
    const onAbort = (): void => resolveWait(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolveWait(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/**
 * Supervision view of one remote run: stdout is the output; stderr lines are output too, except the
 * run's marker, which ends the command (with its status) even while a background child keeps the
 * connection open.
 */
export function remoteProcess(
  child: ChildProcess,
  marker: RunMarker,
  onDone: (done: { status: number; cwd: string }) => void,
): Supervised {
  let output: ((chunk: Buffer | string, stream: OutputStream) => void) | undefined;
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let exited = false;
  const fireExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (exited) return;
    exited = true;
    for (const fn of exitListeners) fn(code, signal);
  };
  let partial = "";
  const onStderr = (chunk: Buffer): void => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith(marker.prefix)) {
        const done = parseMarker(line.slice(marker.prefix.length));
        if (done) {
          onDone(done);
          fireExit(done.status, null);
        }
      } else output?.(`${line}\n`, "stderr");
    }
  };
  child.once("exit", (code, signal) => fireExit(code, signal));
  return {
    pid: child.pid,
    onOutput(fn) {
      output = fn;
      child.stdout?.on("data", (chunk: Buffer) => fn(chunk, "stdout"));
      child.stderr?.on("data", onStderr);
    },
    onExit: (fn) => {
      exitListeners.push(fn);
    },
    onClose: (fn) =>
      child.once("close", () => {
        if (partial) output?.(partial, "stderr");
        partial = "";
        fn();
      }),
    onError: (fn) => child.once("error", fn),
    detach: () => releaseStreams([child.stdout, child.stderr]),
  };
}
