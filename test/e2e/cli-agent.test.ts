import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, sandbox, startHermes } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";

type Protocol = "openai" | "anthropic";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

function configFor(protocol: Protocol, extra = ""): string {
  const model =
    protocol === "openai"
      ? `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n`
      : `model:\n  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-test\n`;
  return model + extra;
}

function envFor(home: string): NodeJS.ProcessEnv {
  return cleanEnv({ HERMES_HOME: home, ANTHROPIC_API_KEY: "test-key" });
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

/** Messages of a request in one comparable shape: cache markers removed (they move by design). */
function conversationOf(req: RecordedRequest): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>)
          .filter(([k]) => k !== "cache_control")
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  const body = req.body as { system?: unknown; messages: unknown[] };
  const msgs =
    req.protocol === "anthropic"
      ? [{ system: strip(body.system) }, ...(strip(body.messages) as unknown[])]
      : body.messages;
  return JSON.stringify(msgs);
}

/** Tool results the agent sent back in a request (the newest ones). */
function toolResultsIn(req: RecordedRequest): string[] {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> };
  if (req.protocol === "openai") {
    const out: string[] = [];
    for (let i = body.messages.length - 1; i >= 0 && body.messages[i]!.role === "tool"; i--) {
      out.unshift(String(body.messages[i]!.content));
    }
    return out;
  }
  const last = body.messages.at(-1) as { content: Array<{ type: string; content?: unknown }> };
  return (Array.isArray(last.content) ? last.content : [])
    .filter((b) => b.type === "tool_result")
    .map((b) => (typeof b.content === "string" ? b.content : JSON.stringify(b.content)));
}

describe.each<Protocol>(["openai", "anthropic"])("hermes CLI over %s wire protocol", (protocol) => {
  it("completes a 10-step task with terminal, read_file, write_file, patch and search_files", async () => {
    const box = sandbox(configFor(protocol));
    fake.enqueue(
      call("terminal", { command: "mkdir -p proj && cd proj && echo started > log.txt" }),
      call("write_file", {
        path: "app.py",
        content: "def greet(name):\n    return 'hello ' + name\n\nprint(greet('world'))\n",
      }),
      call("read_file", { path: "app.py" }),
      call("patch", { path: "app.py", old_string: "'hello '", new_string: "'Hello, '" }),
      call("search_files", { pattern: "def greet", target: "content", path: "." }),
      call("terminal", { command: "grep -c Hello app.py > out.txt" }),
      call("write_file", { path: "notes.md", content: "# Notes\nstatus: draft\n" }),
      call("search_files", { pattern: "*.md", target: "files" }),
      call("patch", { path: "notes.md", old_string: "status: draft", new_string: "status: done" }),
      call("terminal", { command: "ls > listing.txt" }),
      { text: "Done: app.py patched, notes.md written." },
    );
    const r = await runHermes(["-z", "set up the project"], { env: envFor(box.home), cwd: box.work });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Done: app.py patched, notes.md written.\n");
    const proj = join(box.work, "proj");
    expect(readFileSync(join(proj, "app.py"), "utf8")).toContain("return 'Hello, ' + name");
    expect(readFileSync(join(proj, "out.txt"), "utf8").trim()).toBe("1");
    expect(readFileSync(join(proj, "notes.md"), "utf8")).toBe("# Notes\nstatus: done\n");
    expect(readFileSync(join(proj, "listing.txt"), "utf8").split("\n")).toEqual(
      expect.arrayContaining(["app.py", "log.txt", "notes.md", "out.txt"]),
    );
    expect(fake.requests).toHaveLength(11);
    for (const req of fake.requests.slice(1)) {
      for (const result of toolResultsIn(req)) expect(result).not.toMatch(/^\{"error"/);
    }
    // read_file saw the file the terminal's `cd` pointed at, and search found it.
    expect(toolResultsIn(fake.requests[3]!)[0]).toContain("1|def greet(name):");
    expect(toolResultsIn(fake.requests[5]!)[0]).toContain("app.py");
  });

  it("sends every request as a byte-prefix extension of the previous one, with the same tools", async () => {
    const box = sandbox(configFor(protocol));
    fake.enqueue(
      call("terminal", { command: "echo one" }),
      call("read_file", { path: "missing.txt" }),
      call("terminal", { command: "echo three" }),
      { text: "finished" },
    );
    const r = await runHermes(["-z", "go"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    const convs = fake.requests.map(conversationOf);
    for (let i = 1; i < convs.length; i++) {
      expect(convs[i]!.startsWith(convs[i - 1]!.slice(0, -1))).toBe(true);
    }
    const tools = fake.requests.map((q) => JSON.stringify((q.body as { tools: unknown }).tools));
    expect(new Set(tools).size).toBe(1);
  });

  it("runs a parallel-safe batch concurrently and returns results in the model's order", async () => {
    const box = sandbox(configFor(protocol));
    writeFileSync(join(box.work, "a.txt"), "alpha\n");
    writeFileSync(join(box.work, "b.txt"), "beta\n");
    writeFileSync(join(box.work, "c.txt"), "gamma\n");
    fake.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "read_file", arguments: { path: "b.txt" } },
          { name: "search_files", arguments: { pattern: "gamma", path: "." } },
        ],
      },
      { text: "read them" },
    );
    const r = await runHermes(["-z", "read"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    const results = toolResultsIn(fake.requests[1]!);
    expect(results[0]).toContain("alpha");
    expect(results[1]).toContain("beta");
    expect(results[2]).toContain("c.txt");
    const log = readFileSync(join(box.home, "logs", "agent.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string; tool?: string; call?: string });
    const toolEvents = log.filter((l) => l.msg === "tool start" || l.msg === "tool end");
    const firstEnd = toolEvents.findIndex((l) => l.msg === "tool end");
    // All three started before the first one finished: they overlapped.
    expect(toolEvents.slice(0, firstEnd).filter((l) => l.msg === "tool start")).toHaveLength(3);
  });

  it("runs tool calls a local model wrote as text (<tool_call> tags) instead of dropping them", async () => {
    const box = sandbox(configFor(protocol));
    writeFileSync(join(box.work, "a.txt"), "alpha\n");
    fake.enqueue(
      {
        text: 'Reading it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>',
      },
      { text: "It says alpha." },
    );
    const r = await runHermes(["chat", "-q", "what is in a.txt?"], { env: envFor(box.home), cwd: box.work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("It says alpha.");
    expect(r.stderr).toContain("Ran 1 tool call the model wrote as text");
    expect(fake.requests).toHaveLength(2);
    const [result] = toolResultsIn(fake.requests[1]!);
    expect(result).toContain("1|alpha");
  });

  it("interrupt (SIGINT) stops a running sleep and exits", async () => {
    const box = sandbox(configFor(protocol));
    const marker = `sleep 29.${protocol.length}7`;
    fake.enqueue(call("terminal", { command: marker }), { text: "never reached" });
    const run = startHermes(["chat", "-q", "wait for it"], { env: envFor(box.home), cwd: box.work });
    await run.waitForStderr("terminal: sleep");
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    const ps = await runHermesPs(marker);
    expect(ps).not.toContain(marker);
  });

  it("ends budget exhaustion with the model's summary", async () => {
    const box = sandbox(configFor(protocol, "agent:\n  max_turns: 2\n"));
    fake.enqueue(call("terminal", { command: "echo 1" }), call("terminal", { command: "echo 2" }), {
      text: "Summary: ran two commands; more work remains.",
    });
    const r = await runHermes(["-z", "loop"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Summary: ran two commands; more work remains.\n");
    expect(toolResultsIn(fake.requests[2]!).at(-1)).toContain("Iteration limit reached");
  });

  it("survives malformed tool JSON, unknown tools, failing tools and a 2 MB file", async () => {
    const box = sandbox(configFor(protocol));
    writeFileSync(join(box.work, "big.txt"), `${"x".repeat(99)}\n`.repeat(21_000));
    fake.enqueue(
      { toolCalls: [{ name: "read_file", arguments: "{'path': 'big.txt',}" }] },
      call("teleport", { to: "mars" }),
      call("write_file", { path: "/proc/forbidden/x.txt", content: "no" }),
      call("read_file", { path: "big.txt", offset: 20_990 }),
      { text: "coped" },
    );
    const r = await runHermes(["-z", "stress"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("coped\n");
    const [repaired] = toolResultsIn(fake.requests[1]!);
    expect(repaired).toContain("1|xxx");
    expect(repaired!.length).toBeLessThan(150_000);
    expect(toolResultsIn(fake.requests[2]!)[0]).toContain("Unknown tool 'teleport'");
    expect(toolResultsIn(fake.requests[3]!)[0]).toMatch(/^\{"error"/);
    expect(toolResultsIn(fake.requests[4]!)[0]).toContain("21000|");
  });
});

describe("hermes CLI bad input", () => {
  it("reports an invalid config.yaml with file, line and key, without a stack trace", async () => {
    const box = sandbox("model:\n  default: x\nagent:\n  max_turns: lots\n");
    const r = await runHermes(["-z", "hi"], { env: envFor(box.home), cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("config.yaml:4");
    expect(r.stderr).toContain("agent.max_turns");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
  });

  it("explains how to configure a provider when none is set", async () => {
    const box = sandbox();
    const r = await runHermes(["-z", "hi"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("OPENROUTER_API_KEY");
    expect(r.stderr).toContain("model.base_url");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports an unreachable server clearly", async () => {
    const box = sandbox(
      "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\nagent:\n  api_max_retries: 0\n",
    );
    const r = await runHermes(["-z", "hi"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("127.0.0.1:9");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
  });

  it("prints the version and complete help", async () => {
    const box = sandbox();
    const v = await runHermes(["--version"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = await runHermes(["--help"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    for (const flag of [
      "--oneshot",
      "--model",
      "--provider",
      "--toolsets",
      "--yolo",
      "--profile",
      "chat",
      "config",
      "prompt-size",
    ]) {
      expect(h.stdout).toContain(flag);
    }
    // --help prints the text the build pre-rendered; `hermes help` has the CLI format it now.
    const formatted = await runHermes(["help"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(h.code).toBe(0);
    expect(formatted.code).toBe(0);
    expect(h.stdout).toBe(formatted.stdout);
    expect(
      (await runHermes(["-h"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work })).stdout,
    ).toBe(formatted.stdout);
  });

  it("prompt-size reports the system prompt and each enabled tool's schema", async () => {
    const box = sandbox();
    const env = cleanEnv({ HERMES_HOME: box.home, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    const r = await runHermes(["prompt-size", "-m", "gpt-5", "-t", "file"], { env, cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("system prompt");
    expect(r.stdout).toContain("read_file");
    expect(r.stdout).not.toContain("terminal ");
  });

  it("config set/show/path work against the profile's home", async () => {
    const box = sandbox();
    const env = cleanEnv({ HERMES_HOME: box.home });
    const set = await runHermes(["config", "set", "agent.max_turns", "42"], { env, cwd: box.work });
    expect(set.code).toBe(0);
    const show = await runHermes(["config", "show"], { env, cwd: box.work });
    expect(show.stdout).toContain("max_turns: 42");
    const path = await runHermes(["config", "path"], { env, cwd: box.work });
    expect(path.stdout.trim()).toBe(join(box.home, "config.yaml"));
    const bad = await runHermes(["config", "set", "agent.max_turns", "many"], { env, cwd: box.work });
    expect(bad.code).toBe(1);
    expect(readFileSync(join(box.home, "config.yaml"), "utf8")).toContain("42");
  });

  it("-p selects an isolated profile home under ~/.hermes/profiles", async () => {
    const box = sandbox();
    const env = cleanEnv({ HOME: box.home });
    const r = await runHermes(["-p", "work", "config", "path"], { env, cwd: box.work });
    expect(r.stdout.trim()).toBe(join(box.home, ".hermes", "profiles", "work", "config.yaml"));
    expect(existsSync(join(box.home, ".hermes", "profiles", "work", "logs"))).toBe(true);
  });
});

async function runHermesPs(marker: string): Promise<string> {
  const { execFileSync } = await import("node:child_process");
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(marker) && !l.includes("ps -eo"))
    .join("\n");
}
