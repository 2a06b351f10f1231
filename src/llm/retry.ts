/** Backoff primitives for the agent's retry loop (seed 004 §13). The loop itself lives in agent/. */
import type { ClassifiedError } from "./types.js";

export interface BackoffOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Extra random delay, as a fraction of the exponential delay (0.5 → up to +50%). */
  jitterRatio?: number;
}

/** Retries allowed for `err`: the configured budget, or fewer when the failure says so. */
export function retryBudget(err: Pick<ClassifiedError, "retryLimit">, configured: number): number {
  return err.retryLimit === undefined ? configured : Math.max(0, Math.min(configured, err.retryLimit));
}

/**
 * Delay before retry number `attempt` of `err`: the failure's own short delay when it has one
 * (jittered, never above 1.5× it), else the configured exponential backoff.
 */
export function retryDelay(
  err: Pick<ClassifiedError, "retryDelayMs">,
  attempt: number,
  options: BackoffOptions = {},
): number {
  if (err.retryDelayMs === undefined) return jitteredBackoff(attempt, options);
  return jitteredBackoff(1, {
    baseDelayMs: err.retryDelayMs,
    maxDelayMs: err.retryDelayMs,
    jitterRatio: 0.5,
  });
}

/** Golden-ratio constant: spreads consecutive counter values across the seed space. */
const GOLDEN = 0x9e3779b9;
let tick = 0;

/**
 * Delay before retry number `attempt` (1-based): min(base·2^(attempt-1), max) plus up to
 * jitterRatio of that. The jitter is seeded from the clock and a process-wide counter so concurrent
 * sessions retrying at the same instant still spread out (no thundering herd).
 */
export function jitteredBackoff(attempt: number, options: BackoffOptions = {}): number {
  const { baseDelayMs = 5000, maxDelayMs = 120_000, jitterRatio = 0.5 } = options;
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const delay = Math.min(baseDelayMs * 2 ** Math.min(exponent, 52), maxDelayMs);
  tick = (tick + 1) >>> 0;
  const nowNs = process.hrtime.bigint();
  const seed = (Number(nowNs & 0xffffffffn) ^ Math.imul(tick, GOLDEN)) >>> 0;
  return delay + mulberry32(seed) * jitterRatio * delay;
}

/** One draw of the mulberry32 PRNG: a uniform number in [0, 1) from a 32-bit seed. */
function mulberry32(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/**
 * Waits `ms`. Resolves true when the time elapsed, false as soon as `signal` aborts (or if it
 * already had). Never rejects, so an interrupt during backoff is an ordinary branch.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
