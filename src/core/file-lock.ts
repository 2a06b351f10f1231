/**
 * Exclusive lock files shared by every Hermes process of a profile (auth.json, processes.json):
 * `<file>.lock` is created with O_EXCL and holds "<pid> <random token>". A lock whose owner died is
 * taken over, so a crash never blocks the other processes for good.
 *
 * Three ways to take it: `lockFile` waits on timers and never blocks the event loop (what every
 * path a server reaches uses), `tryLockFile` takes it only if it is free now, and `lockFileSync`
 * sleeps the thread (only for one-shot CLI commands, which have no event loop to keep free).
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";

/** The lock file cannot be created, or another process held it for longer than the caller waits. */
export class FileLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileLockError";
  }
}

export interface FileLockOptions {
  /** Longest wait for the lock before FileLockError (default 10 s). */
  timeoutMs?: number;
}

/** Releases the lock (never one that a stale-lock takeover handed to another process). */
export type ReleaseLock = () => void;

/** A lock older than this, whose owner is gone (or any lock much older), is taken over. */
const STALE_LOCK_MS = 5_000;
const ABANDONED_LOCK_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Waits between attempts grow from 1 ms to this, with jitter so waiters do not retry in step. */
const MAX_PAUSE_MS = 25;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Takes `lock`, sleeping the thread between attempts; throws FileLockError after the timeout. */
export function lockFileSync(lock: string, opts: FileLockOptions = {}): ReleaseLock {
  const waiter = new Waiter(lock, opts);
  for (;;) {
    const release = waiter.attempt();
    if (release) return release;
    Atomics.wait(sleeper, 0, 0, waiter.nextPause());
  }
}

/**
 * Takes `lock` if it is free now (a stale one is taken over), never waiting: undefined when another
 * process holds it. Throws FileLockError when the lock file cannot be created at all.
 */
export function tryLockFile(lock: string): ReleaseLock | undefined {
  return new Waiter(lock, { timeoutMs: Number.POSITIVE_INFINITY }).attempt();
}

/** Takes `lock`, waiting on timers between attempts; rejects with FileLockError after the timeout. */
export async function lockFile(lock: string, opts: FileLockOptions = {}): Promise<ReleaseLock> {
  const waiter = new Waiter(lock, opts);
  for (;;) {
    const release = waiter.attempt();
    if (release) return release;
    await new Promise((resolve) => setTimeout(resolve, waiter.nextPause()));
  }
}

/**
 * One caller's attempts at a lock: the token it writes, its deadline and its backoff. (No parameter
 * properties: child processes of tests load this file with Node's type stripping.)
 */
class Waiter {
  private readonly lock: string;
  private readonly token = `${process.pid} ${randomBytes(6).toString("hex")}`;
  private readonly deadline: number;
  private pause = 1;

  constructor(lock: string, opts: FileLockOptions) {
    this.lock = lock;
    this.deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /** The release function when the lock was taken, undefined when the caller should wait and retry. */
  attempt(): ReleaseLock | undefined {
    for (;;) {
      if (this.create()) return () => removeIfContent(this.lock, this.token);
      if (!takeOverIfStale(this.lock)) break;
    }
    if (Date.now() > this.deadline) {
      throw new FileLockError(
        `${this.lock} is held by another process (${lockOwner(this.lock)}); if none is running, delete the file`,
      );
    }
    return undefined;
  }

  nextPause(): number {
    const ms = this.pause + Math.random() * this.pause;
    this.pause = Math.min(this.pause * 2, MAX_PAUSE_MS);
    return ms;
  }

  private create(): boolean {
    try {
      const fd = openSync(this.lock, "wx", 0o600);
      try {
        writeSync(fd, this.token);
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw new FileLockError(`${this.lock}: cannot create lock: ${(err as Error).message}`);
    }
  }
}

/** Deletes `path` if it still holds `content` (a lock or PID file this process wrote, not a successor's). */
export function removeIfContent(path: string, content: string): void {
  try {
    if (readFileSync(path, "utf8") === content) unlinkSync(path);
  } catch {
    // Already gone: nothing to release.
  }
}

/**
 * Deletes a stale lock or PID file whose content was read as `stale`. It is renamed aside first and
 * checked: if another process replaced it meanwhile (what moved aside is not the stale file), it is
 * put back, so two processes deciding at once never delete a file a third one just created.
 */
export function removeStaleFile(path: string, stale: string): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  try {
    if (readFileSync(aside, "utf8") !== stale && !existsSync(path)) renameSync(aside, path);
  } catch {
    // Best effort: if the fresh file cannot be put back, its owner's release simply finds nothing.
  }
  try {
    unlinkSync(aside);
  } catch {
    // put back above
  }
}

/**
 * A lock whose owner died (crash, kill -9) would block every process forever. It is taken over
 * when it is older than STALE_LOCK_MS and its pid is gone, or older than ABANDONED_LOCK_MS (see
 * removeStaleFile for how two waiters deciding at once stay safe). True when the caller should try again now.
 */
function takeOverIfStale(lock: string): boolean {
  let content: string;
  let age: number;
  try {
    content = readFileSync(lock, "utf8");
    age = Date.now() - statSync(lock).mtimeMs;
  } catch {
    return true; // released meanwhile: try again at once
  }
  const pid = Number(content.split(" ")[0]);
  const stale = age > ABANDONED_LOCK_MS || (age > STALE_LOCK_MS && !processAlive(pid));
  if (!stale) return false;
  removeStaleFile(lock, content);
  return true;
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lockOwner(lock: string): string {
  try {
    return `pid ${readFileSync(lock, "utf8").split(" ")[0]}`;
  } catch {
    return "unknown pid";
  }
}
