import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import type { IPty, PtySpawn } from "../environments/pty.js";
import type { BackgroundSpec } from "../environments/types.js";

/**
 * Starting a background process's wrapper script: on pipes, with its output going straight into
 * the log file (so it keeps logging if Hermes dies), or in a pseudo-terminal whose output Hermes
 * appends to the log.
 */

export type OnExit = (code: number | null, signalled: boolean) => void;

export interface Handle {
  pid: number;
  child?: ChildProcess;
  pty?: IPty;
}

/** Starts the wrapper with stdin on a pipe and stdout/stderr straight into the log file. */
export async function startPiped(
  spec: BackgroundSpec,
  wrapper: string,
  logPath: string,
  onExit: OnExit,
): Promise<Handle> {
  const logFd = openSync(logPath, "a", 0o600);
  let child: ChildProcess;
  try {
    child = spawn(spec.shell, ["-c", wrapper], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ["pipe", logFd, logFd],
    });
  } finally {
    // The child has its own copy of the descriptor.
    closeSync(logFd);
  }
  const pid = child.pid;
  if (pid === undefined) {
    const err = await new Promise<Error>((r) => child.once("error", r));
    throw new Error(`could not start ${spec.shell}: ${err.message}`);
  }
  child.stdin?.on("error", () => undefined);
  // Neither the process nor its stdin pipe keeps Hermes running.
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  child.unref();
  child.once("exit", (code, signal) => onExit(code, signal !== null));
  return { pid, child };
}

/** Starts the wrapper in a pseudo-terminal; what it prints is appended to the log as it arrives. */
export function startInPty(
  pty: PtySpawn,
  spec: BackgroundSpec,
  wrapper: string,
  logPath: string,
  onExit: OnExit,
): Handle {
  const logFd = openSync(logPath, "a", 0o600);
  let terminal: IPty;
  try {
    terminal = pty(spec.shell, ["-c", wrapper], { cwd: spec.cwd, env: spec.env });
  } catch (err) {
    closeSync(logFd);
    throw err;
  }
  terminal.onData((data) => {
    try {
      writeSync(logFd, data);
    } catch {
      // a full disk loses output, not the process
    }
  });
  terminal.onExit(({ exitCode, signal }) => {
    closeSync(logFd);
    onExit(signal ? null : exitCode, Boolean(signal));
  });
  return { pid: terminal.pid, pty: terminal };
}
