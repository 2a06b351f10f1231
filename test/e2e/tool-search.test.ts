/**
 * The tool search bridge in runs of the real binary: an MCP server with 300 tools (the project's
 * SDK fixture) joins the session behind tool_search / tool_describe / tool_call, the scripted
 * model finds one of them by searching and calls it through the bridge, and `hermes prompt-size`
 * says so.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, type Sandbox, sandbox } from "../support/cli.js";
import { openaiConfig, toolMessagesOf, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "mcp", "server.mjs");
const BRIDGE = ["tool_call", "tool_describe", "tool_search"];

/**
 * config.yaml with the 300-tool server (unless `servers` is false). Its schemas come to ~12 000
 * tokens: a 64 000-token window puts them well past the default 10 % threshold. The generous
 * discovery timeout keeps a busy machine from sending the first request before the server is up.
 */
const config = (servers = true, extra = ""): string =>
  openaiConfig(
    fake,
    `  context_length: 64000\nmcp_discovery_timeout: 30\nagent:\n  api_max_retries: 0\n${extra}` +
      (servers
        ? `mcp_servers:\n  many:\n    command: ${process.execPath}\n    args: [${JSON.stringify(FIXTURE)}, "many"]\n`
        : ""),
  );

const env = (box: Sandbox) => cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key" });
const toolNames = (r: RecordedRequest): string[] =>
  ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const lastTool = (r: RecordedRequest): string => String(toolMessagesOf(r).at(-1)?.content);

describe("tool search through the CLI", () => {
  it("300 MCP tools leave the request; the model searches, then calls the one it found", async () => {
    const box = sandbox(config());
    let found: string | undefined;
    // The model's side: search, then call whatever the search ranked first, then answer.
    fake.setResponder((req): ScriptedTurn => {
      const turn = toolMessagesOf(req).length;
      if (turn === 0)
        return { toolCalls: [{ name: "tool_search", arguments: { query: "fixture tool 042" } }] };
      if (turn === 1) {
        found = (JSON.parse(lastTool(req)) as { matches: Array<{ name: string }> }).matches[0]?.name;
        return { toolCalls: [{ name: "tool_call", arguments: { name: found, arguments: { value: "hi" } } }] };
      }
      return { text: `result: ${lastTool(req)}` };
    });
    const r = await runHermes(["-z", "use fixture tool 42"], { env: env(box), cwd: box.work });
    expect(r.stderr).toBe("");
    expect(found).toBe("mcp_many_tool_042");
    expect(r.stdout).toBe("result: tool_042:hi\n");
    const names = toolNames(fake.requests[0]!);
    expect(names).toEqual(expect.arrayContaining([...BRIDGE, "terminal", "read_file"]));
    expect(names.filter((n) => n.startsWith("mcp_"))).toEqual([]);

    // Without the server the same run lists the same tools, less the bridge.
    const plain = sandbox(config(false));
    fake.setResponder(() => ({ text: "ok" }));
    const before = fake.requests.length;
    expect((await runHermes(["-z", "hi"], { env: env(plain), cwd: plain.work })).code).toBe(0);
    expect(toolNames(fake.requests[before]!)).toEqual(names.filter((n) => !BRIDGE.includes(n)));
  });

  it("tools.tool_search.enabled: off sends all 300 schemas", async () => {
    const box = sandbox(config(true, "tools:\n  tool_search:\n    enabled: off\n"));
    fake.setResponder(() => ({ text: "ok" }));
    expect((await runHermes(["-z", "hi"], { env: env(box), cwd: box.work })).code).toBe(0);
    const names = toolNames(fake.requests[0]!);
    expect(names.filter((n) => n.startsWith("mcp_many_tool_"))).toHaveLength(300);
    expect(names).not.toContain("tool_search");
  });

  it("hermes prompt-size shows the bridge in place of the deferred schemas", async () => {
    // The server's 300 numbered tools and its echo, pid and env.
    const box = sandbox(config());
    const r = await runHermes(["prompt-size"], { env: env(box), cwd: box.work });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Tool search: on \(auto\): 303 MCP\/plugin tools \(~[\d,]+ tokens\) behind tool_search, tool_describe and tool_call; 10% of the 64,000-token context is 6,400/,
    );
    expect(r.stdout).toMatch(/^ {2}tool_search +\d+ chars/m);
    expect(r.stdout).not.toContain("mcp_many_tool_000");
  });
});
