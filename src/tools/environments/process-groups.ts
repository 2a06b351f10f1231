/**
 * Process groups started by Hermes on this machine. Every command runs as the leader of its own
 * group, so one signal reaches it and everything it spawned. Groups still registered when Hermes
 * exits (also through `process.exit`, which skips async clean-up) are killed then.
 */

const live = new Set<number>();
let hooked = false;

/** Signals a whole process group (falling back to the single process). Never throws. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** True while a process group has at least one member. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Kills the group with SIGTERM, then SIGKILL after `graceMs` if anything is left. */
export function terminateGroup(pid: number, graceMs: number): void {
  killGroup(pid, "SIGTERM");
  const timer = setTimeout(() => {
    if (groupAlive(pid)) killGroup(pid, "SIGKILL");
  }, graceMs);
  timer.unref();
}

/** Registers a group to be killed if Hermes exits while it still runs. */
export function trackGroup(pid: number): void {
  live.add(pid);
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const p of live) killGroup(p, "SIGKILL");
    live.clear();
  });
}

export function untrackGroup(pid: number): void {
  live.delete(pid);
}
