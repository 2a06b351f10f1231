import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config.js";
import type { ModelTarget } from "../../src/llm/types.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";
import { tempDir } from "../support/temp.js";

const target: ModelTarget = {
  provider: "custom",
  apiMode: "chat_completions",
  model: "test-model",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k",
};

const schema = { description: "test tool", parameters: { type: "object", properties: {} } };
const providers: EnvironmentProvider[] = [];

afterEach(async () => {
  for (const p of providers.splice(0)) await p.disposeAll();
});

interface Harness {
  agent: Agent;
  events: AgentEvent[];
  log: string[];
  requests: ReturnType<typeof scriptedStream>;
}

function harness(
  turns: StreamTurn[],
  opts: { maxTurns?: number; config?: Partial<HermesConfig> } = {},
): Harness {
  const home = tempDir("hermes-agent-");
  const log: string[] = [];
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  const sleeper = (name: string) => async (args: Record<string, unknown>, ctx: ToolContext) => {
    log.push(`start:${name}:${String(args.tag)}`);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Number(args.ms ?? 30));
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      });
    });
    log.push(`end:${name}:${String(args.tag)}`);
    return JSON.stringify({ tag: args.tag });
  };
  registry.register({
    name: "slow_read",
    toolset: "t",
    schema,
    handler: sleeper("slow_read"),
    parallelSafe: true,
  });
  registry.register({ name: "slow_write", toolset: "t", schema, handler: sleeper("slow_write") });
  registry.register({
    name: "explode",
    toolset: "t",
    schema,
    handler: () => {
      throw new Error("kaboom");
    },
  });
  registry.register({
    name: "echo",
    toolset: "t",
    schema,
    handler: (args) => JSON.stringify(args),
    parallelSafe: true,
  });
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  providers.push(environments);
  const events: AgentEvent[] = [];
  const stream = scriptedStream(turns);
  const agent = new Agent({
    target,
    registry,
    toolNames: new Set(registry.names()),
    config: { ...structuredClone(DEFAULT_CONFIG), ...opts.config },
    home,
    environments,
    streamFn: stream.streamFn,
    maxTurns: opts.maxTurns,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    onEvent: (e) => events.push(e),
  });
  return { agent, events, log, requests: stream };
}

describe("Agent loop", () => {
  it("runs tool calls and returns the final text", async () => {
    const h = harness([{ toolCalls: [{ name: "echo", arguments: { a: 1 } }] }, { text: "all done" }]);
    const r = await h.agent.runConversation("hi");
    expect(r.status).toBe("completed");
    expect(r.finalText).toBe("all done");
    const roles = h.agent.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(h.agent.messages[3]!.content).toBe('{"a":1}');
  });

  it("runs a parallel-safe batch concurrently and keeps the model's order", async () => {
    const h = harness([
      {
        toolCalls: [
          { name: "slow_read", arguments: { tag: "A", ms: 80 } },
          { name: "slow_read", arguments: { tag: "B", ms: 10 } },
        ],
      },
      { text: "ok" },
    ]);
    await h.agent.runConversation("go");
    // B starts before A ends: observable overlap.
    expect(h.log.indexOf("start:slow_read:B")).toBeLessThan(h.log.indexOf("end:slow_read:A"));
    const tools = h.agent.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => JSON.parse(m.content as string).tag)).toEqual(["A", "B"]);
  });

  it("runs unsafe tools sequentially", async () => {
    const h = harness([
      {
        toolCalls: [
          { name: "slow_write", arguments: { tag: "A", ms: 30 } },
          { name: "slow_read", arguments: { tag: "B", ms: 1 } },
        ],
      },
      { text: "ok" },
    ]);
    await h.agent.runConversation("go");
    expect(h.log).toEqual(["start:slow_write:A", "end:slow_write:A", "start:slow_read:B", "end:slow_read:B"]);
  });

  it("answers unknown tools with the list of available ones and repairs name case", async () => {
    const h = harness([
      {
        toolCalls: [
          { name: "teleport", arguments: {} },
          { name: "ECHO", arguments: { x: 2 } },
        ],
      },
      { text: "ok" },
    ]);
    await h.agent.runConversation("go");
    const tools = h.agent.messages.filter((m) => m.role === "tool").map((m) => m.content as string);
    expect(tools[0]).toContain("Unknown tool 'teleport'");
    expect(tools[0]).toContain("echo");
    expect(tools[1]).toBe('{"x":2}');
    const assistant = h.agent.messages[2];
    expect(assistant?.role === "assistant" && assistant.tool_calls?.[1]?.function.name).toBe("echo");
  });

  it("repairs malformed tool JSON and keeps the history valid JSON", async () => {
    const h = harness([{ toolCalls: [{ name: "echo", arguments: "{'path': 'a.txt',}" }] }, { text: "ok" }]);
    await h.agent.runConversation("go");
    const assistant = h.agent.messages[2];
    if (assistant?.role !== "assistant") throw new Error("expected assistant");
    const args = assistant.tool_calls![0]!.function.arguments;
    expect(JSON.parse(args)).toEqual({ path: "a.txt" });
    // The second request carries the repaired arguments.
    expect(h.requests.snapshots[1]).toContain(JSON.stringify(args));
  });

  it("turns a throwing tool into an error result and keeps going", async () => {
    const h = harness([{ toolCalls: [{ name: "explode", arguments: {} }] }, { text: "recovered" }]);
    const r = await h.agent.runConversation("go");
    expect(r.finalText).toBe("recovered");
    const tool = h.agent.messages.find((m) => m.role === "tool");
    expect(JSON.parse(tool!.content as string).error).toContain("kaboom");
  });

  it("ends budget exhaustion with one grace call that summarises", async () => {
    const loopForever: StreamTurn = { toolCalls: [{ name: "echo", arguments: { again: true } }] };
    const h = harness([loopForever, loopForever, { text: "Summary: I echoed twice." }], { maxTurns: 2 });
    const r = await h.agent.runConversation("loop");
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("Summary: I echoed twice.");
    expect(h.requests.requests).toHaveLength(3);
    const lastTool = [...h.agent.messages].reverse().find((m) => m.role === "tool");
    expect(lastTool!.content).toContain("Iteration limit reached");
  });

  it("forces a tool-free summary when the grace call still asks for tools", async () => {
    const loopForever: StreamTurn = { toolCalls: [{ name: "echo", arguments: {} }] };
    const h = harness([loopForever, loopForever, { text: "Forced summary." }], { maxTurns: 1 });
    const r = await h.agent.runConversation("loop");
    expect(r.status).toBe("budget_exhausted");
    expect(r.finalText).toBe("Forced summary.");
    const roles = h.agent.messages.map((m) => m.role);
    expect(roles.slice(-3)).toEqual(["tool", "user", "assistant"]);
  });

  it("interrupt aborts a hung model call", async () => {
    const h = harness([{ hang: true }]);
    const run = h.agent.runConversation("wait");
    setTimeout(() => h.agent.interrupt(), 20);
    const r = await run;
    expect(r.status).toBe("interrupted");
  });

  it("interrupt aborts running tools", async () => {
    const h = harness([{ toolCalls: [{ name: "slow_write", arguments: { tag: "A", ms: 60_000 } }] }]);
    const run = h.agent.runConversation("wait");
    setTimeout(() => h.agent.interrupt(), 50);
    const r = await run;
    expect(r.status).toBe("interrupted");
    expect(h.log).toContain("end:slow_write:A");
  });

  it("steer rides on the next tool result", async () => {
    const h = harness([
      { toolCalls: [{ name: "slow_read", arguments: { tag: "A", ms: 50 } }] },
      { text: "ok" },
    ]);
    const run = h.agent.runConversation("go");
    setTimeout(() => h.agent.steer("focus on the tests"), 10);
    await run;
    const tool = h.agent.messages.find((m) => m.role === "tool");
    expect(tool!.content).toContain("focus on the tests");
  });

  it("retries retryable errors and reports them as status events", async () => {
    const transient = {
      reason: "server_error" as const,
      message: "HTTP 500",
      retryable: true,
      shouldCompress: false,
      shouldRotateCredential: false,
      shouldFallback: false,
    };
    const h = harness([{ error: transient }, { text: "fine" }]);
    const r = await h.agent.runConversation("go");
    expect(r.finalText).toBe("fine");
    expect(
      h.events.some((e) => e.type === "status" && e.kind === "retry" && e.message.includes("server_error")),
    ).toBe(true);
  });

  it("fails cleanly on a non-retryable error", async () => {
    const h = harness([
      {
        error: {
          reason: "auth",
          message: "invalid api key",
          retryable: false,
          shouldCompress: false,
          shouldRotateCredential: true,
          shouldFallback: false,
        },
      },
    ]);
    const r = await h.agent.runConversation("go");
    expect(r.status).toBe("failed");
    expect(r.error?.message).toMatch(/^invalid api key\nCheck the API key for custom/);
  });

  it("keeps every request a prefix-extension of the previous one", async () => {
    const h = harness([
      { toolCalls: [{ name: "echo", arguments: { n: 1 } }] },
      { toolCalls: [{ name: "echo", arguments: { n: 2 } }] },
      { text: "first answer" },
      { text: "second answer" },
    ]);
    await h.agent.runConversation("one");
    await h.agent.runConversation("two");
    const snaps = h.requests.snapshots;
    for (let i = 1; i < snaps.length; i++) {
      expect(snaps[i]!.startsWith(snaps[i - 1]!.slice(0, -1))).toBe(true);
    }
    const tools = h.requests.requests.map((r) => JSON.stringify(r.tools));
    expect(new Set(tools).size).toBe(1);
  });
});
