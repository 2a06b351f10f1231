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

/** The longest time the event loop went without running a 10 ms interval's tick, beyond the 10 ms. */
export function loopLag(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return worst;
    },
  };
}
