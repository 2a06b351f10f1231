import type { DatabaseSync } from "node:sqlite";
import type { Redact } from "../redaction.js";
import { StateStoreError } from "../store.js";
import { openDatabase, type Statements, statementCache } from "./connection.js";
import { isBusy, type SessionWrite, WriteQueue } from "./write-queue.js";

/** Writes queued this long mean another process holds the lock for long, not just for one write. */
const LONG_HOLD_MS = 50;
/** During a long hold, at most one write per this many ms waits out the busy timeout. */
const LONG_HOLD_WAIT_EVERY_MS = 100;

export interface SqliteDatabaseOptions {
  /** How long one write attempt waits for another process's lock before it is queued (ms). */
  busyTimeoutMs: number;
  /** How long opening (a migration) may wait for the lock (ms). */
  openWaitMs: number;
  /** How long a durable write may wait in the queue before it rejects "locked" (ms). */
  writeDeadlineMs: number;
  redact: Redact;
  now: () => number;
}

/**
 * The one connection to state.db that the session store and every side table share, and its one
 * write path: each write is a BEGIN IMMEDIATE transaction that waits at most `busyTimeoutMs` for
 * the lock; a write that finds it held (or comes while others wait) joins one ordered queue retried
 * on timers (write-queue.ts). Nothing here ever waits longer on the event loop.
 */
export class SqliteDatabase {
  readonly db: DatabaseSync;
  readonly st: Statements;
  readonly queue: WriteQueue;
  readonly redact: Redact;
  readonly now: () => number;
  private readonly rollbackHooks: Array<() => void> = [];
  /** When a write last waited out the busy timeout in vain (performance.now()). */
  private lastBusyAt = Number.NEGATIVE_INFINITY;

  /** Opens (and migrates) the file. Throws StateStoreError; never deletes or rewrites a bad file. */
  constructor(
    readonly path: string,
    readonly options: SqliteDatabaseOptions,
  ) {
    this.db = openDatabase(path, options.openWaitMs);
    this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(options.busyTimeoutMs))}`);
    this.st = statementCache(this.db);
    this.redact = options.redact;
    this.now = options.now;
    // Deadlines and retries run on the real clock; `now` is the clock of what is stored.
    this.queue = new WriteQueue((run) => this.tx(run));
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  /** `hook` runs when a transaction rolls back (caches of what it wrote are stale). */
  onRollback(hook: () => void): void {
    this.rollbackHooks.push(hook);
  }

  /** Runs `fn` in one BEGIN IMMEDIATE transaction; throws what SQLite threw (busy included). */
  tx<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (err) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      for (const hook of this.rollbackHooks) hook();
      throw err;
    }
  }

  /**
   * A conversation write: runs now when the lock is free within the busy timeout and nothing of
   * this process waits before it; otherwise queues it and returns undefined. Errors other than
   * "busy" are thrown.
   */
  submit<T>(info: Omit<SessionWrite, "kind" | "run" | "queuedAt">, run: () => T): { value: T } | undefined {
    const now = this.runNow(run);
    if (now) return now;
    this.queue.push({ ...info, kind: "session", run: () => void run(), queuedAt: Date.now() });
    return undefined;
  }

  /**
   * A durable write: resolves with `run`'s value once committed, in order after this process's
   * queued writes. Rejects with what SQLite threw, or with StateStoreError "locked" when the lock
   * stayed with another process for `deadlineMs` (default: the store's write deadline); then
   * nothing of it was written.
   */
  write<T>(run: () => T, opts: { sessionId?: string; deadlineMs?: number } = {}): Promise<T> {
    if (!this.db.isOpen) return Promise.reject(this.closedError());
    let now: { value: T } | undefined;
    try {
      now = this.runNow(run);
    } catch (err) {
      return Promise.reject(err);
    }
    if (now) return Promise.resolve(now.value);
    const waitMs = opts.deadlineMs ?? this.options.writeDeadlineMs;
    return new Promise<T>((resolve, reject) => {
      let value: T;
      this.queue.push({
        kind: "durable",
        ...(opts.sessionId !== undefined ? { sessionId: opts.sessionId } : {}),
        run: () => {
          value = run();
        },
        queuedAt: Date.now(),
        deadline: Date.now() + waitMs,
        settle: (err) => (err ? reject(err) : resolve(value)),
        expired: () =>
          new StateStoreError(
            `The session database ${this.path} stayed locked by another process for ${waitMs / 1000} s; nothing was written. Try again.`,
            "locked",
          ),
      });
    });
  }

  /** Upkeep nobody waits for (pruning old rows): a durable write whose failure is left for next time. */
  background(run: () => void): void {
    this.write(run).catch(() => {
      // Pruning again later loses nothing.
    });
  }

  /** The error of a write the store closed on. */
  closedError(): StateStoreError {
    return new StateStoreError(
      `The session database ${this.path} was closed before this could be written (another process held its write lock).`,
      "locked",
    );
  }

  /**
   * Writes what waits in the queue if the lock is free this instant (never waiting for it): what
   * a read or a new write does before going ahead. True when nothing waits any more.
   */
  drainWithoutWaiting(): boolean {
    if (this.queue.pending() === 0) return true;
    return this.withoutWaiting(() => this.queue.drainNow());
  }

  private withoutWaiting<T>(fn: () => T): T {
    this.db.exec("PRAGMA busy_timeout = 0");
    try {
      return fn();
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(this.options.busyTimeoutMs))}`);
    }
  }

  /**
   * Writes `run` now, after what waits in the queue, or returns undefined (the caller queues it).
   * It waits up to the busy timeout for the lock, as it changes hands quickly between writers. Once
   * writes have waited in the queue for a while (another process holds the lock for long), new ones
   * join the queue at once instead of each holding the event loop again; the queue's timer and one
   * write now and then keep trying.
   */
  private runNow<T>(run: () => T): { value: T } | undefined {
    const attempt = (): { value: T } | undefined =>
      this.queue.drainNow() ? { value: this.tx(run) } : undefined;
    const mayWait =
      this.queue.oldestAge() < LONG_HOLD_MS || performance.now() - this.lastBusyAt > LONG_HOLD_WAIT_EVERY_MS;
    try {
      const done = mayWait ? attempt() : this.withoutWaiting(attempt);
      if (!done && mayWait) this.lastBusyAt = performance.now();
      return done;
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (mayWait) this.lastBusyAt = performance.now();
      return undefined;
    }
  }
}
