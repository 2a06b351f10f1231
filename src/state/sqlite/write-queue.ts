import type { ChatMessage } from "../../llm/types.js";
import type { SessionRecord, UnwrittenWrite, WriteEvent } from "../store.js";

/**
 * Writes of this process that found state.db's write lock held by another process. They wait here,
 * in the order they were made, and are retried on timers with backoff; a write made while any wait
 * goes behind them, so nothing is ever stored out of order. Only "busy" failures wait: any other
 * error drops that write (retrying could not help) and is reported.
 *
 * Two kinds wait: conversation writes (fire and forget: their session's watchers hear what becomes
 * of them) and durable writes (a caller awaits them: settled when written or failed, and taken out
 * of the queue, unwritten, once their deadline passes).
 */

interface BaseWrite {
  /** Runs inside a transaction; re-run whole after a busy failure. */
  run: () => void;
  queuedAt: number;
}

/** A conversation write: its session's watchers hear when it waits, is written or is lost. */
export interface SessionWrite extends BaseWrite {
  kind: "session";
  sessionId: string;
  what: UnwrittenWrite["what"];
  /** Messages it appends, so reads of the session can account for them while they wait. */
  messages?: readonly ChatMessage[];
  createdAt?: number;
  /** The row it creates, so the session can be read while it waits. */
  session?: SessionRecord;
}

/** A write whose caller awaits it. */
export interface DurableWrite extends BaseWrite {
  kind: "durable";
  /** The session it is about, if any: it keeps its place among that session's writes. */
  sessionId?: string;
  /** Epoch ms after which it gives up (unwritten). */
  deadline: number;
  /** Called once: with nothing when written, with the error when it failed or expired. */
  settle: (err?: Error) => void;
  /** The error it settles with when its deadline passes. */
  expired: () => Error;
}

export type QueuedWrite = SessionWrite | DurableWrite;

export type WriteListener = (e: WriteEvent) => void;

/** SQLITE_BUSY or SQLITE_LOCKED (any extended code): another connection holds a lock. */
export function isBusy(err: unknown): boolean {
  const code = ((err as { errcode?: number } | null)?.errcode ?? 0) & 0xff;
  return code === 5 || code === 6;
}

const RETRY_FIRST_MS = 10;
const RETRY_MAX_MS = 1_000;

export class WriteQueue {
  private readonly queue: QueuedWrite[] = [];
  private readonly listeners = new Map<string, Set<WriteListener>>();
  /** Conversation writes of a session done from the queue since it last emptied for that session. */
  private readonly caughtUp = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private backoff = RETRY_FIRST_MS;
  private closed = false;

  /** `attempt` runs a write in a transaction and throws what SQLite threw. */
  constructor(
    private readonly attempt: (run: () => void) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes waiting, of one session or of all. */
  pending(sessionId?: string): number {
    if (sessionId === undefined) return this.queue.length;
    let n = 0;
    for (const w of this.queue) if (w.sessionId === sessionId) n++;
    return n;
  }

  /** How long the oldest waiting write has waited (ms); 0 when none waits. */
  oldestAge(): number {
    const head = this.queue[0];
    return head ? Date.now() - head.queuedAt : 0;
  }

  /** The conversation writes of a session still waiting, oldest first. */
  waitingFor(sessionId: string): SessionWrite[] {
    return this.queue.filter((w): w is SessionWrite => w.kind === "session" && w.sessionId === sessionId);
  }

  /** Queues a write that just failed as busy (or came while others wait) and arms the retry timer. */
  push(write: QueuedWrite): void {
    if (this.closed) {
      if (write.kind === "durable") write.settle(write.expired());
      return;
    }
    this.queue.push(write);
    this.schedule();
  }

  /** Writes what waits, in order, until the lock is busy again. Returns true when nothing waits. */
  drainNow(): boolean {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      try {
        this.attempt(head.run);
      } catch (err) {
        if (isBusy(err)) {
          this.expire();
          return this.queue.length === 0;
        }
        this.queue.shift();
        if (head.kind === "durable") head.settle(err as Error);
        else {
          this.emit(head.sessionId, {
            type: "dropped",
            sessionId: head.sessionId,
            what: head.what,
            reason: (err as Error).message,
          });
        }
        this.settle(head.sessionId);
        continue;
      }
      this.queue.shift();
      if (head.kind === "durable") head.settle();
      else this.caughtUp.set(head.sessionId, (this.caughtUp.get(head.sessionId) ?? 0) + 1);
      this.settle(head.sessionId);
    }
    this.backoff = RETRY_FIRST_MS;
    return true;
  }

  /** Resolves with what still waits once the queue is empty or `timeoutMs` has passed. Never blocks. */
  async flush(timeoutMs: number): Promise<number> {
    const deadline = this.now() + timeoutMs;
    let pause = RETRY_FIRST_MS;
    while (!this.closed && !this.drainNow() && this.now() < deadline) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(pause, Math.max(1, deadline - this.now()))),
      );
      pause = Math.min(pause * 2, RETRY_MAX_MS);
    }
    return this.queue.length;
  }

  /** Tells `listener` what happens to the queued writes of `sessionId`; returns the unsubscribe. */
  watch(sessionId: string, listener: WriteListener): () => void {
    let set = this.listeners.get(sessionId);
    if (!set) {
      set = new Set();
      this.listeners.set(sessionId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(sessionId) === set) this.listeners.delete(sessionId);
    };
  }

  /**
   * Gives up: stops retrying, settles waiting durable writes with `closedError`, reports each
   * session's unwritten conversation writes and returns them.
   */
  abandon(closedError: () => Error): SessionWrite[] {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const left = this.queue.splice(0);
    const counts = new Map<string, number>();
    const unwritten: SessionWrite[] = [];
    for (const w of left) {
      if (w.kind === "durable") {
        w.settle(closedError());
        continue;
      }
      unwritten.push(w);
      counts.set(w.sessionId, (counts.get(w.sessionId) ?? 0) + 1);
    }
    for (const [sessionId, count] of counts) this.emit(sessionId, { type: "abandoned", sessionId, count });
    return unwritten;
  }

  /** Durable writes past their deadline leave the queue unwritten; their callers hear it. */
  private expire(): void {
    const now = this.now();
    for (let i = 0; i < this.queue.length; i++) {
      const w = this.queue[i]!;
      if (w.kind !== "durable" || w.deadline > now) continue;
      this.queue.splice(i--, 1);
      w.settle(w.expired());
      if (w.sessionId !== undefined) this.settle(w.sessionId);
    }
  }

  private schedule(): void {
    if (this.timer || this.closed || this.queue.length === 0) return;
    let delay = this.backoff * (0.5 + Math.random());
    this.backoff = Math.min(this.backoff * 2, RETRY_MAX_MS);
    // A durable write hears of its deadline on time, not at the next backoff step.
    for (const w of this.queue) if (w.kind === "durable") delay = Math.min(delay, w.deadline - this.now());
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.drainNow()) return;
        this.reportWaiting();
        this.schedule();
      },
      Math.max(1, delay),
    );
  }

  /** Each session with conversation writes still waiting hears how many and for how long. */
  private reportWaiting(): void {
    const now = this.now();
    const oldest = new Map<string, { since: number; count: number }>();
    for (const w of this.queue) {
      if (w.kind !== "session") continue;
      const seen = oldest.get(w.sessionId);
      if (seen) seen.count++;
      else oldest.set(w.sessionId, { since: w.queuedAt, count: 1 });
    }
    for (const [sessionId, { since, count }] of oldest) {
      this.emit(sessionId, { type: "waiting", sessionId, pending: count, waitedMs: now - since });
    }
  }

  /** When the last waiting write of a session is done, its watchers hear it is caught up. */
  private settle(sessionId: string | undefined): void {
    if (sessionId === undefined || this.queue.some((w) => w.sessionId === sessionId)) return;
    const count = this.caughtUp.get(sessionId) ?? 0;
    this.caughtUp.delete(sessionId);
    this.emit(sessionId, { type: "written", sessionId, count });
  }

  private emit(sessionId: string, e: WriteEvent): void {
    for (const listener of [...(this.listeners.get(sessionId) ?? [])]) {
      try {
        listener(e);
      } catch {
        // A listener's failure is its own; the queue goes on.
      }
    }
  }
}
