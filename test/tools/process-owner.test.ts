import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ToolContext, UserScope } from "../../src/tools/context.js";
import { shutdownProcessRegistry } from "../../src/tools/process/registry.js";
import { createHarness, isAlive, type ToolHarness } from "./helpers.js";

/**
 * Background processes belong to the user whose session started them: two chat users of one
 * gateway share a HERMES_HOME (and one process table) but never see or touch each other's.
 */

let h: ToolHarness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

const scopeOf = (userKey: string | undefined): UserScope => ({
  ...(userKey ? { userKey } : {}),
  workdir: h.root,
  memoryDir: join(h.home, "memories"),
});

/** Calls a tool as `userKey` (undefined: the profile's owner, as the CLI). */
async function as(
  userKey: string | undefined,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const ctx: ToolContext = { ...h.ctx, scope: scopeOf(userKey) };
  return JSON.parse(await h.registry.dispatch(name, args, ctx)) as Record<string, unknown>;
}

const ALICE = "telegram:42";
const BOB = "telegram:43";

const ids = (r: Record<string, unknown>): unknown[] =>
  (r.processes as Array<Record<string, unknown>>).map((p) => p.session_id);

describe("background processes per user", () => {
  it("a user lists, polls, logs, waits for, writes to and kills only their own processes", async () => {
    const a = await as(ALICE, "terminal", { command: "echo alice-job; cat", background: true });
    expect(a).toMatchObject({ status: "running" });
    const id = String(a.session_id);

    expect(ids(await as(ALICE, "process", { action: "list" }))).toEqual([id]);
    expect(ids(await as(BOB, "process", { action: "list" }))).toEqual([]);
    // The profile's owner (CLI) does not see a chat user's process either.
    expect(ids(await as(undefined, "process", { action: "list" }))).toEqual([]);

    // Bob gets exactly the answer an unknown id gets, for every action.
    const unknown = String(
      (await as(BOB, "process", { action: "poll", session_id: "proc_000000000000" })).error,
    );
    for (const action of ["poll", "log", "wait", "kill", "write", "submit", "close"]) {
      const r = await as(BOB, "process", { action, session_id: id, data: "x", timeout: 1 });
      expect(String(r.error), action).toBe(unknown.replace("proc_000000000000", id));
    }
    expect(isAlive(Number(a.pid))).toBe(true);
    await vi.waitFor(async () => expect(await readFile(String(a.log_path), "utf8")).toBe("alice-job\n"));

    expect(
      await as(ALICE, "process", { action: "submit", session_id: id, data: "from-alice" }),
    ).toMatchObject({ session_id: id });
    expect(await as(ALICE, "process", { action: "kill", session_id: id })).toMatchObject({
      status: "killed",
    });
    await vi.waitFor(() => expect(isAlive(Number(a.pid))).toBe(false), { timeout: 10_000, interval: 50 });
  });

  it("records the owner, so a later Hermes process keeps the processes apart", async () => {
    const a = await as(ALICE, "terminal", { command: "nohup sleep 1000", background: true });
    const owner = await as(undefined, "terminal", { command: "nohup sleep 1001", background: true });
    const records = JSON.parse(await readFile(join(h.home, "processes.json"), "utf8")) as {
      processes: Array<Record<string, unknown>>;
    };
    expect(records.processes.find((r) => r.id === a.session_id)).toMatchObject({ owner: ALICE });
    expect(records.processes.find((r) => r.id === owner.session_id)).not.toHaveProperty("owner");

    // A fresh registry (a new Hermes process) reads them from processes.json.
    await shutdownProcessRegistry(h.home);
    expect(ids(await as(ALICE, "process", { action: "list" }))).toEqual([a.session_id]);
    expect(ids(await as(BOB, "process", { action: "list" }))).toEqual([]);
    expect(ids(await as(undefined, "process", { action: "list" }))).toEqual([owner.session_id]);
    expect(String((await as(BOB, "process", { action: "kill", session_id: a.session_id })).error)).toMatch(
      /No background process/,
    );
    expect(isAlive(Number(a.pid))).toBe(true);
    expect(await as(ALICE, "process", { action: "kill", session_id: a.session_id })).toMatchObject({
      status: "killed",
    });
    expect(await as(undefined, "process", { action: "kill", session_id: owner.session_id })).toMatchObject({
      status: "killed",
    });
  });

  it("nohup: true keeps a process running after this Hermes process ends, like a nohup command", async () => {
    const kept = await as(undefined, "terminal", { command: "sleep 1000", background: true, nohup: true });
    const plain = await as(undefined, "terminal", { command: "sleep 1001", background: true });
    await shutdownProcessRegistry(h.home);
    await vi.waitFor(() => expect(isAlive(Number(plain.pid))).toBe(false), { timeout: 10_000, interval: 50 });
    expect(isAlive(Number(kept.pid))).toBe(true);
    const listed = (await as(undefined, "process", { action: "list" })).processes as Array<
      Record<string, unknown>
    >;
    expect(listed.find((p) => p.session_id === kept.session_id)).toMatchObject({
      status: "running",
      detached: true,
    });
    await as(undefined, "process", { action: "kill", session_id: kept.session_id });
    expect(String((await as(undefined, "terminal", { command: "true", nohup: true })).error)).toMatch(
      /need background=true/,
    );
  });
});
