import { afterEach, describe, expect, it, vi } from "vitest";
import { afterFirstModelRequest, noteModelRequest } from "../../src/llm/first-request.js";

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe("work that waits for the first model request", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // One module state per file: the first test runs before any request is noted.
  it("starts after its delay when no request goes out", async () => {
    vi.useFakeTimers();
    const waiting = afterFirstModelRequest(1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });

  it("starts as soon as the first request goes out, and at once for later callers", async () => {
    vi.useFakeTimers();
    const waiting = afterFirstModelRequest(60_000);
    expect(await settled(waiting)).toBe(false);
    noteModelRequest();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(afterFirstModelRequest(60_000))).toBe(true);
  });
});
