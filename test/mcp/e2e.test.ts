import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, type Sandbox, sandbox, startHermes } from "../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";
import { alive, EVERYTHING, FIXTURE, ROOT, until } from "./support.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const env = (box: Sandbox, extra: Record<string, string> = {}) =>
  cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key", ...extra });

/** A stdio server entry of config.yaml running `node <args>`. */
const entry = (name: string, args: string[], extra = "") =>
  `  ${name}:\n    command: ${process.execPath}\n    args: [${args.map((a) => JSON.stringify(a)).join(", ")}]\n${extra}`;

/** A server that answers nothing until `release` exists; `started` gets its pid. */
function hanging(name: string) {
  const dir = tempDir("hermes-mcp-e2e-hang-");
  const started = join(dir, "started");
  const release = join(dir, "release");
  const yaml = entry(
    name,
    [FIXTURE, "hang-start"],
    `    env:\n      MCP_STARTED: ${started}\n      MCP_RELEASE: ${release}\n`,
  );
  return { yaml, started, release };
}

const config = (servers: string[], extra = "") =>
  openaiConfig(
    fake,
    `agent:\n  api_max_retries: 0\n${extra}${servers.length ? `mcp_servers:\n${servers.join("")}` : ""}`,
  );

const toolNames = (r: RecordedRequest): string[] =>
  ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

describe("MCP tools in a run of the real binary", () => {
  it("reach the first request and are called through the server", async () => {
    // A generous deadline: the wait ends as soon as the server has answered.
    const box = sandbox(config([entry("everything", [EVERYTHING, "stdio"])], "mcp_discovery_timeout: 30\n"));
    fake.enqueue(
      { toolCalls: [{ name: "mcp_everything_echo", arguments: { message: "hi from the model" } }] },
      { text: "done" },
    );
    const r = await runHermes(["-z", "use the echo tool"], { env: env(box), cwd: box.work });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("done\n");
    const names = toolNames(fake.requests[0]!);
    expect(names).toEqual(
      expect.arrayContaining(["mcp_everything_echo", "mcp_everything_get-tiny-image", "terminal"]),
    );
    expect(toolMessagesOf(fake.requests[1]!).at(-1)!.content).toBe("Echo: hi from the model");
  });

  it("a server hanging at start does not hold the first request past mcp_discovery_timeout", async () => {
    const slow = hanging("slow");
    const { started, release } = slow;
    const box = sandbox(
      config(
        [entry("quick", [FIXTURE, "basic"]), slow.yaml],
        // Long enough for the quick server on a busy machine; the slow one never answers before it.
        "mcp_discovery_timeout: 5\n",
      ),
    );
    let hangingAtRequest: boolean | undefined;
    fake.setResponder(() => {
      // The first request is out: was the slow server still starting (never released) then?
      hangingAtRequest ??= existsSync(started) && !existsSync(release);
      return { text: "answered" };
    });
    const r = await runHermes(["-z", "hello"], { env: env(box), cwd: box.work });
    expect(r.stdout).toBe("answered\n");
    expect(hangingAtRequest).toBe(true);
    const names = toolNames(fake.requests[0]!);
    expect(names).toContain("mcp_quick_echo");
    expect(names.filter((n) => n.startsWith("mcp_slow_"))).toEqual([]);
    // Hermes has exited: the hung server went with it.
    const pid = Number(readFileSync(started, "utf8"));
    await until(() => !alive(pid), 5000, "the hung server's end");
  });

  it.each(["SIGTERM", "SIGINT"] as const)("stdio servers die with Hermes on %s", async (signal) => {
    const dir = tempDir("hermes-mcp-e2e-signal-");
    const pidFile = join(dir, "pid");
    const box = sandbox(
      config(
        [
          entry(
            "basic",
            [FIXTURE, "basic"],
            `    env:\n      MCP_PID_FILE: ${pidFile}\n      MCP_IGNORE_EOF: "1"\n`,
          ),
        ],
        "mcp_discovery_timeout: 30\n",
      ),
    );
    fake.enqueue({ fault: { kind: "hang" } });
    const run = startHermes(["chat", "-q", "wait"], { env: env(box), cwd: box.work });
    await until(() => fake.requests.length > 0, 15_000, "the first request");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    run.child.kill(signal);
    // A second Ctrl+C leaves at once.
    if (signal === "SIGINT") setTimeout(() => run.child.kill("SIGINT"), 200);
    await run.done;
    await until(() => !alive(pid), 5000, "the server's end");
  });

  it("a server that joins late is announced, and /reload-mcp gives the chat its tools", async () => {
    const slow = hanging("slow");
    const { release } = slow;
    const box = sandbox(
      config(
        [slow.yaml],
        // The first request waits it out (the slow server answers only after it); /reload-mcp then
        // waits at most as long for the server, released by then.
        "mcp_discovery_timeout: 3\n",
      ),
    );
    fake.setResponder(() => {
      // Let the slow server answer once the first request has gone out without it.
      writeFileSync(release, "");
      return { text: "ok" };
    });
    const r = await runHermes(["chat"], {
      env: env(box),
      cwd: box.work,
      input: "first\n/reload-mcp\nsecond\n",
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("MCP server 'slow' connected (3 tools)");
    expect(r.stdout + r.stderr).toMatch(/MCP tools reloaded: \+3/);
    expect(toolNames(fake.requests[0]!).filter((n) => n.startsWith("mcp_slow_"))).toEqual([]);
    expect(toolNames(fake.requests[1]!)).toEqual(expect.arrayContaining(["mcp_slow_echo", "mcp_slow_pid"]));
  });
});

describe("the MCP SDK is loaded only when MCP is used", () => {
  const loads = async (args: string[], box: Sandbox): Promise<string[]> => {
    const record = join(tempDir("hermes-mcp-loads-"), "loads.txt");
    writeFileSync(record, "");
    const hook = join(ROOT, "test", "fixtures", "mcp", "record-loads.mjs");
    await runHermes(args, {
      env: env(box, { HERMES_TEST_LOADS: record, NODE_OPTIONS: `--import ${hook}` }),
      cwd: box.work,
    });
    return readFileSync(record, "utf8").split("\n").filter(Boolean);
  };
  /** Loaded files holding the SDK's code (bundled into a chunk, or from node_modules). */
  const sdkFiles = (urls: string[]): string[] =>
    urls.filter((u) => {
      if (u.includes("@modelcontextprotocol")) return true;
      if (!u.startsWith("file:")) return false;
      try {
        return readFileSync(new URL(u), "utf8").includes("notifications/tools/list_changed");
      } catch {
        return false;
      }
    });

  it("not by --help, nor by a run without mcp_servers", async () => {
    const box = sandbox(config([]));
    expect(sdkFiles(await loads(["--help"], box))).toEqual([]);
    fake.enqueue({ text: "plain" });
    const urls = await loads(["-z", "hi"], box);
    // The hook saw the run (the start-up code is in a few files: it loads more than that).
    expect(urls.length).toBeGreaterThan(3);
    expect(sdkFiles(urls)).toEqual([]);
  });

  it("but by a run with a server configured", async () => {
    const box = sandbox(config([entry("quick", [FIXTURE, "basic"])]));
    fake.enqueue({ text: "with mcp" });
    expect(sdkFiles(await loads(["-z", "hi"], box)).length).toBeGreaterThan(0);
  });
});
