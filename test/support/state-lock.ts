import { startTsChild } from "./child.js";

/** Another process (state-writer.mjs) holding state.db's write lock until `release()`. */
export interface LockHolder {
  /** Commits and lets the holder exit; resolves once it has (idempotent). */
  release(): Promise<void>;
}

/** Takes `path`'s write lock from a second process; resolves once it is held. */
export async function holdStateLock(path: string): Promise<LockHolder> {
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const { child, done } = startTsChild("state-writer.mjs", ["hold-until-told", path], (line) => {
    if (line === "locked") locked();
  });
  const exited = done.then((r) => Promise.reject(new Error(`the lock holder exited early: ${r.stderr}`)));
  exited.catch(() => {
    // Reported by the race below when it comes first; a normal exit after release is expected.
  });
  await Promise.race([isLocked, exited]);
  let released: Promise<void> | undefined;
  return {
    release: () => {
      released ??= (async () => {
        child.stdin!.end("go\n");
        const run = await done;
        if (!run.stdout.includes("released"))
          throw new Error(`the lock holder did not release: ${run.stderr}`);
      })();
      return released;
    },
  };
}

/**
 * Counts the turns of the event loop until `work` settles (a 1 ms timer re-armed each time it
 * fires). A wait that holds the loop (a synchronous busy timeout) lets none run; a queued write
 * that retries on timers lets many. Asserted as a count, never as a duration.
 */
export async function loopTurnsWhile(work: Promise<unknown>): Promise<number> {
  let turns = 0;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    if (settled) return;
    turns++;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  try {
    await work;
  } catch {
    // The caller looks at the outcome itself.
  } finally {
    settled = true;
    clearTimeout(timer);
  }
  return turns;
}
