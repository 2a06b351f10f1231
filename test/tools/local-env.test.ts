import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLocalEnvironmentProvider, LocalEnvironment } from "../../src/tools/environments/local.js";

let dir: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "hermes-local-env-")));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = { timeoutMs: 10_000 };

describe("LocalEnvironment", () => {
  it("keeps state per task id and disposes its private state dir", async () => {
    await mkdir(join(dir, "a"));
    const provider = createLocalEnvironmentProvider({ cwd: dir, home: dir });
    const t1 = provider.get("t1");
    expect(provider.get("t1")).toBe(t1);
    await t1.run("cd a && export ONLY_T1=yes", opts);
    const t2 = provider.get("t2");
    expect(t1.getCwd()).toBe(join(dir, "a"));
    expect(t2.getCwd()).toBe(dir);
    expect((await t2.run('echo "[$ONLY_T1]"', opts)).output).toBe("[]\n");

    // The sourced command file lives in the task's private state dir.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash array expansion
    const stateDir = (await t1.run('dirname "${BASH_SOURCE[0]}"', opts)).output.trim();
    expect(stateDir.startsWith(tmpdir())).toBe(true);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    expect(existsSync(join(stateDir, "env.sh"))).toBe(true);
    await provider.disposeAll();
    expect(existsSync(stateDir)).toBe(false);
  });

  it("concurrent first commands share one state dir", async () => {
    const env = new LocalEnvironment({ cwd: dir, home: dir });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash array expansion
    const where = 'dirname "${BASH_SOURCE[0]}"';
    const [a, b] = await Promise.all([env.run(where, opts), env.run(where, opts)]);
    expect(a.output).toBe(b.output);
    await env.dispose();
  });

  it("works with a POSIX sh as well as bash", async () => {
    await mkdir(join(dir, "sub"));
    const env = new LocalEnvironment({ cwd: dir, home: dir, shell: "/bin/sh" });
    await env.run("cd sub; export X='it''s'", opts);
    const r = await env.run('pwd; echo "$X"; exit 7', opts);
    expect(r).toMatchObject({ output: `${join(dir, "sub")}\nits\n`, exitCode: 7 });
    await env.dispose();
  });

  it("applies per-command env without persisting it", async () => {
    const env = new LocalEnvironment({ cwd: dir, home: dir });
    await env.run("export KEEP=1 SHADOW=orig", opts);
    const r = await env.run('echo "$EXTRA $SHADOW"', { ...opts, env: { EXTRA: "e x", SHADOW: "tmp" } });
    expect(r.output).toBe("e x tmp\n");
    expect((await env.run('echo "[$EXTRA][$SHADOW][$KEEP]"', opts)).output).toBe("[][orig][1]\n");
    await env.dispose();
  });

  it("falls back when the saved cwd was deleted", async () => {
    await mkdir(join(dir, "tmpdir"));
    const env = new LocalEnvironment({ cwd: dir, home: dir });
    await env.run("cd tmpdir", opts);
    await rm(join(dir, "tmpdir"), { recursive: true });
    const r = await env.run("pwd", opts);
    expect(r.output).toContain("no longer exists");
    expect(r.output.trim().endsWith(dir)).toBe(true);
    expect(r.cwd).toBe(dir);
    await env.dispose();
  });

  it("resolves paths against the task cwd and ~, and does file I/O", async () => {
    const env = new LocalEnvironment({ cwd: dir, home: join(dir, "home") });
    expect(env.resolvePath("x/y")).toBe(join(dir, "x/y"));
    expect(env.resolvePath("~/z")).toBe(join(dir, "home", "z"));
    expect(env.resolvePath("/abs/../p")).toBe("/p");
    await env.writeFile("n/e/w.txt", "hi");
    expect((await env.readFile("n/e/w.txt")).toString()).toBe("hi");
    expect(await env.stat("n/e/w.txt")).toMatchObject({ isFile: true, isDirectory: false, size: 2 });
    expect(await env.stat("missing")).toBeUndefined();
    expect(await env.listDir("n/e")).toEqual(["w.txt"]);
    await env.dispose();
  });

  it("returns at once when the signal is already aborted", async () => {
    const env = new LocalEnvironment({ cwd: dir, home: dir });
    const ac = new AbortController();
    ac.abort();
    const r = await env.run(`touch ${join(dir, "should-not-exist")}`, { ...opts, signal: ac.signal });
    expect(r).toMatchObject({ interrupted: true, exitCode: null });
    expect(existsSync(join(dir, "should-not-exist"))).toBe(false);
    await env.dispose();
  });

  it("caps captured output, keeping both ends", async () => {
    const env = new LocalEnvironment({ cwd: dir, home: dir, maxOutputBytes: 1000 });
    const r = await env.run("seq 1 100000", opts);
    expect(r.output.startsWith("1\n2\n")).toBe(true);
    expect(r.output.endsWith("99999\n100000\n")).toBe(true);
    expect(r.output).toMatch(/bytes of output dropped/);
    expect(r.output.length).toBeLessThan(5000);
    await env.dispose();
  });
});
