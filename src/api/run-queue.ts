/**
 * Slots for runs: at most `max` at once; past that, requests wait in a bounded first-in-first-out
 * queue for up to `timeoutMs` before they are refused with 429. A burst of clients (the SDKs
 * retry a 429 all at once) is thus served in turn instead of being sent away, and the 429 that
 * does go out carries a jittered wait so the retries spread out.
 */
import { ApiError } from "./http.js";

export interface RunQueueOptions {
  /** Runs at once. */
  max: number;
  /** How long a request may wait for a slot (ms); 0: refuse at once when all are taken. */
  timeoutMs: number;
  /** Requests that may wait at once; more are refused at once. */
  maxQueued: number;
}

interface Waiter {
  grant(): void;
  refuse(error: ApiError): void;
}

/** A slot taken: give it back exactly once when the run is over. */
export type Release = () => void;

/** Shortest and longest wait a 429 asks for (ms): jittered, so refused clients do not return together. */
const RETRY_MIN_MS = 1_000;
const RETRY_SPREAD_MS = 2_000;

/** `retry-after` (whole seconds, as HTTP has it) and `retry-after-ms` (the SDKs' finer form) for `ms`. */
export function retryAfterHeaders(ms: number): Record<string, string> {
  const wait = Math.max(1, Math.round(ms));
  return { "retry-after": String(Math.ceil(wait / 1000)), "retry-after-ms": String(wait) };
}

export const jitteredRetryMs = (): number => RETRY_MIN_MS + Math.random() * RETRY_SPREAD_MS;

export class RunQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private closedWith: ApiError | undefined;

  constructor(private readonly o: RunQueueOptions) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with the release of a slot once one is free, in arrival order. Rejects with ApiError:
   * 429 after the queue timeout or when the queue is full, 503 once closed, and with the signal's
   * reason when it aborts first (the client left while waiting).
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (this.running < this.o.max && this.waiting.length === 0) return Promise.resolve(this.take());
    if (this.o.timeoutMs <= 0 || this.waiting.length >= this.o.maxQueued)
      return Promise.reject(this.busy(this.o.timeoutMs <= 0 ? "now" : "queue_full"));
    const { promise, resolve, reject } = Promise.withResolvers<Release>();
    const leave = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      const at = this.waiting.indexOf(waiter);
      if (at >= 0) this.waiting.splice(at, 1);
    };
    const waiter: Waiter = {
      grant: () => {
        leave();
        resolve(this.take());
      },
      refuse: (error) => {
        leave();
        reject(error);
      },
    };
    const onAbort = (): void => waiter.refuse(signal?.reason as ApiError);
    const timer = setTimeout(() => waiter.refuse(this.busy("timeout")), this.o.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.waiting.push(waiter);
    return promise;
  }

  /** Refuses every waiting request and every later one with `error` (shutdown). */
  close(error: ApiError): void {
    this.closedWith = error;
    for (const waiter of [...this.waiting]) waiter.refuse(error);
  }

  private take(): Release {
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.waiting[0]?.grant();
    };
  }

  private busy(why: "now" | "queue_full" | "timeout"): ApiError {
    const detail =
      why === "timeout"
        ? `no run slot freed within ${Math.round(this.o.timeoutMs / 100) / 10} s`
        : why === "queue_full"
          ? `${this.o.maxQueued} requests are already waiting`
          : "all of them are busy";
    return new ApiError(
      429,
      `Too many runs in flight (at most ${this.o.max}; ${detail}); retry shortly`,
      "rate_limit_error",
      "too_many_runs",
      null,
      retryAfterHeaders(jitteredRetryMs()),
    );
  }
}
