/**
 * Startup phase timing, printed to stderr when HERMES_TIMING=1: milliseconds since the process
 * started and the resident memory at each phase. Costs one branch per mark otherwise.
 */
const enabled = process.env.HERMES_TIMING === "1";
const marks: Array<[string, number, number]> = [];

export function mark(phase: string): void {
  if (enabled) marks.push([phase, performance.now(), process.memoryUsage.rss()]);
}

/** Records `phase` the first time only (phases of the first request, in a process that makes many). */
export function markOnce(phase: string): void {
  if (enabled && !marks.some(([p]) => p === phase)) mark(phase);
}

export function timingEnabled(): boolean {
  return enabled;
}

/** Prints the phases recorded so far as a table on stderr. */
export function reportTiming(): void {
  if (!enabled || marks.length === 0) return;
  let prev = 0;
  const lines = ["[timing] phase                          ms since process start, +delta   RSS MB"];
  for (const [phase, at, rss] of marks) {
    const delta = `+${(at - prev).toFixed(1)}`.padEnd(8);
    lines.push(
      `[timing] ${phase.padEnd(30)} ${at.toFixed(1).padStart(7)}  ${delta} ${(rss / 1048576).toFixed(1).padStart(6)}`,
    );
    prev = at;
  }
  process.stderr.write(`${lines.join("\n")}\n`);
}
