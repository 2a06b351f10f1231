import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HookBus, type HookProblem } from "../../src/agent/hooks.js";
import { DEFAULT_CONFIG, type HookSettings } from "../../src/core/config-defaults.js";
import { shellHooks } from "../../src/plugins/shell-hooks.js";
import { tempDir } from "../support/temp.js";

/** True while a process exists and is not a zombie (an orphan may wait a while to be reaped). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

function setup(entries: Partial<HookSettings>, timeoutMs = 5000) {
  const dir = tempDir("hermes-shell-hooks-");
  const problems: HookProblem[] = [];
  const hooks = new HookBus({ timeoutMs, report: (p) => problems.push(p) });
  const settings = { ...DEFAULT_CONFIG.hooks, ...entries } as HookSettings;
  for (const h of shellHooks(settings, { cwd: dir, home: dir, env: process.env })) hooks.on(h);
  return { dir, hooks, problems };
}

describe("shell hooks", () => {
  it("get the event as JSON on stdin, with the tool fields on top and the rest under extra", async () => {
    const dir = tempDir("hermes-shell-stdin-");
    const out = join(dir, "payload.json");
    const { hooks } = setup({ post_tool_call: [`cat > ${out}`] });
    await hooks.emit("post_tool_call", {
      tool_name: "read_file",
      args: { path: "a.txt" },
      session_id: "s-1",
      result: "hello",
      duration_ms: 3,
    });
    const payload = JSON.parse(readFileSync(out, "utf8"));
    expect(payload).toMatchObject({
      hook_event_name: "post_tool_call",
      tool_name: "read_file",
      tool_input: { path: "a.txt" },
      session_id: "s-1",
      extra: { result: "hello", duration_ms: 3 },
    });
    expect(typeof payload.cwd).toBe("string");
  });

  it("block a call with a JSON answer, or with exit status 2 and a reason on stderr", async () => {
    const json = setup({ pre_tool_call: [`echo '{"decision": "block", "reason": "not on Fridays"}'`] });
    expect(await json.hooks.beforeToolCall({ tool_name: "terminal", args: {} })).toEqual({
      blocked: "not on Fridays",
    });
    const status = setup({ pre_tool_call: ["echo 'writes are frozen' >&2; exit 2"] });
    expect(await status.hooks.beforeToolCall({ tool_name: "write_file", args: {} })).toEqual({
      blocked: "writes are frozen",
    });
  });

  it("rewrite arguments and replace results", async () => {
    const { hooks } = setup({
      pre_tool_call: [`echo '{"action": "modify", "args": {"command": "ls -1"}}'`],
      transform_tool_result: [`echo '{"result": "[replaced]"}'`],
    });
    expect(await hooks.beforeToolCall({ tool_name: "terminal", args: { command: "ls" } })).toEqual({
      args: { command: "ls -1" },
    });
    expect(await hooks.transform("transform_tool_result", { tool_name: "x", result: "r" }, "result")).toBe(
      "[replaced]",
    );
  });

  it("output that is not JSON, and a failing status, are reported and change nothing", async () => {
    const { hooks, problems } = setup({
      pre_tool_call: ["echo 'Traceback (most recent call last):'", "echo oops >&2; exit 3"],
    });
    expect(await hooks.beforeToolCall({ tool_name: "terminal", args: { a: 1 } })).toEqual({ args: { a: 1 } });
    expect(problems.map((p) => p.message)).toEqual([
      "failed: printed something that is not JSON: Traceback (most recent call last):",
      "failed: exited with status 3: oops",
    ]);
    expect(problems[0]?.label).toBe("echo 'Traceback (most recent call last):'");
  });

  it("a matcher limits a hook to the tools it names", async () => {
    const dir = tempDir("hermes-shell-match-");
    const out = join(dir, "seen.txt");
    const { hooks } = setup({
      post_tool_call: [{ command: `cat >> ${out}; echo >> ${out}`, matcher: "write_file|patch" }],
    });
    await hooks.emit("post_tool_call", { tool_name: "read_file", args: {} });
    await hooks.emit("post_tool_call", { tool_name: "patch", args: {} });
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).tool_name)).toEqual(["patch"]);
  });

  it("a hook that hangs is cut at its time limit, with everything it started", async () => {
    const dir = tempDir("hermes-shell-hang-");
    const pidFile = join(dir, "pid");
    const script = join(dir, "hang.sh");
    writeFileSync(script, `sleep 60 &\necho $! > ${pidFile}\nwait\n`);
    const { hooks, problems } = setup({ pre_tool_call: [`sh ${script}`] }, 400);
    expect(await hooks.beforeToolCall({ tool_name: "terminal", args: {} })).toEqual({ args: {} });
    expect(problems[0]).toMatchObject({
      hook: "pre_tool_call",
      message: "did not finish within 0.4 s; skipped",
    });
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    for (let i = 0; i < 50 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(isAlive(pid)).toBe(false);
  });

  it("an entry's own timeout overrides hooks.timeout", async () => {
    const { hooks, problems } = setup({ on_session_start: [{ command: "sleep 5", timeout: 0.2 }] }, 10_000);
    await hooks.emit("on_session_start", {});
    expect(problems[0]?.message).toBe("did not finish within 0.2 s; skipped");
  });
});
