import { readdirSync, readlinkSync } from "node:fs";

/**
 * Finding the processes that still hold a command's output open. A child that called setsid() has
 * left the command's process group, so a group kill misses it, and once its parent exits it is
 * re-parented too; the one thing it still shares with the command is the stdout/stderr it
 * inherited. Linux only (/proc); elsewhere nothing is found and only the group kill applies.
 */

/**
 * The ids (`socket:[inode]` or `pipe:[inode]`) of a live process's stdout and stderr, read right
 * after spawn. The Hermes end of each pair has a different inode, so Hermes never matches them.
 */
export function outputEnds(pid: number | undefined): string[] {
  if (pid === undefined) return [];
  const ends = new Set<string>();
  for (const fd of [1, 2]) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith("socket:[") || target.startsWith("pipe:[")) ends.add(target);
    } catch {
      // no /proc, or the process is already gone
    }
  }
  return [...ends];
}

/** Pids of the processes that have one of `ends` open (other users' processes cannot be read). */
export function holdersOf(ends: readonly string[]): number[] {
  if (ends.length === 0) return [];
  const wanted = new Set(ends);
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (wanted.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) {
          found.push(pid);
          break;
        }
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return found;
}

/**
 * Kills the holders of `ends` until `closed` settles (the last holder is gone) or `limitMs` has
 * passed, scanning again meanwhile: a process caught mid-exec may not show its fds in one scan.
 */
export async function killHolders(
  ends: readonly string[],
  closed: Promise<void>,
  limitMs: number,
): Promise<void> {
  if (ends.length === 0) return;
  let done = false;
  void closed.then(() => {
    done = true;
  });
  const deadline = Date.now() + limitMs;
  while (!done && Date.now() < deadline) {
    signalHolders(ends, "SIGKILL");
    await Promise.race([closed, new Promise((r) => setTimeout(r, 50).unref())]);
  }
}

/** Signals every process holding one of `ends`; returns their pids. Never throws. */
export function signalHolders(ends: readonly string[], signal: NodeJS.Signals): number[] {
  const pids = holdersOf(ends);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
