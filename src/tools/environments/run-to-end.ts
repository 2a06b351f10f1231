import { spawn } from "node:child_process";

export interface Finished {
  /** null when the program could not start or was killed at the time limit. */
  code: number | null;
  /** Its stderr (for messages). */
  stderr: string;
  /** Why it could not start (e.g. ENOENT: not installed). */
  error?: NodeJS.ErrnoException;
  timedOut: boolean;
}

/** Runs a program (ssh, docker) to completion with stdout ignored. Never rejects. */
export function runToEnd(binary: string, args: readonly string[], timeoutMs: number): Promise<Finished> {
  return new Promise((done) => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let timedOut = false;
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done({ code: null, stderr, error, timedOut });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code: timedOut ? null : code, stderr, timedOut });
    });
  });
}

/** The last lines of a tool's stderr, for an error message. */
export function lastLines(text: string, n = 3): string {
  return text.trim().split("\n").slice(-n).join(" ");
}
