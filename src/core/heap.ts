/**
 * A heap budget for the long-running servers (the gateway, `hermes api serve`). Left to itself, V8
 * sizes its heap from the machine's memory (gigabytes) and lets garbage pile up to a large fraction
 * of it before collecting: a server's resident memory then climbs for thousands of requests although
 * what it keeps alive stays flat. A cap on the old generation and a small young generation make V8
 * collect early, so resident memory levels off after warm-up. The flags only work at start-up: the
 * process replaces itself (same pid, same stdio) with one that has them.
 */

/** The young generation's semi-space under a heap budget, in MB (V8 grows it up to 64 MB otherwise). */
export const SERVER_SEMI_SPACE_MB = 8;

/** Set in the relaunched process: never relaunch twice. */
const RELAUNCHED_ENV = "HERMES_HEAP_BUDGET_APPLIED";

/**
 * The V8 flags that put a process under `maxHeapMb`; none when the budget is off (0), when the
 * process was already started with it, or when the user chose their own heap size (a
 * `--max-old-space-size` on the command line or in NODE_OPTIONS wins).
 */
export function heapBudgetFlags(
  maxHeapMb: number,
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): string[] {
  if (!(maxHeapMb > 0) || env[RELAUNCHED_ENV]) return [];
  const chosen = [...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)];
  if (chosen.some((a) => /^--max[-_]old[-_]space[-_]size\b/.test(a))) return [];
  const flags = [`--max-old-space-size=${Math.round(maxHeapMb)}`];
  if (!chosen.some((a) => /^--max[-_]semi[-_]space[-_]size\b/.test(a)))
    flags.push(`--max-semi-space-size=${SERVER_SEMI_SPACE_MB}`);
  return flags;
}

/**
 * Replaces this process with the same command under a heap budget (see `heapBudgetFlags`). Returns
 * only when nothing needs doing or the platform cannot replace a process (Windows, an old Node):
 * then the server runs with V8's own sizing.
 */
export function relaunchUnderHeapBudget(maxHeapMb: number): void {
  const flags = heapBudgetFlags(maxHeapMb, process.execArgv, process.env);
  if (flags.length === 0 || typeof process.execve !== "function" || process.platform === "win32") return;
  const argv = [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)];
  try {
    process.execve(process.execPath, argv, { ...process.env, [RELAUNCHED_ENV]: "1" });
  } catch {
    // Not replaceable here (a sandbox refusing exec): run with V8's own sizing.
  }
}
