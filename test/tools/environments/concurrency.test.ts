import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { ExecutionEnvironment } from "../../../src/tools/environments/types.js";
import { BACKENDS, providerPerTest } from "./backends.js";

/**
 * Several commands on one environment at once (execute_code threads, parallel tool calls): each
 * starts from what the previous one left, none loses its `cd` or `export`, and reads never wait.
 * Run against the local backend and the remote one (through the stand-in docker CLI).
 */

const opts = { timeoutMs: 20_000 };

describe.each(BACKENDS)("one environment, many callers: %s", (_name, makeProvider) => {
  const t = providerPerTest(makeProvider);

  /** A command that says it started, then waits until the test opens the gate. */
  const gated = (env: ExecutionEnvironment, then: string) => {
    const started = join(t.root, `started-${Math.random().toString(36).slice(2)}`);
    const gate = `${started}.gate`;
    let finished = false;
    const result = env
      .run(`touch ${started}; while [ ! -e ${gate} ]; do sleep 0.02; done; ${then}`, opts)
      .then((r) => {
        finished = true;
        return r;
      });
    return {
      result,
      isFinished: () => finished,
      running: () => vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 10_000 }),
      open: () => writeFile(gate, ""),
    };
  };

  it("keeps every concurrent command's cd and export; the last one called sets the cwd", async () => {
    const env = t.provider.get("t");
    const dirs = Array.from({ length: 10 }, (_, i) => join(t.root, `x_${i}`));
    await Promise.all(dirs.map((d) => mkdir(d)));
    const results = await Promise.all(
      dirs.map((d, i) => env.run(`cd ${d} && export V_${i}=${i} CHAIN="\${CHAIN:-}${i}"`, opts)),
    );
    results.forEach((r, i) => {
      expect(r).toMatchObject({ exitCode: 0, cwd: dirs[i] });
    });
    const final = await env.run('echo "$CHAIN"; env | grep "^V_" | sort; pwd', opts);
    const exports = dirs.map((_, i) => `V_${i}=${i}\n`).join("");
    // Each command started from the one called before it: the chain is in call order, no gap.
    expect(final.output).toBe(`0123456789\n${exports}${dirs[9]}\n`);
    expect(env.getCwd()).toBe(dirs[9]);
  });

  it("lets file reads and stat through while a command runs; the next command sees its state", async () => {
    const env = t.provider.get("t");
    await env.run(`cd ${t.root} && export FIRST=1`, opts);
    await env.writeFile(join(t.root, "note.txt"), "hi");
    const long = gated(env, "cd / && export LATER=1");
    await long.running();
    expect((await env.readFile(join(t.root, "note.txt"))).toString()).toBe("hi");
    expect(await env.stat(join(t.root, "note.txt"))).toMatchObject({ isFile: true, size: 2 });
    expect(await env.listDir(t.root)).toContain("note.txt");
    // Until the command completes, the task's cwd is the last completed one.
    expect(env.getCwd()).toBe(t.root);
    if (env.backgroundSpec) expect((await env.backgroundSpec()).cwd).toBe(t.root);
    expect(long.isFinished()).toBe(false);
    const next = env.run('echo "$FIRST $LATER $PWD"', opts);
    await long.open();
    expect((await next).output).toBe("1 1 /\n");
    expect((await long.result).exitCode).toBe(0);
  });

  it("returns at once, without running it, a waiting command that is interrupted", async () => {
    const env = t.provider.get("t");
    const long = gated(env, "echo first");
    await long.running();
    const abort = new AbortController();
    const marker = join(t.root, "should-not-exist");
    const waiting = env.run(`touch ${marker}`, { ...opts, signal: abort.signal });
    const after = env.run("echo after", opts);
    abort.abort();
    expect(await waiting).toMatchObject({ interrupted: true, exitCode: null });
    expect(long.isFinished()).toBe(false);
    await long.open();
    expect((await long.result).output).toBe("first\n");
    expect((await after).output).toBe("after\n");
    expect(existsSync(marker)).toBe(false);
  });

  it("release interrupts the running command and turns away waiting ones", async () => {
    const env = t.provider.get("t");
    const long = gated(env, "echo never");
    await long.running();
    const marker = join(t.root, "should-not-exist");
    const waiting = env.run(`touch ${marker}`, opts);
    await t.provider.release("t");
    expect(await long.result).toMatchObject({ interrupted: true, exitCode: null });
    expect(await waiting).toMatchObject({ interrupted: true, exitCode: null });
    expect(existsSync(marker)).toBe(false);
    // The task id starts afresh.
    const fresh = t.provider.get("t");
    expect(fresh).not.toBe(env);
    expect((await fresh.run("echo fresh", opts)).output).toBe("fresh\n");
  });
});
