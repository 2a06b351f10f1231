import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHarness, isAlive, type ToolHarness } from "./helpers.js";

let h: ToolHarness;

const run = (args: Record<string, unknown>, signal?: AbortSignal) => h.call("terminal", args, signal);

async function readPids(file: string): Promise<number[]> {
  const text = await readFile(file, "utf8");
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((s) => Number(s));
}

describe("terminal", () => {
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it("runs a command and reports output, exit code and cwd", async () => {
    const r = await run({ command: "echo hello" });
    expect(r).toMatchObject({ output: "hello\n", exit_code: 0, cwd: h.root });
  });

  it("returns exit codes faithfully, including an explicit exit", async () => {
    expect((await run({ command: "false" })).exit_code).toBe(1);
    expect((await run({ command: "echo out; exit 3" })).exit_code).toBe(3);
    expect((await run({ command: "(exit 42)" })).exit_code).toBe(42);
    // The task survives an `exit`: the next command still runs in the same cwd.
    expect(await run({ command: "pwd" })).toMatchObject({ output: `${h.root}\n`, exit_code: 0 });
  });

  it("persists cwd and exported variables between calls", async () => {
    await mkdir(join(h.root, "sub"));
    const r1 = await run({ command: "cd sub && export GREETING='hi there' && LOCAL_ONLY=1" });
    expect(r1.cwd).toBe(join(h.root, "sub"));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    const r2 = await run({ command: 'pwd; echo "$GREETING|${LOCAL_ONLY:-unset}"' });
    expect(r2.output).toBe(`${join(h.root, "sub")}\nhi there|unset\n`);
    await run({ command: "unset GREETING" });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    expect((await run({ command: 'echo "${GREETING:-gone}"' })).output).toBe("gone\n");
  });

  it("runs multi-line scripts, heredocs and pipes as written", async () => {
    const script = [
      "cat <<'EOF' > notes.txt",
      "line $1 literal",
      "EOF",
      "for i in 1 2 3; do echo $i; done | tr '\\n' ' ' && echo",
      "cat notes.txt",
    ].join("\n");
    const r = await run({ command: script });
    expect(r.output).toBe("1 2 3 \nline $1 literal\n");
  });

  it("interleaves stdout and stderr", async () => {
    const r = await run({ command: "echo one; echo two >&2; echo three" });
    expect(r.output).toBe("one\ntwo\nthree\n");
  });

  it("workdir applies to one call only and a missing workdir is an error", async () => {
    await mkdir(join(h.root, "other"));
    const r = await run({ command: "pwd", workdir: "other" });
    expect(r.output).toBe(`${join(h.root, "other")}\n`);
    expect(r.cwd).toBe(h.root);
    expect((await run({ command: "pwd" })).output).toBe(`${h.root}\n`);
    const bad = await run({ command: "pwd", workdir: "nope" });
    expect(String(bad.error)).toContain(join(h.root, "nope"));
  });

  it("rejects an empty command, and notifications without background", async () => {
    expect(String((await run({ command: "  " })).error)).toMatch(/command is required/);
    expect(String((await run({ command: "ls", notify_on_complete: true })).error)).toMatch(
      /need background=true/,
    );
    expect(String((await run({ command: "ls", watch_patterns: ["x"] })).error)).toMatch(/need background/);
  });

  it("kills a timed-out command together with its children", async () => {
    const pidFile = join(h.root, "pids");
    const r = await run({
      command: `bash -c 'sleep 30 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; wait'`,
      timeout: 1,
    });
    expect(r).toMatchObject({ timed_out: true, exit_code: 124 });
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(2);
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 5000, interval: 50 });
  });

  it("an abort interrupts a running command", async () => {
    const pidFile = join(h.root, "pid");
    const ac = new AbortController();
    const pending = run({ command: `echo $$ > ${pidFile}; sleep 30` }, ac.signal);
    await vi.waitFor(async () => expect((await readFile(pidFile, "utf8")).trim()).not.toBe(""), {
      timeout: 5000,
      interval: 20,
    });
    ac.abort();
    const r = await pending;
    expect(r).toMatchObject({ interrupted: true, exit_code: 130 });
    const [pid] = await readPids(pidFile);
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false), { timeout: 5000, interval: 50 });
  });

  it("does not expose credential-shaped variables", async () => {
    await h.dispose();
    h = await createHarness({
      env: {
        sourceEnv: { ...process.env, OPENAI_API_KEY: "sk-secret", MY_TOKEN: "tok", PLAIN_VAR: "visible" },
      },
    });
    const r = await run({ command: 'echo "[$OPENAI_API_KEY][$MY_TOKEN][$PLAIN_VAR][$PAGER]"' });
    expect(r.output).toBe("[][][visible][cat]\n");
  });

  it("passes through variables listed in terminal.env_passthrough", async () => {
    await h.dispose();
    h = await createHarness({
      config: (c) => {
        c.terminal.env_passthrough = ["GITHUB_TOKEN"];
      },
      env: { sourceEnv: { ...process.env, GITHUB_TOKEN: "gh-ok", OPENAI_API_KEY: "sk-secret" } },
    });
    const r = await run({ command: 'echo "[$GITHUB_TOKEN][$OPENAI_API_KEY]"' });
    expect(r.output).toBe("[gh-ok][]\n");
  });

  it("truncates huge output with a marker and spills the full text", async () => {
    const r = await run({ command: "seq 1 30000" });
    expect(r.truncated).toBe(true);
    expect(String(r.output)).toMatch(/\[\.\.\. \d+ lines \/ \d+ bytes omitted \.\.\.\]/);
    expect(String(r.output)).toContain("\n30000");
    expect(String(r.output).startsWith("1\n2\n")).toBe(true);
    const path = String(r.full_output_path);
    expect(path.startsWith(join(h.home, "cache", "tool-output"))).toBe(true);
    const full = await readFile(path, "utf8");
    expect(full.split("\n").filter(Boolean)).toHaveLength(30000);
    expect(String(r.note)).toContain(path);
  });

  it("strips ANSI escapes and carriage-return progress", async () => {
    const r = await run({ command: "printf '\\033[31mred\\033[0m plain\\n50%%\\r100%%\\n'" });
    expect(r.output).toBe("red plain\n100%\n");
  });

  it("returns even when a background child keeps the output pipe open", async () => {
    const pidFile = join(h.root, "bg");
    const r = await run({ command: `sleep 30 & echo $! > ${pidFile}; echo started` });
    expect(r).toMatchObject({ output: "started\n", exit_code: 0 });
    const [pid] = await readPids(pidFile);
    expect(isAlive(pid!)).toBe(true);
    await h.provider.disposeAll();
    await vi.waitFor(() => expect(isAlive(pid!)).toBe(false), { timeout: 5000, interval: 50 });
  });

  it("uses HOME for ~ and probes the environment", async () => {
    await writeFile(join(h.userHome, "marker"), "x");
    expect((await run({ command: "ls ~" })).output).toBe("marker\n");
    const probe = await h.ctx.env.probe();
    expect(probe.cwd).toBe(h.root);
    expect(probe.home).toBe(h.userHome);
    expect(probe.os.length).toBeGreaterThan(0);
  });
});
