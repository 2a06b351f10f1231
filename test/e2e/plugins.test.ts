import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { entryModule, writePlugin } from "../plugins/support.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const toolNames = (r: RecordedRequest): string[] =>
  ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const agentLog = (home: string): string => readFileSync(join(home, "logs", "agent.log"), "utf8");

/** A plugin with a tool, a command and an entry that records its own import. */
const GREETER = `name: greeter
version: 2.0.0
description: Greets people.
entry: index.mjs
tools:
  - name: greet
    description: Greet someone by name.
    parameters: {type: object, properties: {name: {type: string}}, required: [name]}
commands:
  - name: hello
    description: Say hello from the command line.
`;
const GREETER_ENTRY = entryModule(`
  api.registerTool({ name: "greet", handler: ({ name }) => "Hello, " + name + "!" });
  api.registerCommand({ name: "hello", handler: (args) => "hello " + args.join(" ") });
`);

describe("plugins through the CLI", () => {
  it("a scaffolded plugin adds a tool and a post_tool_call hook that work end to end", async () => {
    const box = sandbox(`# my settings\n${openaiConfig(fake)}agent:\n  max_turns: 30 # keep\n`);
    const before = readFileSync(join(box.home, "config.yaml"), "utf8");
    const env = cleanEnv({ HERMES_HOME: box.home });
    const created = await runHermes(["plugins", "create", "demo"], { env, cwd: box.work });
    expect(created.code).toBe(0);
    const dir = join(box.home, "plugins", "demo");
    expect(created.stdout).toContain(`Created the plugin demo in ${dir}`);

    // Its own test passes where it was created.
    const ownTest = spawnSync(process.execPath, ["--test"], { cwd: dir, encoding: "utf8" });
    expect(ownTest.status, ownTest.stdout + ownTest.stderr).toBe(0);
    expect(ownTest.stdout).toMatch(/pass 2\b/);

    const listed = await runHermes(["plugins", "list"], { env, cwd: box.work });
    expect(listed.stdout).toMatch(
      /demo\s+0\.1\.0\s+user\s+available\s+1 tool \(demo_word_count\); hooks: post_tool_call/,
    );

    const enabled = await runHermes(["plugins", "enable", "demo"], { env, cwd: box.work });
    expect(enabled.code).toBe(0);
    // The rest of config.yaml stays as written, comments included.
    const after = readFileSync(join(box.home, "config.yaml"), "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe("plugins:\n  enabled:\n    - demo\n");

    fake.enqueue(
      { toolCalls: [{ name: "demo_word_count", arguments: { text: "the quick brown fox" } }] },
      { text: "Four words." },
    );
    const run = await runHermes(["-z", "count the words of: the quick brown fox"], { env, cwd: box.work });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Four words.\n");
    expect(toolNames(fake.requests[0]!)).toContain("demo_word_count");
    expect(toolMessagesOf(fake.requests[1]!).at(-1)?.content).toBe('{"words":4,"characters":19}');
    const log = readFileSync(join(dir, "tool-calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(log).toEqual([{ tool: "demo_word_count", ok: true, ms: expect.any(Number) }]);

    const removed = await runHermes(["plugins", "remove", "demo"], { env, cwd: box.work });
    expect(removed).toMatchObject({ code: 0, stdout: "Removed demo.\n" });
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(box.home, "config.yaml"), "utf8")).toBe(`${before}plugins:\n  enabled: []\n`);
  });

  it("the entry is not imported while none of its tools, hooks or commands are used", async () => {
    const box = sandbox(`${openaiConfig(fake)}plugins:\n  enabled: [greeter]\n`);
    const env = cleanEnv({ HERMES_HOME: box.home });
    const dir = writePlugin(join(box.home, "plugins"), "greeter", GREETER, { "index.mjs": GREETER_ENTRY });
    const imported = join(dir, "imported.txt");

    fake.enqueue({ text: "Nothing to greet." });
    const plain = await runHermes(["-z", "hi"], { env, cwd: box.work });
    expect(plain.code).toBe(0);
    // The request lists the tool from the manifest alone.
    expect(toolNames(fake.requests[0]!)).toContain("greet");
    await runHermes(["plugins", "list"], { env, cwd: box.work });
    expect(existsSync(imported)).toBe(false);

    fake.enqueue({ toolCalls: [{ name: "greet", arguments: { name: "Ada" } }] }, { text: "Greeted." });
    const used = await runHermes(["-z", "greet Ada"], { env, cwd: box.work });
    expect(used.code).toBe(0);
    expect(toolMessagesOf(fake.requests.at(-1)!).at(-1)?.content).toBe("Hello, Ada!");
    expect(readFileSync(imported, "utf8")).toBe("imported\n");

    // hermes <plugin> <verb> runs a command of it, without a provider.
    const verb = await runHermes(["greeter", "hello", "from", "cli"], { env, cwd: box.work });
    expect(verb).toMatchObject({ code: 0, stdout: "hello from cli\n" });

    // plugins.disabled wins over plugins.enabled.
    expect((await runHermes(["plugins", "disable", "greeter"], { env, cwd: box.work })).code).toBe(0);
    fake.enqueue({ text: "ok" });
    await runHermes(["-z", "hi"], { env, cwd: box.work });
    expect(toolNames(fake.requests.at(-1)!)).not.toContain("greet");
  });

  it("project plugins load only with HERMES_ENABLE_PROJECT_PLUGINS=1", async () => {
    const box = sandbox(`${openaiConfig(fake)}plugins:\n  enabled: [greeter]\n`);
    const dir = writePlugin(join(box.work, ".hermes", "plugins"), "greeter", GREETER, {
      "index.mjs": GREETER_ENTRY,
    });
    fake.enqueue({ text: "a" }, { text: "b" });
    await runHermes(["-z", "hi"], { env: cleanEnv({ HERMES_HOME: box.home }), cwd: box.work });
    expect(toolNames(fake.requests[0]!)).not.toContain("greet");
    await runHermes(["-z", "hi"], {
      env: cleanEnv({ HERMES_HOME: box.home, HERMES_ENABLE_PROJECT_PLUGINS: "1" }),
      cwd: box.work,
    });
    expect(toolNames(fake.requests[1]!)).toContain("greet");
    expect(existsSync(join(dir, "imported.txt"))).toBe(false);
  });

  it("a throwing plugin hook and a hanging shell hook leave the turn intact and are logged by name", async () => {
    const hooksYaml = "hooks:\n  timeout: 1\n  post_tool_call:\n    - sleep 20\n";
    const box = sandbox(`${openaiConfig(fake)}plugins:\n  enabled: [thrower]\n${hooksYaml}`);
    writePlugin(
      join(box.home, "plugins"),
      "thrower",
      "name: thrower\nentry: index.mjs\nhooks: [post_tool_call]\n",
      {
        "index.mjs": entryModule(`api.on("post_tool_call", () => { throw new Error("hook bug"); });`),
      },
    );
    writeFileSync(join(box.work, "notes.txt"), "remember the milk\n");
    const env = cleanEnv({ HERMES_HOME: box.home });
    fake.enqueue({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "Milk." });
    const run = await runHermes(["-z", "what is in notes.txt?"], { env, cwd: box.work });
    expect(run).toMatchObject({ code: 0, stdout: "Milk.\n", stderr: "" });
    expect(toolMessagesOf(fake.requests[1]!).at(-1)?.content).toContain("remember the milk");
    const log = agentLog(box.home);
    expect(log).toContain("hook post_tool_call (plugin:thrower) failed: hook bug");
    expect(log).toContain("hook post_tool_call (sleep 20) did not finish within 1 s; skipped");
  });

  it("shell hooks block a call with a reason the model reads, rewrite arguments and replace results", async () => {
    const hooksYaml = [
      "hooks:",
      "  pre_tool_call:",
      `    - command: "echo '{\\"action\\": \\"block\\", \\"message\\": \\"reading files is off today\\"}'"`,
      "      matcher: read_file",
      `    - command: "echo '{\\"action\\": \\"modify\\", \\"args\\": {\\"name\\": \\"Grace\\"}}'"`,
      "      matcher: greet",
      "  transform_tool_result:",
      `    - command: "echo '{\\"result\\": \\"[terminal output withheld]\\"}'"`,
      "      matcher: terminal",
      "",
    ].join("\n");
    const box = sandbox(`${openaiConfig(fake)}plugins:\n  enabled: [greeter]\n${hooksYaml}`);
    writePlugin(join(box.home, "plugins"), "greeter", GREETER, { "index.mjs": GREETER_ENTRY });
    mkdirSync(join(box.work, "sub"), { recursive: true });
    const env = cleanEnv({ HERMES_HOME: box.home });
    fake.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "sub/x.txt" } },
          { name: "greet", arguments: { name: "Ada" } },
          { name: "terminal", arguments: { command: "echo visible" } },
        ],
      },
      { text: "Done." },
    );
    const run = await runHermes(["-z", "do three things"], { env, cwd: box.work });
    expect(run.code).toBe(0);
    const results = toolMessagesOf(fake.requests[1]!).map((m) => m.content);
    expect(results).toEqual([
      '{"error":"reading files is off today"}',
      "Hello, Grace!",
      "[terminal output withheld]",
    ]);
  });
});
