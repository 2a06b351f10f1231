/**
 * Startup phase timing, printed to stderr when HERMES_TIMING=1. Costs one branch per mark otherwise.
 */
const enabled = process.env.HERMES_TIMING === "1";
const marks: Array<[string, number]> = [];

export function mark(phase: string): void {
  if (enabled) marks.push([phase, performance.now()]);
}

export function timingEnabled(): boolean {
  return enabled;
}

/** Prints the phases recorded so far as a table on stderr. */
export function reportTiming(): void {
  if (!enabled || marks.length === 0) return;
  let prev = 0;
  const lines = ["[timing] phase                          ms since process start, +delta"];
  for (const [phase, at] of marks) {
    lines.push(`[timing] ${phase.padEnd(30)} ${at.toFixed(1).padStart(7)}  +${(at - prev).toFixed(1)}`);
    prev = at;
  }
  process.stderr.write(`${lines.join("\n")}\n`);
}
