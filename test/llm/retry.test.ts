import { describe, expect, it } from "vitest";
import { jitteredBackoff, sleep } from "../../src/llm/retry.js";

describe("jitteredBackoff", () => {
  it("doubles from the base delay and stays within [delay, delay × 1.5]", () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const base = Math.min(5000 * 2 ** (attempt - 1), 120_000);
      for (let i = 0; i < 50; i++) {
        const d = jitteredBackoff(attempt);
        expect(d).toBeGreaterThanOrEqual(base);
        expect(d).toBeLessThanOrEqual(base * 1.5);
      }
    }
  });

  it("caps at maxDelayMs plus jitter, even for huge attempt numbers", () => {
    const d = jitteredBackoff(10_000, { baseDelayMs: 100, maxDelayMs: 1000, jitterRatio: 0.5 });
    expect(d).toBeGreaterThanOrEqual(1000);
    expect(d).toBeLessThanOrEqual(1500);
    expect(jitteredBackoff(3, { baseDelayMs: 100, jitterRatio: 0 })).toBe(400);
  });

  it("decorrelates consecutive calls", () => {
    const values = new Set(Array.from({ length: 20 }, () => jitteredBackoff(1)));
    expect(values.size).toBeGreaterThan(15);
  });
});

describe("sleep", () => {
  it("resolves true when the time elapses", async () => {
    expect(await sleep(5)).toBe(true);
  });

  it("resolves false, not rejects, when aborted", async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    expect(await pending).toBe(false);
    expect(await sleep(60_000, AbortSignal.abort())).toBe(false);
  });
});
