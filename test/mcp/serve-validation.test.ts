/**
 * `hermes mcp serve` (the built binary, driven by the SDK's client) checks every call's arguments
 * against the tool's own input schema before it runs anything.
 */
import { describe, expect, it } from "vitest";
import { cleanEnv, runHermes, type Sandbox, sandbox } from "../support/cli.js";
import { openaiConfig, useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";
import { callText, connectServe } from "./support.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

const env = (box: Sandbox) => cleanEnv({ HERMES_HOME: box.home, OPENAI_API_KEY: "test-key" });
const connect = (box: Sandbox) => connectServe(env(box), box.work);

describe("hermes mcp serve checks arguments against its input schemas", () => {
  it("answers a bad argument with an MCP error naming the field and the rule, and runs nothing", async () => {
    const box = sandbox(openaiConfig(fake, "agent:\n  api_max_retries: 0\n"));
    fake.enqueue({ text: "stored answer" });
    expect((await runHermes(["-z", "remember this"], { env: env(box), cwd: box.work })).code).toBe(0);
    const client = await connect(box);
    const refused = async (name: string, args: Record<string, unknown>): Promise<string> => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError).toBe(true);
      return callText(r);
    };

    expect(await refused("sessions_list", { limit: -5 })).toBe(
      "MCP error -32602: Invalid arguments for sessions_list: 'limit' must be >= 1, got -5.",
    );
    expect(await refused("sessions_list", { limit: 500 })).toBe(
      "MCP error -32602: Invalid arguments for sessions_list: 'limit' must be <= 200, got 500.",
    );
    expect(await refused("sessions_list", { limit: "ten" })).toBe(
      `MCP error -32602: Invalid arguments for sessions_list: 'limit' must be an integer, got "ten".`,
    );
    expect(await refused("memory_read", { target: "everything" })).toBe(
      `MCP error -32602: Invalid arguments for memory_read: 'target' must be one of "memory", "user", "both", got "everything".`,
    );
    expect(await refused("session_read", {})).toBe(
      "MCP error -32602: Invalid arguments for session_read: 'session_id' is required (string).",
    );
    expect(await refused("session_search", { sort: "newest", window: 99 })).toMatch(
      /^MCP error -32602: Invalid arguments for session_search: 'sort' must be one of "relevance", "recency", got "newest"; 'window' must be <= \d+, got 99\.$/,
    );
    const before = fake.requests.length;
    expect(await refused("run_prompt", { prompt: 42 })).toBe(
      "MCP error -32602: Invalid arguments for run_prompt: 'prompt' must be a string, got 42.",
    );
    expect(fake.requests.length).toBe(before);

    // Good arguments still run.
    const listed = await client.callTool({ name: "sessions_list", arguments: { limit: 1 } });
    expect(listed.isError).toBeFalsy();
    expect(JSON.parse(callText(listed)).count).toBe(1);
    expect(
      JSON.parse(callText(await client.callTool({ name: "memory_read", arguments: { target: "user" } }))),
    ).toEqual({
      user: [],
    });
  });
});
