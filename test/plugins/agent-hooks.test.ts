import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import {
  HookBus,
  type HookHandler,
  type HookName,
  type HookPayload,
  type HookProblem,
} from "../../src/agent/hooks.js";
import { approveWithHooks } from "../../src/agent/hooks-session.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import type { ModelTarget } from "../../src/llm/types.js";
import type { ApprovalRequest } from "../../src/tools/approval/types.js";
import { registerDelegateTool } from "../../src/tools/builtin/delegate.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import type { EnvironmentProvider } from "../../src/tools/environments/types.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { startFakeLlm } from "../support/fake-llm.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";
import { tempDir } from "../support/temp.js";

const target: ModelTarget = {
  provider: "custom",
  apiMode: "chat_completions",
  model: "test-model",
  baseUrl: "http://127.0.0.1:1/v1",
  apiKey: "k",
};
const providers: EnvironmentProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) await p.disposeAll();
});

function harness(
  turns: StreamTurn[],
  register: (on: (name: HookName, handler: HookHandler) => void) => void,
) {
  const home = tempDir("hermes-agent-hooks-");
  const calls: Array<Record<string, unknown>> = [];
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registry.register({
    name: "lookup",
    toolset: "t",
    schema: {
      description: "look something up",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
    handler: (args) => {
      calls.push(args);
      return JSON.stringify({ found: args.q });
    },
  });
  const problems: HookProblem[] = [];
  const fired: Array<[HookName, HookPayload]> = [];
  const hooks = new HookBus({ timeoutMs: 2000, report: (p) => problems.push(p) });
  register((name, handler) => hooks.on({ name, label: `test:${name}`, handler }));
  // Records every hook firing (after the handlers under test, which registered first).
  for (const name of hooks.names())
    hooks.on({ name, label: "recorder", handler: (p) => void fired.push([name, p]) });
  const environments = createLocalEnvironmentProvider({ cwd: home, home });
  providers.push(environments);
  const stream = scriptedStream(turns);
  const agent = new Agent({
    target,
    registry,
    toolNames: new Set(["lookup"]),
    config: structuredClone(DEFAULT_CONFIG),
    home,
    environments,
    streamFn: stream.streamFn,
    hooks,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
  });
  return { agent, calls, problems, fired, stream };
}

const toolMessages = (agent: Agent) => agent.messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("hooks in the agent", () => {
  it("pre_tool_call blocks a call: the tool does not run and the model reads the reason", async () => {
    const h = harness(
      [{ toolCalls: [{ name: "lookup", arguments: { q: "secrets" } }] }, { text: "understood" }],
      (on) =>
        on("pre_tool_call", (p) =>
          p.tool_name === "lookup" ? { action: "block", message: "lookups are off today" } : undefined,
        ),
    );
    const r = await h.agent.runConversation("find it");
    expect(r.status).toBe("completed");
    expect(h.calls).toEqual([]);
    expect(toolMessages(h.agent)).toEqual(['{"error":"lookups are off today"}']);
    // The next request carries it to the model.
    expect(JSON.stringify(h.stream.requests[1]?.messages)).toContain("lookups are off today");
  });

  it("pre_tool_call rewrites arguments; post_tool_call sees the call as it ran", async () => {
    const h = harness(
      [{ toolCalls: [{ name: "lookup", arguments: { q: "cat" }, id: "call_7" }] }, { text: "ok" }],
      (on) => {
        on("pre_tool_call", (p) => ({ action: "modify", args: { q: `${(p.args as { q: string }).q}s` } }));
        on("post_tool_call", () => undefined);
      },
    );
    await h.agent.runConversation("go");
    expect(h.calls).toEqual([{ q: "cats" }]);
    const post = h.fired.find(([n]) => n === "post_tool_call")?.[1];
    expect(post).toMatchObject({
      tool_name: "lookup",
      args: { q: "cats" },
      result: '{"found":"cats"}',
      is_error: false,
      tool_call_id: "call_7",
      session_id: h.agent.sessionId,
    });
    expect(typeof post?.duration_ms).toBe("number");
  });

  it("transform_tool_result replaces what the model reads, redacted like the tool's own text", async () => {
    const h = harness([{ toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, { text: "ok" }], (on) =>
      on(
        "transform_tool_result",
        (p) => `summary of ${p.result} OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx123456`,
      ),
    );
    await h.agent.runConversation("go");
    const [text] = toolMessages(h.agent);
    expect(text).toMatch(/^summary of \{"found":"x"\} OPENAI_API_KEY=/);
    expect(text).not.toContain("abcdefghijklmnopqrstuvwx123456");
  });

  it("a throwing hook leaves the turn as it would have been", async () => {
    const boom = () => {
      throw new Error("hook bug");
    };
    const h = harness(
      [{ toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, { text: "done" }],
      (on) => {
        for (const name of [
          "pre_tool_call",
          "post_tool_call",
          "transform_tool_result",
          "pre_llm_call",
          "post_llm_call",
          "transform_llm_output",
          "pre_api_request",
          "on_session_start",
        ] as const)
          on(name, boom);
      },
    );
    const r = await h.agent.runConversation("go");
    expect(r).toMatchObject({ status: "completed", finalText: "done" });
    expect(toolMessages(h.agent)).toEqual(['{"found":"x"}']);
    expect(h.problems.length).toBeGreaterThanOrEqual(8);
    expect(h.problems.every((p) => p.message === "failed: hook bug" && p.label === `test:${p.hook}`)).toBe(
      true,
    );
  });

  it("session and model hooks fire in order; pre_llm_call context rides only on the request", async () => {
    const h = harness([{ text: "the answer" }], (on) => {
      on("on_session_start", () => undefined);
      on("pre_llm_call", () => ({ context: "Today is a holiday." }));
      on("pre_api_request", () => undefined);
      on("post_api_request", () => undefined);
      on("post_llm_call", () => undefined);
      on("transform_llm_output", (p) => `${p.response_text}!`);
      on("on_session_end", () => undefined);
      on("on_session_finalize", () => undefined);
      on("on_session_reset", () => undefined);
    });
    const r = await h.agent.runConversation("question");
    await h.agent.close("new_session");
    expect(h.fired.map(([n]) => n)).toEqual([
      "on_session_start",
      "pre_llm_call",
      "pre_api_request",
      "post_api_request",
      "transform_llm_output",
      "post_llm_call",
      "on_session_end",
      "on_session_finalize",
      "on_session_reset",
    ]);
    // The user receives the transformed text; the history keeps the model's.
    expect(r.finalText).toBe("the answer!");
    expect(h.agent.messages.at(-1)).toEqual({ role: "assistant", content: "the answer" });
    const sent = JSON.stringify(h.stream.requests[0]?.messages);
    expect(sent).toContain("Today is a holiday.");
    expect(JSON.stringify(h.agent.messages)).not.toContain("Today is a holiday.");
    const [, start] = h.fired[0]!;
    expect(start).toEqual({ session_id: h.agent.sessionId, model: "test-model", platform: "cli" });
    expect(h.fired[2]?.[1]).toMatchObject({
      model: "test-model",
      provider: "custom",
      attempt: 1,
      message_count: 2,
      tool_count: 1,
    });
    expect(h.fired[3]?.[1]).toMatchObject({ finish_reason: "stop", usage: { inputTokens: 100 } });
    expect(h.fired.find(([n]) => n === "post_llm_call")?.[1]).toMatchObject({
      user_message: "question",
      assistant_response: "the answer!",
    });
    expect(h.fired.at(-1)?.[1]).toMatchObject({ reason: "new_session" });
  });

  it("api_request_error reports a failed attempt", async () => {
    const error = {
      reason: "auth" as const,
      message: "bad key",
      status: 401,
      retryable: false,
      shouldCompress: false,
      shouldRotateCredential: false,
      shouldFallback: false,
    };
    const h = harness([{ error }], (on) => on("api_request_error", () => undefined));
    await h.agent.runConversation("q");
    expect(h.fired[0]?.[1]).toMatchObject({
      error: { reason: "auth", message: "bad key", status: 401 },
      retryable: false,
    });
  });
});

describe("subagents and prompt sections", () => {
  it("subagent_start and subagent_stop frame a child, whose own tool calls pass the same hooks", async () => {
    const fake = await startFakeLlm();
    try {
      const home = tempDir("hermes-agent-hooks-deleg-");
      const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
      registerDelegateTool(registry, DEFAULT_CONFIG);
      registry.register({
        name: "lookup",
        toolset: "t",
        schema: { description: "look up", parameters: { type: "object", properties: {} } },
        handler: () => "found",
      });
      const fired: Array<[HookName, HookPayload]> = [];
      const hooks = new HookBus({ timeoutMs: 2000, report: () => {} });
      for (const name of ["subagent_start", "subagent_stop", "pre_tool_call"] as const)
        hooks.on({ name, label: "t", handler: (p) => void fired.push([name, p]) });
      const environments = createLocalEnvironmentProvider({ cwd: home, home });
      providers.push(environments);
      fake.enqueue(
        { toolCalls: [{ name: "delegate_task", arguments: { goal: "look it up" } }] },
        { toolCalls: [{ name: "lookup", arguments: {} }] },
        { text: "child found it" },
        { text: "parent done" },
      );
      const agent = new Agent({
        target: { ...target, baseUrl: fake.openaiBaseUrl },
        registry,
        toolNames: new Set(["delegate_task", "lookup"]),
        config: structuredClone(DEFAULT_CONFIG),
        home,
        environments,
        maxRetries: 0,
        delegation: { depth: 0 },
        hooks,
      });
      const r = await agent.runConversation("delegate it");
      expect(r.finalText).toBe("parent done");
      expect(fired.map(([n, p]) => `${n}:${p.tool_name ?? ""}`)).toEqual([
        "pre_tool_call:delegate_task",
        "subagent_start:",
        "pre_tool_call:lookup",
        "subagent_stop:",
      ]);
      const child = fired[1]![1].child_session_id;
      expect(fired[1]![1]).toMatchObject({
        parent_session_id: agent.sessionId,
        child_goal: "look it up",
        child_role: "leaf",
        depth: 1,
      });
      expect(fired[2]![1].session_id).toBe(child);
      expect(fired[3]![1]).toMatchObject({
        child_session_id: child,
        child_status: "completed",
        child_summary: "child found it",
        tools_used: ["lookup"],
      });
    } finally {
      await fake.close();
    }
  });

  it("plugin prompt sections join the system prompt once, when it is built", async () => {
    let asked = 0;
    const home = tempDir("hermes-agent-sections-");
    const environments = createLocalEnvironmentProvider({ cwd: home, home });
    providers.push(environments);
    const agent = new Agent({
      target,
      registry: new ToolRegistry<ToolContext>(),
      toolNames: new Set(),
      config: structuredClone(DEFAULT_CONFIG),
      home,
      environments,
      streamFn: scriptedStream([{ text: "a" }, { text: "b" }]).streamFn,
      promptSections: async () => {
        asked += 1;
        return "Always answer in French.";
      },
    });
    await agent.runConversation("one");
    await agent.runConversation("two");
    const { systemPrompt, layers } = await agent.prepareSession();
    expect(systemPrompt).toContain("Always answer in French.");
    expect(layers?.map((l) => l.name)).toContain("plugins");
    expect(asked).toBe(1);
  });
});

describe("approval hooks", () => {
  const request = (signal: AbortSignal): ApprovalRequest => ({
    command: "git push --force",
    reasons: [
      {
        key: "git_force_push",
        description: "force push",
        class: "git",
        severity: "dangerous",
        command: "git push --force",
      },
    ],
    timeoutMs: 1000,
    signal,
  });

  it("tell listeners about the question and the answer (a timeout is named as such)", async () => {
    const fired: Array<[string, HookPayload]> = [];
    const hooks = new HookBus({ timeoutMs: 1000, report: () => {} });
    for (const name of ["pre_approval_request", "post_approval_response"] as const)
      hooks.on({ name, label: "t", handler: (p) => void fired.push([name, p]) });
    const fields = () => ({ session_id: "s", model: "m", platform: "cli" });
    const turn = new AbortController();
    const approve = approveWithHooks(async () => "session", hooks, fields, turn.signal)!;
    expect(await approve(request(new AbortController().signal))).toBe("session");
    const expired = AbortSignal.abort();
    const timedOut = approveWithHooks(async () => "deny", hooks, fields, turn.signal)!;
    expect(await timedOut(request(expired))).toBe("deny");
    expect(fired.map(([n, p]) => [n, p.choice])).toEqual([
      ["pre_approval_request", undefined],
      ["post_approval_response", "session"],
      ["pre_approval_request", undefined],
      ["post_approval_response", "timeout"],
    ]);
    expect(fired[0]?.[1]).toMatchObject({
      command: "git push --force",
      pattern_key: "git_force_push",
      surface: "cli",
    });
  });

  it("without listeners the prompt is used as it is", () => {
    const approve = async () => "once" as const;
    const hooks = new HookBus({ timeoutMs: 1000, report: () => {} });
    expect(
      approveWithHooks(
        approve,
        hooks,
        () => ({ session_id: "", model: "", platform: "" }),
        AbortSignal.abort(),
      ),
    ).toBe(approve);
  });
});
