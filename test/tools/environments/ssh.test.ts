import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { DEFAULT_CONFIG } from "../../../src/core/config-defaults.js";
import { registerBuiltinTools } from "../../../src/tools/builtin/index.js";
import type { HermesToolRegistry, ToolContext } from "../../../src/tools/context.js";
import { createSshProvider } from "../../../src/tools/environments/ssh.js";
import type { EnvironmentProvider, ExecutionEnvironment } from "../../../src/tools/environments/types.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { cleanEnv, runHermes, sandbox } from "../../support/cli.js";
import { skipBecause } from "../../support/skip.js";
import { isAlive } from "../helpers.js";
import { type PrivateSshd, startPrivateSshd } from "./sshd.js";

/** The ssh backend against a real OpenSSH server on a loopback port (the same machine). */

const server = await startPrivateSshd();
const skipReason = typeof server === "string" ? server : undefined;
const sshd = server as PrivateSshd;

const opts = { timeoutMs: 20_000 };

describe.skipIf(skipBecause("ssh backend", skipReason))(
  `ssh backend ${skipReason ? `(skipped: ${skipReason})` : ""}`,
  () => {
    let work: string;
    let provider: EnvironmentProvider;
    let env: ExecutionEnvironment;

    afterAll(async () => {
      await sshd.stop();
    });
    beforeEach(async () => {
      work = await realpath(await mkdtemp(join(tmpdir(), "hermes-ssh-work-")));
      provider = createSshProvider(sshd.settings, { cwd: work, maxOutputBytes: 2_000 });
      env = provider.get("task");
    });
    afterEach(async () => {
      await provider.disposeAll();
      await rm(work, { recursive: true, force: true });
    });

    it("probes the remote side", async () => {
      const probe = await env.probe();
      expect(probe.os).toBe(execFileSync("uname", ["-sr"]).toString().trim());
      expect(probe.user).toBe(userInfo().username);
      expect(probe.home).toBe(userInfo().homedir);
      expect(probe.cwd).toBe(work);
      expect(env.backend).toBe("ssh");
    });

    it("describes the remote environment in the system prompt", async () => {
      const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
      registerBuiltinTools(registry);
      const agent = new Agent({
        target: {
          provider: "custom",
          apiMode: "chat_completions",
          model: "m",
          baseUrl: "http://127.0.0.1:9/v1",
          apiKey: "k",
        },
        registry,
        toolNames: new Set(["terminal"]),
        config: structuredClone(DEFAULT_CONFIG),
        home: work,
        environments: provider,
        taskId: "task",
      });
      const { systemPrompt } = await agent.prepareSession();
      expect(systemPrompt).toContain("Terminal backend: ssh.");
      expect(systemPrompt).toContain(
        `  User: ${userInfo().username}\n  Home: ${userInfo().homedir}\n  Working directory: ${work}`,
      );
    });

    it("keeps cwd and exported variables between commands, per task", async () => {
      const r1 = await env.run("mkdir -p sub && cd sub && export GREETING='hi there' && LOCAL_ONLY=1", opts);
      expect(r1).toMatchObject({ exitCode: 0, cwd: join(work, "sub") });
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
      const r2 = await env.run('pwd; echo "$GREETING|${LOCAL_ONLY:-unset}|$PAGER"', opts);
      expect(r2.output).toBe(`${join(work, "sub")}\nhi there|unset|cat\n`);
      expect(env.getCwd()).toBe(join(work, "sub"));
      const other = provider.get("other-task");
      expect((await other.run('echo "[$GREETING]"; pwd', opts)).output).toBe(`[]\n${work}\n`);
    });

    it("returns exit codes, interleaves stderr, and keeps the task usable after exit", async () => {
      expect((await env.run("false", opts)).exitCode).toBe(1);
      expect(await env.run("echo out; echo err >&2; exit 3", opts)).toMatchObject({
        exitCode: 3,
        output: "out\nerr\n",
      });
      expect(await env.run("pwd", opts)).toMatchObject({ exitCode: 0, output: `${work}\n` });
      expect((await env.run("cat <<'EOF'\nline $1 literal\nEOF", opts)).output).toBe("line $1 literal\n");
    });

    it("runs in a workdir for one call and reports a missing one", async () => {
      await env.run("mkdir other", opts);
      expect(await env.run("pwd", { ...opts, workdir: "other" })).toMatchObject({
        output: `${join(work, "other")}\n`,
        cwd: work,
      });
      const bad = await env.run("pwd", { ...opts, workdir: "nope" });
      expect(bad.exitCode).toBe(1);
      expect(bad.output).toContain(`workdir does not exist or is not a directory: ${join(work, "nope")}`);
      const e = await env.run('echo "$ONE_CALL"', { ...opts, env: { ONE_CALL: "x y" } });
      expect(e.output).toBe("x y\n");
    });

    it("kills the remote process tree on timeout", async () => {
      const pidFile = join(work, "pids");
      const r = await env.run(`sleep 300 & echo $! > ${pidFile}; echo $$ >> ${pidFile}; wait`, {
        timeoutMs: 1_000,
      });
      expect(r).toMatchObject({ timedOut: true, exitCode: null });
      const pids = (await readFile(pidFile, "utf8")).trim().split(/\s+/).map(Number);
      expect(pids).toHaveLength(2);
      // Checked on the remote side, through a new command.
      await vi.waitFor(
        async () => {
          const alive = await env.run(
            `for p in ${pids.join(" ")}; do kill -0 $p 2>/dev/null && echo $p; done`,
            opts,
          );
          expect(alive.output).toBe("");
        },
        { timeout: 15_000, interval: 200 },
      );
      expect(pids.filter(isAlive)).toEqual([]);
    });

    it("kills the remote command on interrupt", async () => {
      const pidFile = join(work, "pid");
      const ac = new AbortController();
      const pending = env.run(`echo $$ > ${pidFile}; sleep 300`, { ...opts, signal: ac.signal });
      await vi.waitFor(() => expect(existsSync(pidFile)).toBe(true), { timeout: 10_000, interval: 20 });
      ac.abort();
      expect(await pending).toMatchObject({ interrupted: true, exitCode: null });
      const pid = Number((await readFile(pidFile, "utf8")).trim());
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 15_000, interval: 100 });
    });

    it("returns while a background child keeps running, and kills it on dispose", async () => {
      const pidFile = join(work, "bg");
      const r = await env.run(`sleep 300 & echo $! > ${pidFile}; echo started`, opts);
      expect(r).toMatchObject({ output: "started\n", exitCode: 0 });
      const pid = Number((await readFile(pidFile, "utf8")).trim());
      expect(isAlive(pid)).toBe(true);
      await provider.disposeAll();
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 15_000, interval: 100 });
    });

    it("reads, writes, stats and lists files over ssh", async () => {
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await env.writeFile("deep/er/blob.bin", bytes);
      expect(Buffer.compare(await env.readFile(join(work, "deep/er/blob.bin")), bytes)).toBe(0);
      await env.writeFile(`~/../${work.slice(1)}/note.txt`, "héllo\n");
      expect((await env.readFile("note.txt")).toString("utf8")).toBe("héllo\n");
      expect(await env.stat("note.txt")).toMatchObject({ isFile: true, isDirectory: false, size: 7 });
      expect(await env.stat("deep")).toMatchObject({ isFile: false, isDirectory: true });
      expect(await env.stat("missing")).toBeUndefined();
      await env.run("touch .hidden 'with space'", opts);
      expect(await env.listDir(".")).toEqual([".hidden", "deep", "note.txt", "with space"]);
      await expect(env.readFile("missing")).rejects.toMatchObject({ code: "ENOENT" });
    });

    it("spills a large output and stores it where read_file can reach it", async () => {
      const r = await env.run("seq 1 50000", { ...opts, spillDir: join(work, "spill") });
      expect(r.fullOutputPath).toBeDefined();
      const remote = await env.storeOutput!(r.fullOutputPath!);
      expect(existsSync(r.fullOutputPath!)).toBe(false);
      const text = (await env.readFile(remote)).toString("utf8");
      expect(text.split("\n").filter(Boolean)).toHaveLength(50_000);
    });

    it("drives the terminal tool, with PTY and background refused clearly", async () => {
      const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
      registerBuiltinTools(registry);
      const home = join(work, "hermes-home");
      const ctx: ToolContext = {
        taskId: "task",
        sessionId: "s",
        signal: new AbortController().signal,
        config: structuredClone(DEFAULT_CONFIG),
        home,
        env,
        platform: "cli",
      };
      const call = async (args: Record<string, unknown>) =>
        JSON.parse(await registry.dispatch("terminal", args, ctx)) as Record<string, unknown>;
      expect(await call({ command: "echo hi; cd /" })).toMatchObject({
        output: "hi\n",
        exit_code: 0,
        cwd: "/",
      });
      const big = await call({ command: `seq 1 3000`, workdir: work });
      expect(String(big.full_output_path)).toMatch(/output\/.*-terminal-.*\.txt$/);
      expect((await env.readFile(String(big.full_output_path))).toString().split("\n")).toHaveLength(3001);
      expect(String((await call({ command: "tty", pty: true })).error)).toMatch(
        /PTY mode is unavailable.*ssh/,
      );
      expect(String((await call({ command: "sleep 1", background: true })).error)).toMatch(
        /local backend only.*nohup/,
      );
    });
  },
);

describe("ssh backend with a missing host", () => {
  let provider: EnvironmentProvider | undefined;
  beforeAll(() => {
    provider = undefined;
  });
  afterEach(async () => {
    await provider?.disposeAll();
  });

  it("fails fast with a clear message when nothing listens on the port", async () => {
    provider = createSshProvider({
      host: "127.0.0.1",
      port: 1,
      connectTimeoutS: 3,
      options: ["UserKnownHostsFile=/dev/null"],
    });
    const env = provider.get("t");
    await expect(env.run("true", opts)).rejects.toThrow(
      /Cannot connect to 127\.0\.0\.1:1 over ssh: .*Connection refused.*terminal\.ssh_host/,
    );
    await expect(env.probe()).rejects.toThrow(/Cannot connect/);
  });

  it("fails with a clear message for a host name that does not resolve", async () => {
    provider = createSshProvider({ host: "no-such-host.invalid", connectTimeoutS: 3 });
    await expect(provider.get("t").run("true", opts)).rejects.toThrow(
      /no-such-host\.invalid.*(resolve|not known)/i,
    );
  });

  it("ends a hermes run at once with ssh's message, before any model call", async () => {
    const box = sandbox(
      "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n" +
        "terminal:\n  backend: ssh\n  ssh_host: 127.0.0.1\n  ssh_port: 1\n",
    );
    const r = await runHermes(["-z", "hi"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Cannot connect to 127\.0\.0\.1:1 over ssh: .*Connection refused/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("rejects a host that would be read as an option", () => {
    expect(() => createSshProvider({ host: "-oProxyCommand=x" })).toThrow(/Invalid ssh host/);
  });
});
