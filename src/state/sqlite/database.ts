import type { DatabaseSync } from "node:sqlite";
import type { Redact } from "../redaction.js";
import { StateStoreError } from "../store.js";
import { openDatabase, type Statements, statementCache } from "./connection.js";
import { isBusy, type SessionWrite, WriteQueue } from "./write-queue.js";

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
    this.queue = new WriteQueue((run) => this.tx(run), options.now);
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
    this.queue.push({ ...info, kind: "session", run: () => void run(), queuedAt: this.now() });
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
        queuedAt: this.now(),
        deadline: this.now() + waitMs,
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

  private runNow<T>(run: () => T): { value: T } | undefined {
    if (this.queue.pending() > 0 && !this.queue.drainNow()) return undefined;
    try {
      return { value: this.tx(run) };
    } catch (err) {
      if (!isBusy(err)) throw err;
      return undefined;
    }
  }
}
