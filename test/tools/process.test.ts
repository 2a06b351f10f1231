import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { shutdownProcessRegistry } from "../../src/tools/process/registry.js";
import { createHarness, isAlive, type ToolHarness } from "./helpers.js";

/** terminal(background=true) and the process tool on the local backend, with real processes. */

let h: ToolHarness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

const run = (args: Record<string, unknown>) => h.call("terminal", args);
const proc = (args: Record<string, unknown>) => h.call("process", args);

async function start(command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await run({ command, background: true, ...extra });
  expect(r).toMatchObject({ status: "running" });
  return String(r.session_id);
}

/** For a command that may be over by the time the call returns on a busy machine. */
async function startShort(command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await run({ command, background: true, ...extra });
  expect(["running", "exited"]).toContain(r.status);
  return String(r.session_id);
}

describe("background processes", () => {
  it("starts at once with the task's cwd and env, logging to HERMES_HOME/processes", async () => {
    await run({ command: "mkdir -p app && cd app && export GREETING=hello" });
    const r = await run({ command: 'echo "$GREETING from $PWD"; sleep 30', background: true });
    expect(r.session_id).toMatch(/^proc_[0-9a-f]{12}$/);
    expect(typeof r.pid).toBe("number");
    expect(r.log_path).toBe(join(h.home, "processes", `${r.session_id}.log`));
    expect((await stat(String(r.log_path))).mode & 0o777).toBe(0o600);
    await vi.waitFor(async () =>
      expect(await readFile(String(r.log_path), "utf8")).toBe(`hello from ${join(h.root, "app")}\n`),
    );
    const polled = await proc({ action: "poll", session_id: r.session_id });
    expect(polled).toMatchObject({ status: "running", exit_code: null, pid: r.pid });
    const records = JSON.parse(await readFile(join(h.home, "processes.json"), "utf8")) as {
      processes: Array<Record<string, unknown>>;
    };
    expect(records.processes[0]).toMatchObject({
      id: r.session_id,
      status: "running",
      cwd: join(h.root, "app"),
    });
  });

  it("waits for the exit and reports the exit code and output", async () => {
    const id = await startShort("echo working; sleep 0.3; echo finished; exit 4");
    const r = await proc({ action: "wait", session_id: id, timeout: 20 });
    expect(r).toMatchObject({ status: "exited", exit_code: 4 });
    expect(r.output_tail).toBe("working\nfinished");
  });

  it("wait returns with timed_out while the process keeps running", async () => {
    const id = await start("sleep 30");
    const r = await proc({ action: "wait", session_id: id, timeout: 1 });
    expect(r).toMatchObject({ status: "running", timed_out: true });
    const ac = new AbortController();
    const pending = h.call("process", { action: "wait", session_id: id, timeout: 60 }, ac.signal);
    ac.abort();
    expect(await pending).toMatchObject({ status: "running", timed_out: true });
  });

  it("pages the log with offset and limit, and defaults to its last lines", async () => {
    const id = await startShort("seq 1 500");
    await proc({ action: "wait", session_id: id, timeout: 20 });
    const last = await proc({ action: "log", session_id: id, limit: 3 });
    expect(last).toMatchObject({ output: "498\n499\n500", total_lines: 500, offset: 498, lines_returned: 3 });
    expect(last).not.toHaveProperty("next_offset");
    const page = await proc({ action: "log", session_id: id, offset: 10, limit: 5 });
    expect(page).toMatchObject({ output: "10\n11\n12\n13\n14", offset: 10, next_offset: 15 });
  });

  it("kills the whole process group, escalating to SIGKILL", async () => {
    const pidFile = join(h.root, "pids");
    const id = await start(`trap '' TERM; echo $$ > ${pidFile}; sleep 1000 & echo $! >> ${pidFile}; wait`);
    await vi.waitFor(async () =>
      expect((await readFile(pidFile, "utf8")).trim().split(/\s+/)).toHaveLength(2),
    );
    const pids = (await readFile(pidFile, "utf8")).trim().split(/\s+/).map(Number);
    const r = await proc({ action: "kill", session_id: id });
    expect(r).toMatchObject({ status: "killed" });
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 10_000, interval: 100 });
    expect((await proc({ action: "list" })).processes).toEqual([
      expect.objectContaining({ session_id: id, status: "killed" }),
    ]);
  });

  it("writes to stdin, submits lines and closes it", async () => {
    const id = await start('read a; read b; echo "a=$a b=$b"; cat; echo end');
    await proc({ action: "write", session_id: id, data: "fir" });
    await proc({ action: "submit", session_id: id, data: "st" });
    await proc({ action: "submit", session_id: id, data: "second" });
    await proc({ action: "write", session_id: id, data: "tail\n" });
    expect(await proc({ action: "close", session_id: id })).toMatchObject({ stdin: "closed" });
    const r = await proc({ action: "wait", session_id: id, timeout: 20 });
    expect(r).toMatchObject({ status: "exited", exit_code: 0, output_tail: "a=first b=second\ntail\nend" });
    expect(String((await proc({ action: "write", session_id: id, data: "x" })).error)).toMatch(
      /already exited/,
    );
  });

  it("screens text sent to a background shell with the same approval gate as terminal", async () => {
    const id = await start("bash -s");
    const denied = await proc({ action: "submit", session_id: id, data: "rm -rf ~" });
    expect(String(denied.error)).toMatch(/approval/i);
    expect(await proc({ action: "submit", session_id: id, data: "echo still-here" })).toMatchObject({
      session_id: id,
    });
    await proc({ action: "kill", session_id: id });
  });

  it("tells the agent when a process completes, unless it was waiting for it", async () => {
    const id = await startShort("sleep 0.2; echo built; exit 2", { notify_on_complete: true });
    await vi.waitFor(() => expect(h.notices).toHaveLength(1), { timeout: 10_000, interval: 50 });
    expect(h.notices[0]).toContain(`${id} (sleep 0.2; echo built; exit 2) exited with code 2`);
    expect(h.notices[0]).toContain("built");
    const waited = await start("sleep 1", { notify_on_complete: true });
    expect(await proc({ action: "wait", session_id: waited, timeout: 20 })).toMatchObject({
      status: "exited",
    });
    expect(h.notices).toHaveLength(1);
  });

  it("reports new output lines matching watch_patterns", async () => {
    const id = await start("echo starting; sleep 0.6; echo 'Server ready on :3000'; echo noise; sleep 30", {
      watch_patterns: ["ready on :\\d+"],
    });
    await vi.waitFor(() => expect(h.notices).toHaveLength(1), { timeout: 10_000, interval: 50 });
    expect(h.notices[0]).toContain(id);
    expect(h.notices[0]).toContain("Server ready on :3000");
    expect(h.notices[0]).not.toContain("noise");
    expect(String((await run({ command: "x", background: true, watch_patterns: ["("] })).error)).toMatch(
      /Invalid watch_patterns regex/,
    );
  });

  it("validates actions and ids", async () => {
    expect(String((await proc({ action: "dance" })).error)).toMatch(/'action' must be one of/);
    expect(String((await proc({ action: "poll" })).error)).toMatch(/session_id is required/);
    expect(String((await proc({ action: "poll", session_id: "proc_nope" })).error)).toMatch(
      /No background process/,
    );
    expect(await proc({ action: "list" })).toEqual({ processes: [] });
  });
});

describe("background processes across Hermes processes", () => {
  it("kills ordinary processes at shutdown but leaves nohup ones running for the next Hermes", async () => {
    const plain = await run({ command: "sleep 1000", background: true });
    const kept = await run({ command: "nohup sleep 1000", background: true });
    await shutdownProcessRegistry(h.home);
    await vi.waitFor(() => expect(isAlive(Number(plain.pid))).toBe(false), { timeout: 10_000, interval: 50 });
    expect(isAlive(Number(kept.pid))).toBe(true);

    // A fresh registry (what a new Hermes process has) sees the survivor through processes.json.
    const list = (await proc({ action: "list" })).processes as Array<Record<string, unknown>>;
    expect(list).toContainEqual(expect.objectContaining({ session_id: plain.session_id, status: "killed" }));
    expect(list).toContainEqual(
      expect.objectContaining({
        session_id: kept.session_id,
        status: "running",
        detached: true,
        started_by: expect.stringMatching(/another Hermes process/),
      }),
    );
    expect(String((await proc({ action: "write", session_id: kept.session_id, data: "x" })).error)).toMatch(
      /started by another Hermes process/,
    );
    expect(await proc({ action: "kill", session_id: kept.session_id })).toMatchObject({ status: "killed" });
    expect(isAlive(Number(kept.pid))).toBe(false);
  });

  it("knows the exit code of a survivor that ended while no Hermes watched it", async () => {
    const r = await run({ command: "nohup sh -c 'sleep 0.3; exit 6'", background: true });
    await shutdownProcessRegistry(h.home);
    await vi.waitFor(() => expect(existsSync(join(h.home, "processes", `${r.session_id}.exit`))).toBe(true), {
      timeout: 10_000,
      interval: 50,
    });
    expect(await proc({ action: "poll", session_id: r.session_id })).toMatchObject({
      status: "exited",
      exit_code: 6,
    });
  });
});
