import type { ChildProcess } from "node:child_process";
import { constants as osConstants } from "node:os";
import type { Readable } from "node:stream";
import type { OutputCollector } from "./output-collector.js";
import type { IPty } from "./pty.js";
import type { RunResult } from "./types.js";

/**
 * Waiting for one command (a terminal command or an execute_code script): output into a sink, a
 * timeout and an abort signal that kill it, whether it runs on pipes (a child process, maybe an ssh
 * client) or in a pseudo-terminal.
 */

export type KillReason = "timeout" | "interrupt";
export type OutputStream = "stdout" | "stderr";

/** Where supervision puts output: one merged capture (terminal) or one per stream (execute_code). */
export interface OutputSink {
  push(chunk: Buffer | string, stream: OutputStream): void;
}

/** The parts of a running process that supervision needs, over pipes or a PTY. */
export interface Supervised {
  readonly pid: number | undefined;
  onOutput(listener: (chunk: Buffer | string, stream: OutputStream) => void): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Every output stream has ended. */
  onClose(listener: () => void): void;
  onError(listener: (err: Error) => void): void;
  /** Stops collecting without closing the streams (a background child may still write to them). */
  detach(): void;
}

export interface SuperviseOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Kills the command (and its process group); called once, on timeout or abort. */
  kill: (why: KillReason) => void;
  /** After the process exits, how long to wait for output still in flight or held by background children. */
  drainMs: number;
  /** After a kill, resolve this soon even if the process has not gone yet. */
  settleMs: number;
}

export interface Supervision {
  exitCode: number | null;
  /** The signal that ended the process, when one did (then `exitCode` is 128 + its number). */
  exitSignal?: NodeJS.Signals;
  killedBy: KillReason | undefined;
  /** The process could not be started. */
  spawnError?: Error;
}

const signalStatus = (signal: NodeJS.Signals | null): number | null =>
  signal ? 128 + (osConstants.signals[signal] ?? 0) : null;

/**
 * Stops reading a finished command's pipes without closing them: a background child may still
 * hold them, and closing would SIGPIPE a server the model started with `&`. Nor do they keep
 * Node alive any longer.
 */
export function releaseStreams(streams: readonly (Readable | null | undefined)[]): void {
  for (const stream of streams) {
    if (!stream || stream.destroyed) continue;
    stream.removeAllListeners("data");
    stream.resume();
    const unref = (stream as { unref?: () => void }).unref;
    if (typeof unref === "function") unref.call(stream);
  }
}

/** A RunResult timed from `started` (performance.now()). */
export function runResult(
  started: number,
  cwd: string,
  output: string,
  exitCode: number | null,
  extra: Partial<RunResult> = {},
): RunResult {
  return {
    output,
    exitCode,
    timedOut: false,
    interrupted: false,
    durationMs: Math.round(performance.now() - started),
    cwd,
    ...extra,
  };
}

/** The RunResult of a supervised command: captured text, status, and the spill file if any. */
export function supervisedResult(
  started: number,
  cwd: string,
  collector: OutputCollector,
  exec: Supervision,
): RunResult {
  const fullOutputPath = collector.finish();
  return runResult(started, cwd, collector.text(), exec.killedBy ? null : exec.exitCode, {
    timedOut: exec.killedBy === "timeout",
    interrupted: exec.killedBy === "interrupt",
    ...(fullOutputPath ? { fullOutputPath } : {}),
  });
}

export function fromChildProcess(child: ChildProcess): Supervised {
  return {
    pid: child.pid,
    onOutput(fn) {
      child.stdout?.on("data", (chunk: Buffer) => fn(chunk, "stdout"));
      child.stderr?.on("data", (chunk: Buffer) => fn(chunk, "stderr"));
    },
    onExit: (fn) => child.once("exit", fn),
    onClose: (fn) => child.once("close", fn),
    onError: (fn) => child.once("error", fn),
    detach: () => releaseStreams([child.stdout, child.stderr]),
  };
}

export function fromPty(pty: IPty): Supervised {
  const subscriptions: { dispose(): void }[] = [];
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  subscriptions.push(
    pty.onExit(({ exitCode, signal }) => {
      const name = signal
        ? (Object.entries(osConstants.signals).find(([, n]) => n === signal)?.[0] as NodeJS.Signals)
        : null;
      for (const fn of exitListeners) fn(name ? null : exitCode, name ?? null);
    }),
  );
  return {
    pid: pty.pid,
    onOutput: (fn) => {
      subscriptions.push(pty.onData((chunk) => fn(chunk, "stdout")));
    },
    onExit: (fn) => {
      exitListeners.push(fn);
    },
    // node-pty reports the exit once the terminal has been read to its end.
    onClose: (fn) => {
      exitListeners.push(() => fn());
    },
    onError: () => {},
    detach: () => {
      for (const s of subscriptions.splice(0)) s.dispose();
    },
  };
}

/** Waits for the command, enforcing the timeout and the abort signal. Never rejects. */
export function supervise(
  proc: Supervised,
  sink: OutputSink,
  options: SuperviseOptions,
): Promise<Supervision> {
  return new Promise<Supervision>((resolveRun) => {
    let killedBy: KillReason | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let spawnError: Error | undefined;
    let exited = false;
    let done = false;
    const timers: NodeJS.Timeout[] = [];

    const finish = (): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      proc.detach();
      resolveRun({
        exitCode,
        killedBy,
        ...(exitSignal ? { exitSignal } : {}),
        ...(spawnError ? { spawnError } : {}),
      });
    };
    const kill = (why: KillReason): void => {
      if (exited || killedBy || done) return;
      killedBy = why;
      options.kill(why);
      timers.push(setTimeout(finish, options.settleMs));
    };
    const onAbort = (): void => kill("interrupt");

    proc.onOutput((chunk, stream) => sink.push(chunk, stream));
    proc.onError((err) => {
      spawnError = err;
      exitCode = 127;
      finish();
    });
    proc.onExit((code, signal) => {
      exited = true;
      exitCode = code ?? signalStatus(signal);
      exitSignal = code === null ? signal : null;
      timers.push(setTimeout(finish, killedBy ? 50 : options.drainMs));
    });
    proc.onClose(() => {
      // Output is complete; an exit event, if still due, comes right after.
      if (exited) finish();
      else timers.push(setTimeout(finish, 50));
    });
    timers.push(setTimeout(() => kill("timeout"), Math.max(1, options.timeoutMs)));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
  });
}
