/**
 * `Idempotency-Key`: a request retried with the same key (by the same caller) gets the first
 * attempt's answer instead of running the agent again. The first attempt claims the key in
 * state.db; a retry that arrives while it still runs waits for it (the SDKs would retry a 409 on
 * their own short schedule, far shorter than an agent run), then replays its answer. An answer is
 * kept when it is final: a success or a 4xx the request itself caused. A 5xx, a 429 or a run the
 * client left is released, so the retry runs. A key reused with another body is refused (422).
 *
 * An answer that was produced but could not be stored (state.db locked) is parked in this
 * process's memory under its key: the retry stores it and gets it, rather than running again.
 */
import { createHash } from "node:crypto";
import { IDEMPOTENCY_TTL_MS, type IdempotencyStore, type IdempotentResponse } from "../state/idempotency.js";
import { StateStoreError } from "../state/store.js";
import type { RouteContext, RouteRequest } from "./context.js";
import { ApiError } from "./http.js";
import { MemoryIdempotencyStore } from "./idempotency-memory.js";
import { jitteredRetryMs, retryAfterHeaders } from "./run-queue.js";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Says an answer is a replay of the first attempt's (as Stripe's API does). */
export const REPLAYED_HEADER = "idempotent-replayed";

/** What a request answered, kept for its retries: the body is the JSON a non-streamed request gets. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The session the run was stored in (the record goes with it when it is deleted). */
  sessionId?: string;
}

/** An answer produced but not stored: `store` tries again (throwing ApiError while it cannot). */
export interface ParkedAnswer {
  answer: Answer;
  store: () => Promise<void>;
}

interface Parked extends ParkedAnswer {
  fingerprint: string;
  parkedAt: number;
  /** The retry storing it now: a second retry waits for the same attempt. */
  storing?: Promise<void>;
}

/** Parked answers kept at most; the oldest go first past it. */
const MAX_PARKED = 256;

const MAX_KEY_CHARS = 255;
/** How often a retry looks again at a key another process is running (ms, doubling up to the max). */
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 2_000;

/** Statuses a retry must not be given again: the attempt did not count. */
const kept = (status: number): boolean =>
  status < 500 && status !== 408 && status !== 409 && status !== 429 && status !== 499;

/** The key of a request (trimmed), or undefined. Throws 400 for an empty or over-long one. */
export function idempotencyKeyOf(r: RouteRequest): string | undefined {
  const raw = r.req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "";
  if (!key || key.length > MAX_KEY_CHARS)
    throw new ApiError(
      400,
      `The Idempotency-Key header must be 1 to ${MAX_KEY_CHARS} characters`,
      "invalid_request_error",
      "invalid_idempotency_key",
    );
  return key;
}

/** What identifies the request under a key: its path and body bytes. */
const fingerprintOf = (r: RouteRequest): string =>
  createHash("sha256").update(r.url.pathname).update("\u0000").update(r.raw).digest("hex");

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

const toStored = (a: Answer): IdempotentResponse => ({
  status: a.status,
  headers: a.headers,
  body: JSON.stringify(a.body),
});

const fromStored = (s: IdempotentResponse): Answer => ({
  status: s.status,
  headers: { ...s.headers, [REPLAYED_HEADER]: "true" },
  body: JSON.parse(s.body) as unknown,
});

/** Keys claimed and runs waited for, over state.db's records (in memory when it is unavailable). */
export class IdempotencyGate {
  /** Attempts of this process still running, by caller and key: retries wait on them directly. */
  private readonly running = new Map<string, Promise<void>>();
  /** Answers that could not be stored, by caller and key. */
  private readonly parked = new Map<string, Parked>();
  private fallback: MemoryIdempotencyStore | undefined;

  constructor(private readonly ctx: Pick<RouteContext, "runtime" | "log">) {}

  private store(): IdempotencyStore {
    const store = this.ctx.runtime.sessions?.idempotency;
    if (store) return store;
    this.fallback ??= new MemoryIdempotencyStore();
    return this.fallback;
  }

  /**
   * Runs `attempt` for a request, or replays the answer an earlier attempt with the same key gave.
   * `attempt` sends its own answer and returns it (undefined: nothing to keep, the client left);
   * an ApiError it throws is kept (when final) and thrown on for the server to send.
   */
  async run(
    r: RouteRequest,
    attempt: () => Promise<Answer | undefined>,
    replay: (answer: Answer) => void,
  ): Promise<void> {
    const key = idempotencyKeyOf(r);
    if (key === undefined) {
      await attempt();
      return;
    }
    const fingerprint = fingerprintOf(r);
    const id = `${r.caller}\u0000${key}`;
    const left = new AbortController();
    const onClose = (): void => left.abort();
    r.res.once("close", onClose);
    const gone = new Promise<void>((resolve) =>
      left.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    let pollMs = POLL_FIRST_MS;
    try {
      for (;;) {
        const parked = this.parkedFor(id);
        if (parked) {
          await this.storeParked(r.caller, key, id, parked, fingerprint);
          replay(fromStored(toStored(parked.answer)));
          return;
        }
        const claim = await this.claim(r.caller, key, fingerprint);
        switch (claim.outcome) {
          case "claimed":
            await this.attemptClaimed(r.caller, key, id, attempt);
            return;
          case "done":
            replay(fromStored(claim.record.response));
            return;
          case "mismatch":
            throw reused();
          case "running": {
            // An attempt of this process: woken when it settles. Another process's: looked at again.
            const local = this.running.get(id);
            if (local) await Promise.race([local, gone]);
            else {
              await sleep(pollMs, left.signal);
              pollMs = Math.min(pollMs * 2, POLL_MAX_MS);
            }
            if (left.signal.aborted) return;
          }
        }
      }
    } finally {
      r.res.off("close", onClose);
    }
  }

  /**
   * Keeps an answer that could not be stored under the request's Idempotency-Key (none: nothing is
   * kept), for the retry to store and receive.
   */
  park(r: RouteRequest, answer: ParkedAnswer): void {
    const key = idempotencyKeyOf(r);
    if (key === undefined) return;
    const id = `${r.caller}\u0000${key}`;
    this.parked.delete(id);
    this.parked.set(id, { ...answer, fingerprint: fingerprintOf(r), parkedAt: Date.now() });
    if (this.parked.size > MAX_PARKED) this.parked.delete(this.parked.keys().next().value as string);
  }

  private parkedFor(id: string): Parked | undefined {
    const parked = this.parked.get(id);
    if (parked && Date.now() - parked.parkedAt > IDEMPOTENCY_TTL_MS) this.parked.delete(id);
    return this.parked.get(id);
  }

  /**
   * Stores a parked answer (once, however many retries ask at the same time) and records it as the
   * key's final answer. Throws 422 for another body under the key, and the store's ApiError while
   * it still cannot store.
   */
  private async storeParked(
    callerId: string,
    key: string,
    id: string,
    parked: Parked,
    fingerprint: string,
  ): Promise<void> {
    if (parked.fingerprint !== fingerprint) throw reused();
    parked.storing ??= parked.store().finally(() => {
      parked.storing = undefined;
    });
    await parked.storing;
    if (this.parked.get(id) !== parked) return;
    this.parked.delete(id);
    // The first attempt's claim may still be held (its release could not be written either).
    try {
      await this.store().claim(callerId, key, { fingerprint });
    } catch (err) {
      this.ctx.log("warn", "idempotency record not written", { key, message: (err as Error).message });
    }
    await this.settle(callerId, key, parked.answer);
  }

  private async claim(callerId: string, key: string, fingerprint: string) {
    try {
      return await this.store().claim(callerId, key, { fingerprint });
    } catch (err) {
      if (!(err instanceof StateStoreError)) throw err;
      // Running without the claim could run the agent twice: the client retries later instead.
      throw new ApiError(
        503,
        `The Idempotency-Key could not be recorded (${err.message}); retry shortly`,
        "service_unavailable",
        "store_busy",
        null,
        retryAfterHeaders(jitteredRetryMs()),
      );
    }
  }

  private async attemptClaimed(
    callerId: string,
    key: string,
    id: string,
    attempt: () => Promise<Answer | undefined>,
  ): Promise<void> {
    const finished = Promise.withResolvers<void>();
    this.running.set(id, finished.promise);
    let answer: Answer | undefined;
    try {
      answer = await attempt();
    } catch (err) {
      if (err instanceof ApiError) answer = { status: err.status, headers: err.headers, body: err.body() };
      throw err;
    } finally {
      await this.settle(callerId, key, answer);
      this.running.delete(id);
      finished.resolve();
    }
  }

  /** Keeps a final answer for the retries; releases the key otherwise. Never throws. */
  private async settle(callerId: string, key: string, answer: Answer | undefined): Promise<void> {
    const store = this.store();
    try {
      if (answer && kept(answer.status))
        await store.complete(callerId, key, toStored(answer), answer.sessionId);
      else await store.release(callerId, key);
    } catch (err) {
      this.ctx.log("warn", "idempotency record not written", { key, message: (err as Error).message });
    }
  }
}

const reused = (): ApiError =>
  new ApiError(
    422,
    "This Idempotency-Key was used with a different request; use a new key for a new request",
    "invalid_request_error",
    "idempotency_key_reused",
  );
