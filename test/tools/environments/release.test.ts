import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_CONFIG } from "../../../src/core/config-defaults.js";
import { createDockerProvider } from "../../../src/tools/environments/docker.js";
import { createEnvironmentProvider } from "../../../src/tools/environments/factory.js";
import type { EnvironmentProvider } from "../../../src/tools/environments/types.js";
import { isAlive } from "../helpers.js";
import { fakeDockerSettings, installFakeDocker } from "./backends.js";

/**
 * `release(taskId)`: a finished conversation or subagent gives its environment back at once
 * instead of at exit. Every temp dir made here goes under a private TMPDIR (this file runs in a
 * process of its own), so counting its entries counts exactly what the providers left behind.
 */

const opts = { timeoutMs: 20_000 };
const savedTmp = process.env.TMPDIR;
let tempRoot: string;
let work: string;

beforeAll(async () => {
  tempRoot = await realpath(await mkdtemp(join(tmpdir(), "hermes-release-tmp-")));
  work = await realpath(await mkdtemp(join(tmpdir(), "hermes-release-work-")));
  process.env.TMPDIR = tempRoot;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(tempRoot, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

describe("release (local backend, through the factory)", () => {
  let provider: EnvironmentProvider;
  beforeEach(() => {
    const config = structuredClone(DEFAULT_CONFIG);
    provider = createEnvironmentProvider(config, { home: join(work, "home"), cwd: work, userHome: work });
  });
  afterEach(async () => {
    await provider.disposeAll();
  });

  it("leaves no temp directory behind after 100 environments come and go", async () => {
    const before = await readdir(tempRoot);
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const id = `conversation-${batch * 10 + i}`;
          const env = provider.get(id);
          const r = await env.run(`export N=${i}; cd /; echo "$N"`, opts);
          expect(r.output).toBe(`${i}\n`);
          // A subagent's environment too, released before its parent's.
          const kid = provider.fork(id, `${id}/child`);
          expect((await kid.run('echo "$N $PWD"', opts)).output).toBe(`${i} /\n`);
          await provider.release(`${id}/child`);
          await provider.release(id);
        }),
      );
    }
    const after = await readdir(tempRoot);
    console.log(`temp entries before: ${before.length}, after 100 environments released: ${after.length}`);
    expect(after).toEqual(before);
  });

  it("kills what the task's commands left holding their output, also outside their group", async () => {
    const env = provider.get("t");
    const pids = join(work, "pids");
    // Both hold the command's output; the second has left its process group and session.
    await env.run(`sleep 300 & echo $! > ${pids}; setsid sleep 301 & echo $! >> ${pids}`, opts);
    // A nohup'ed server with its output redirected is the user's to keep.
    const kept = join(work, "kept");
    await env.run(`nohup sleep 302 > /dev/null 2>&1 & echo $! > ${kept}`, opts);
    const leftovers = (await readFile(pids, "utf8")).trim().split("\n").map(Number);
    const nohup = Number((await readFile(kept, "utf8")).trim());
    try {
      expect([...leftovers, nohup].every(isAlive)).toBe(true);
      await provider.release("t");
      await vi.waitFor(() => expect(leftovers.filter(isAlive)).toEqual([]), { timeout: 5_000, interval: 50 });
      expect(isAlive(nohup)).toBe(true);
    } finally {
      for (const pid of [...leftovers, nohup]) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("is a no-op for an unknown task id, and never rejects", async () => {
    await expect(provider.release("never-used")).resolves.toBeUndefined();
  });
});

describe("release (docker backend, stand-in CLI)", () => {
  it("removes the task's container and its state; 20 tasks leave nothing behind", async () => {
    const state = join(work, "docker-state");
    await mkdir(state, { recursive: true });
    await installFakeDocker(state);
    const provider = createDockerProvider(fakeDockerSettings(state));
    const containers = async () => (await readdir(state)).filter((n) => n.startsWith("hermes-"));
    const before = await readdir(tempRoot);
    for (let i = 0; i < 20; i++) {
      const env = provider.get(`task-${i}`);
      expect((await env.run("export X=1; echo $X", opts)).output).toBe("1\n");
      expect(await containers()).toHaveLength(1);
      await provider.release(`task-${i}`);
      expect(await containers()).toEqual([]);
    }
    expect(await readdir(tempRoot)).toEqual(before);
    await provider.disposeAll();
  });
});
