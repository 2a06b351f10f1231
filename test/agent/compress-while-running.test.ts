import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config.js";
import type { ChatMessage, ModelTarget } from "../../src/llm/types.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";
import { tempDir } from "../support/temp.js";

let fake: FakeLlm;
const providers: EnvironmentProvider[] = [];
beforeEach(async () => {
  fake = await startFakeLlm();
});
afterEach(async () => {
  for (const p of providers.splice(0)) await p.disposeAll();
  await fake.close();
});

const SUMMARY = "## Active Task\nKeep going.\n\n## Completed Actions\n1. talked a lot";

/** Earlier conversation worth compressing: 15 exchanges of a few hundred characters each. */
const earlier = (): ChatMessage[] =>
  Array.from({ length: 15 }, (_, i): ChatMessage[] => [
    { role: "user", content: `question ${i}: ${"details ".repeat(40)}` },
    { role: "assistant", content: `answer ${i}: ${"findings ".repeat(40)}` },
  ]).flat();

function agentWith(turns: StreamTurn[]) {
  const home = tempDir("hermes-compress-race-");
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  let toolStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    toolStarted = resolve;
  });
  registry.register({
    name: "slow",
    toolset: "t",
    schema: { description: "slow", parameters: { type: "object", properties: {} } },
    handler: async () => {
      toolStarted();
      await new Promise((r) => setTimeout(r, 150));
      return '{"ok":true}';
    },
  });
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  providers.push(environments);
  const config: HermesConfig = structuredClone(DEFAULT_CONFIG);
  config.auxiliary.compression = {
    ...config.auxiliary.compression,
    provider: "custom",
    model: "aux-model",
    base_url: fake.openaiBaseUrl,
    api_key: "k",
  };
  const target: ModelTarget = {
    provider: "custom",
    apiMode: "chat_completions",
    model: "test-model",
    baseUrl: fake.openaiBaseUrl,
    apiKey: "k",
  };
  const stream = scriptedStream(turns);
  const agent = new Agent({
    target,
    registry,
    toolNames: new Set(registry.names()),
    config,
    home,
    environments,
    streamFn: stream.streamFn,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    systemPrompt: "You are a test agent.",
    history: earlier(),
  });
  return { agent, stream, toolStarted: started };
}

const texts = (messages: readonly ChatMessage[]): string[] =>
  messages.map((m) => (typeof m.content === "string" ? m.content : m.content === null ? "" : "[parts]"));

describe("/compress and a running request", () => {
  it("/compress while a request runs is refused, and every message of the request is kept", async () => {
    const { agent, toolStarted } = agentWith([
      { toolCalls: [{ name: "slow", arguments: {} }] },
      { text: "final answer" },
    ]);
    const run = agent.runConversation("new request");
    await toolStarted;
    const refused = await agent.compressContext("Manual compression");
    expect(refused).toMatchObject({
      ok: false,
      message: "A request is running; /compress after it finishes",
    });
    const r = await run;
    expect(r.finalText).toBe("final answer");
    expect(fake.requests).toHaveLength(0);
    const tail = agent.messages.slice(-4);
    expect(tail.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(texts(tail)).toEqual(["new request", "", '{"ok":true}', "final answer"]);
    expect(agent.messages).toHaveLength(1 + 30 + 4);

    // Once the request is over, the same command compresses, and the latest exchange survives it.
    fake.enqueue({ text: SUMMARY });
    const done = await agent.compressContext("Manual compression", "the request");
    expect(done.ok).toBe(true);
    expect(texts(agent.messages).join("\n")).toContain("final answer");
  });

  it("a request sent during /compress waits for it: the summary applies and the request follows it", async () => {
    const { agent, stream } = agentWith([{ text: "answer after the summary" }]);
    fake.enqueue({ text: SUMMARY, delayMs: 300 });
    const compression = agent.compressContext("Manual compression", "everything");
    const run = agent.runConversation("next question");
    const [outcome, result] = await Promise.all([compression, run]);
    expect(outcome.ok).toBe(true);
    expect(result.finalText).toBe("answer after the summary");
    // The model saw the compressed conversation, and the request is in the history after it.
    expect(stream.snapshots[0]).toContain("talked a lot");
    const all = texts(agent.messages);
    expect(all.slice(-2)).toEqual(["next question", "answer after the summary"]);
    expect(all.some((t) => t.includes("talked a lot"))).toBe(true);
  });

  it("a compression built from a history that changed meanwhile (/undo) is not applied", async () => {
    const { agent } = agentWith([]);
    fake.enqueue({ text: SUMMARY, delayMs: 300 });
    const compression = agent.compressContext("Manual compression", "everything");
    await new Promise((r) => setTimeout(r, 50));
    const undone = agent.rewindToLastUser();
    expect(undone?.removed).toBe(2);
    const afterUndo = texts(agent.messages);
    const outcome = await compression;
    expect(outcome.ok).toBe(false);
    expect(outcome.message).toMatch(/changed while it was being compressed/);
    expect(texts(agent.messages)).toEqual(afterUndo);
    expect(agent.messages).toHaveLength(1 + 28);
  });

  it("two /compress at once: the second is refused", async () => {
    const { agent } = agentWith([]);
    fake.enqueue({ text: SUMMARY, delayMs: 200 });
    const first = agent.compressContext("Manual compression", "everything");
    const second = await agent.compressContext("Manual compression");
    expect(second).toMatchObject({ ok: false, message: "A compression is already running" });
    expect((await first).ok).toBe(true);
  });
});
