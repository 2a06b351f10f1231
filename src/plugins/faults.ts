/**
 * How often each plugin failed lately: a hook of it that threw, or an error nobody caught that the
 * crash guard traced to it. A plugin that fails `FAULT_LIMIT` times within `FAULT_WINDOW_MS` is
 * broken rather than unlucky, and is turned off for the rest of the process.
 */

export const FAULT_LIMIT = 3;
export const FAULT_WINDOW_MS = 60_000;

export class FaultWindow {
  private readonly times = new Map<string, number[]>();

  constructor(
    private readonly limit = FAULT_LIMIT,
    private readonly windowMs = FAULT_WINDOW_MS,
  ) {}

  /** Counts a failure of `key` at `now`; true when it has reached the limit within the window. */
  record(key: string, now = Date.now()): boolean {
    const recent = (this.times.get(key) ?? []).filter((t) => now - t < this.windowMs);
    recent.push(now);
    this.times.set(key, recent);
    return recent.length >= this.limit;
  }

  /** Why a key that reached the limit is being turned off. */
  reason(last: string): string {
    return `it failed ${this.limit} times within ${this.windowMs / 1000} s (last: ${last})`;
  }
}
