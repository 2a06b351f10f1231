import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import { echoRegistry } from "../support/echo-registry.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());

/** Regression: a signed thinking block must come back to Anthropic exactly as it was received. */
describe("Anthropic thinking blocks through the agent", () => {
  it("replays turn 1's signed thinking block byte-identical in turn 2", async () => {
    const home = tempDir("hermes-thinking-");
    const registry = echoRegistry();
    const environments = createLocalEnvironmentProvider({ cwd: home, home });
    // Unicode, quotes and newlines: anything a re-serialisation could normalise.
    const reasoning = 'Plan: call echo with "x", then answer.\nÜnïcödé ✓ — done';
    fake.enqueue(
      { reasoning, toolCalls: [{ name: "echo", arguments: { x: 1 } }], chunkSize: 5 },
      { text: "echoed" },
    );
    const agent = new Agent({
      target: {
        provider: "anthropic",
        apiMode: "anthropic_messages",
        model: "claude-sonnet-4-6",
        baseUrl: fake.anthropicBaseUrl,
        apiKey: "k",
      },
      registry,
      toolNames: new Set(["echo"]),
      config: structuredClone(DEFAULT_CONFIG),
      home,
      environments,
      maxRetries: 0,
    });
    try {
      const r = await agent.runConversation("echo something");
      expect(r.status).toBe("completed");
      expect(fake.requests).toHaveLength(2);
    } finally {
      await environments.disposeAll();
    }
    const signature = `sig-${Buffer.from(reasoning).toString("base64").slice(0, 16)}`;
    const block = { type: "thinking", thinking: reasoning, signature };
    const second = fake.requests[1]!;
    const assistant = (second.body.messages as Array<{ role: string; content: unknown[] }>).find(
      (m) => m.role === "assistant",
    )!;
    // First block of the assistant turn, untouched, and no cache marker on it.
    expect(assistant.content[0]).toEqual(block);
    expect(second.rawBody).toContain(JSON.stringify(block));
  });
});
