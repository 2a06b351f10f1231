import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { findOrphans, reapOrphans } from "../../src/tools/process/reap.js";
import { getProcessRegistry, shutdownProcessRegistry } from "../../src/tools/process/registry.js";
import { startTsChild } from "../support/child.js";
import { tempDir } from "../support/temp.js";
import { isAlive } from "./helpers.js";

/**
 * A Hermes process killed outright (SIGKILL) cannot end its background processes: the next Hermes
 * to start ends them, except those started to survive it (nohup).
 */

interface Started {
  id: string;
  pid: number;
}

const leftovers: number[] = [];
const homes: string[] = [];

afterEach(async () => {
  for (const home of homes.splice(0)) await shutdownProcessRegistry(home);
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** A child Hermes-like process that starts background processes in `home`, then is SIGKILLed. */
async function killedOwner(home: string): Promise<{ plain: Started; kept: Started; user: Started }> {
  let resolveLine!: (line: string) => void;
  const line = new Promise<string>((r) => {
    resolveLine = r;
  });
  const { child, done } = startTsChild("orphan-starter.mjs", [home], resolveLine);
  const started = await Promise.race([
    line,
    done.then((r) => Promise.reject(new Error(`starter exited: ${r.code} ${r.stderr}`))),
  ]);
  const views = JSON.parse(started) as { plain: Started; kept: Started; user: Started };
  leftovers.push(views.plain.pid, views.kept.pid, views.user.pid);
  // While its Hermes runs, nothing of it is an orphan.
  expect(findOrphans(home)).toEqual([]);
  child.kill("SIGKILL");
  await done;
  return views;
}

const statusOf = (home: string, id: string): unknown => {
  const file = JSON.parse(readFileSync(join(home, "processes.json"), "utf8")) as {
    processes: Array<{ id: string; status: string }>;
  };
  return file.processes.find((p) => p.id === id)?.status;
};

describe("orphaned background processes", () => {
  it("are ended by the next Hermes, whoever owned them, unless started with nohup", async () => {
    const home = tempDir("hermes-orphans-");
    homes.push(home);
    const { plain, kept, user } = await killedOwner(home);
    // Left to themselves, they run on after their Hermes died.
    expect([plain, kept, user].map((p) => isAlive(p.pid))).toEqual([true, true, true]);
    expect(
      findOrphans(home)
        .map((r) => r.id)
        .sort(),
    ).toEqual([plain.id, user.id].sort());

    const reaped = await reapOrphans(home);
    expect(reaped.map((r) => r.id).sort()).toEqual([plain.id, user.id].sort());
    await vi.waitFor(() => expect([isAlive(plain.pid), isAlive(user.pid)]).toEqual([false, false]), {
      timeout: 10_000,
      interval: 50,
    });
    expect(isAlive(kept.pid)).toBe(true);
    expect([statusOf(home, plain.id), statusOf(home, user.id), statusOf(home, kept.id)]).toEqual([
      "killed",
      "killed",
      "running",
    ]);
    // A second start finds nothing left to do.
    expect(await reapOrphans(home)).toEqual([]);
  }, 60_000);

  it("leaves alone a record whose process cannot be told apart from a recycled pid", async () => {
    const home = tempDir("hermes-orphans-");
    const sleeper = spawn("sleep", ["1000"], { detached: true, stdio: "ignore" });
    leftovers.push(sleeper.pid!);
    // Its owner is gone (the pid of a process that has exited), but the record has no start time.
    const gone = spawnSync("true").pid;
    const record = {
      id: "proc_0123456789ab",
      pid: sleeper.pid,
      command: "sleep 1000",
      cwd: home,
      started: new Date().toISOString(),
      status: "running",
      exit_code: null,
      log_path: join(home, "x.log"),
      pty: false,
      detached: false,
      owner_pid: gone,
    };
    writeFileSync(join(home, "processes.json"), JSON.stringify({ processes: [record] }));
    expect(await reapOrphans(home)).toEqual([]);
    expect(isAlive(sleeper.pid!)).toBe(true);
  });

  it("leaves alone the processes of a Hermes that still runs (this one)", async () => {
    const home = tempDir("hermes-orphans-");
    homes.push(home);
    const spec = {
      shell: "/bin/sh",
      prelude: "",
      cwd: home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    };
    const view = await getProcessRegistry(home).start({
      command: "sleep 1000",
      spec,
      pty: false,
      notifyOnComplete: false,
      watchPatterns: [],
    });
    leftovers.push(view.pid);
    expect(await reapOrphans(home)).toEqual([]);
    expect(isAlive(view.pid)).toBe(true);
  });
});
