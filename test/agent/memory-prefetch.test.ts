import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { type MemoryProvider, withProviderTimeout } from "../../src/agent/memory/index.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { echoRegistry } from "../support/echo-registry.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

const FACT = "The user's dog is called Biscuit.";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());
const environmentsToDispose: EnvironmentProvider[] = [];
afterEach(async () => {
  fake.requests.length = 0;
  for (const e of environmentsToDispose.splice(0)) await e.disposeAll();
});

/** A provider that recalls FACT and records what it was asked and told. */
function recordingProvider(overrides: Partial<MemoryProvider> = {}) {
  const queries: string[] = [];
  const turns: Array<[string, string]> = [];
  const provider: MemoryProvider = {
    name: "test-recall",
    systemPromptBlock: () => "",
    prefetch: async (query) => {
      queries.push(query);
      return FACT;
    },
    syncTurn: (user, assistant) => {
      turns.push([user, assistant]);
    },
    ...overrides,
  };
  return { provider, queries, turns };
}

function makeAgent(memoryProvider: MemoryProvider) {
  const home = tempDir("hermes-recall-");
  const registry = echoRegistry();
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  environmentsToDispose.push(environments);
  const events: AgentEvent[] = [];
  const agent = new Agent({
    target: {
      provider: "custom",
      apiMode: "chat_completions",
      model: "fake-model",
      baseUrl: fake.openaiBaseUrl,
      apiKey: "k",
    },
    registry,
    toolNames: new Set(["echo"]),
    config: structuredClone(DEFAULT_CONFIG),
    home,
    environments,
    maxRetries: 0,
    memoryProvider,
    onEvent: (e) => events.push(e),
  });
  return { agent, events };
}

type WireMessage = { role: string; content: unknown };
const wireMessages = (i: number): WireMessage[] => fake.requests[i]!.body.messages as WireMessage[];
const lastUser = (messages: WireMessage[]): WireMessage => messages.filter((m) => m.role === "user").at(-1)!;
const streamed = (events: AgentEvent[]): string =>
  events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");

describe("recalled memory in the request", () => {
  it("sends the fenced recall in the API copy of the user message only", async () => {
    const { provider, queries, turns } = recordingProvider();
    const { agent, events } = makeAgent(provider);
    fake.enqueue({ toolCalls: [{ name: "echo", arguments: { x: 1 } }] }, { text: "Biscuit, I believe." });

    const result = await agent.runConversation("What is my dog called?");
    expect(result.status).toBe("completed");
    expect(queries).toEqual(["What is my dog called?"]);
    expect(fake.requests).toHaveLength(2);

    const { systemPrompt } = await agent.prepareSession();
    for (const i of [0, 1]) {
      const messages = wireMessages(i);
      expect(messages[0]).toEqual({ role: "system", content: systemPrompt });
      const user = lastUser(messages).content as string;
      expect(user.startsWith("<memory-context>\n")).toBe(true);
      expect(user).toContain(`${FACT}\n</memory-context>\n\nWhat is my dog called?`);
    }
    expect(systemPrompt).not.toContain(FACT);

    // History, and the message events that feed the session store, never hold the recall.
    const stored = JSON.stringify(agent.messages);
    const persisted = JSON.stringify(events.filter((e) => e.type === "message"));
    for (const text of [stored, persisted]) {
      expect(text).not.toContain("memory-context");
      expect(text).not.toContain(FACT);
    }
    expect(agent.messages.find((m) => m.role === "user")).toEqual({
      role: "user",
      content: "What is my dog called?",
    });
    expect(turns).toEqual([["What is my dog called?", "Biscuit, I believe."]]);
  });

  it("recalls afresh for each request and leaves earlier user messages as they were", async () => {
    const { provider, queries } = recordingProvider();
    const { agent } = makeAgent(provider);
    fake.enqueue({ text: "one" }, { text: "two" });
    await agent.runConversation("first question");
    await agent.runConversation("second question");
    expect(queries).toEqual(["first question", "second question"]);
    const users = wireMessages(1).filter((m) => m.role === "user");
    expect(users[0]!.content).toBe("first question");
    expect(users[1]!.content).toMatch(/^<memory-context>[\s\S]*<\/memory-context>\n\nsecond question$/);
  });

  it("reports a failing recall or turn sync as a warning and still answers", async () => {
    const { provider } = recordingProvider({
      prefetch: async () => {
        throw new Error("index offline");
      },
      syncTurn: async () => {
        throw new Error("write refused");
      },
    });
    const { agent, events } = makeAgent(provider);
    fake.enqueue({ text: "answer without recall" });
    const result = await agent.runConversation("hello");
    expect(result).toMatchObject({ status: "completed", finalText: "answer without recall" });
    expect(lastUser(wireMessages(0)).content).toBe("hello");
    const warnings = events.flatMap((e) => (e.type === "status" && e.kind === "warning" ? [e.message] : []));
    expect(warnings).toEqual([
      "Memory provider test-recall: recall failed (index offline)",
      "Memory provider test-recall: turn sync failed (write refused)",
    ]);
  });

  it("sends no fence when nothing was recalled", async () => {
    const { provider } = recordingProvider({ prefetch: async () => "  " });
    const { agent } = makeAgent(provider);
    fake.enqueue({ text: "ok" });
    await agent.runConversation("hi");
    expect(lastUser(wireMessages(0)).content).toBe("hi");
  });
});

describe("a model that echoes the fence", () => {
  it("shows and stores none of it, even split over many stream chunks", async () => {
    const { provider, turns } = recordingProvider();
    const { agent, events } = makeAgent(provider);
    const echoed = `Sure.<memory-context>\n[recalled]\n${FACT}\n</memory-context> Biscuit it is.`;
    fake.enqueue({ text: echoed, chunkSize: 3 });

    const result = await agent.runConversation("What is my dog called?");
    expect(result.finalText).toBe("Sure. Biscuit it is.");
    const deltas = events.filter((e) => e.type === "text_delta");
    expect(deltas.length).toBeGreaterThan(5);
    expect(streamed(events)).toBe("Sure. Biscuit it is.");
    for (const d of deltas) {
      expect(d.text).not.toMatch(/[<>]|memory|recalled|Biscuit\.$/);
    }
    expect(agent.messages.at(-1)).toEqual({ role: "assistant", content: "Sure. Biscuit it is." });
    expect(JSON.stringify(agent.messages)).not.toContain(FACT);
    expect(turns).toEqual([["What is my dog called?", "Sure. Biscuit it is."]]);
  });

  it("keeps it out of the shown reasoning too, while the stored reasoning stays byte-exact", async () => {
    const { provider } = recordingProvider();
    const { agent, events } = makeAgent(provider);
    const reasoning = `Recall says <memory-context>\n${FACT}\n</memory-context> so answer.`;
    fake.enqueue({ reasoning, text: "Biscuit.", chunkSize: 4 });
    await agent.runConversation("What is my dog called?");
    const shown = events
      .filter((e) => e.type === "reasoning_delta")
      .map((e) => (e.type === "reasoning_delta" ? e.text : ""))
      .join("");
    expect(shown).toBe("Recall says  so answer.");
    const stored = agent.messages.at(-1) as { reasoning?: string };
    expect(stored.reasoning).toBe(reasoning);
  });
});

describe("withProviderTimeout", () => {
  it("gives up on a provider that never answers, and aborts its signal", async () => {
    let seen: AbortSignal | undefined;
    const never = (signal: AbortSignal) => {
      seen = signal;
      return new Promise<string>(() => {});
    };
    await expect(withProviderTimeout(never, undefined, 20)).rejects.toThrow("timed out after 0.02s");
    expect(seen?.aborted).toBe(true);
  });

  it("stops waiting when the request is interrupted", async () => {
    const parent = new AbortController();
    const pending = withProviderTimeout(() => new Promise<string>(() => {}), parent.signal, 60_000);
    parent.abort();
    await expect(pending).rejects.toThrow("interrupted");
  });
});
