import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileLockError, lockFile, tryLockFile } from "../../src/core/file-lock.js";
import { holdLockInAnotherProcess } from "../support/lock-holder.js";
import { tempDir } from "../support/temp.js";

describe("file locks held by another process", () => {
  it("tryLockFile never waits: nothing while held, the lock once it is free", async () => {
    const lock = join(tempDir("hermes-lock-"), "auth.json.lock");
    const holder = await holdLockInAnotherProcess(lock);
    expect(tryLockFile(lock)).toBeUndefined();
    await holder.release();
    const release = tryLockFile(lock);
    expect(release).toBeDefined();
    release!();
    expect(existsSync(lock)).toBe(false);
  });

  it("lockFile waits on timers: a timer set after it started fires before it settles", async () => {
    const lock = join(tempDir("hermes-lock-"), "memory.lock");
    const holder = await holdLockInAnotherProcess(lock);
    const order: string[] = [];
    const taken = lockFile(lock, { timeoutMs: 30_000 }).then((release) => {
      order.push("taken");
      release();
    });
    holder.releaseFromTimer(order);
    await taken;
    expect(order).toEqual(["timer", "taken"]);
  });

  it("lockFile rejects with FileLockError when the holder keeps it past the timeout", async () => {
    const lock = join(tempDir("hermes-lock-"), "held.lock");
    const holder = await holdLockInAnotherProcess(lock);
    try {
      await expect(lockFile(lock, { timeoutMs: 50 })).rejects.toBeInstanceOf(FileLockError);
    } finally {
      await holder.release();
    }
  });
});
