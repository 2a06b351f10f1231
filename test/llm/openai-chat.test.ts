import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildChatParams, streamOpenAIChat } from "../../src/llm/openai-chat.js";
import type { ChatMessage, ModelTarget } from "../../src/llm/types.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { done, failed, request, run } from "./helpers.js";

let fake: FakeLlm;
let target: ModelTarget;

beforeAll(async () => {
  fake = await startFakeLlm();
  target = {
    provider: "custom",
    apiMode: "chat_completions",
    model: "fake-model",
    baseUrl: fake.openaiBaseUrl,
    apiKey: "k",
  };
});
afterAll(() => fake.close());
afterEach(() => {
  expect(fake.pending()).toBe(0);
  fake.requests.length = 0;
});

describe("streamOpenAIChat", () => {
  it("streams text deltas and ends with the assembled message", async () => {
    fake.enqueue({ text: "Hello there, how can I help you today?", chunkSize: 5 });
    const c = await run(streamOpenAIChat, request(target));
    const end = done(c);
    expect(c.events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(3);
    expect(c.text).toBe("Hello there, how can I help you today?");
    expect(end.message).toEqual({ role: "assistant", content: "Hello there, how can I help you today?" });
    expect(end.finishReason).toBe("stop");
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.stream).toBe(true);
    expect(sent.body.stream_options).toEqual({ include_usage: true });
    expect(sent.body.model).toBe("fake-model");
    expect(sent.body.tools[0].function.name).toBe("read_file");
    expect(sent.headers.authorization).toBe("Bearer k");
  });

  it("assembles tool calls whose arguments arrive in pieces", async () => {
    fake.enqueue({
      text: "Reading.",
      toolCalls: [
        { name: "read_file", arguments: { path: "src/index.ts" }, id: "call_1" },
        { name: "read_file", arguments: { path: "README.md" }, id: "call_2" },
      ],
      chunkSize: 3,
    });
    const c = await run(streamOpenAIChat, request(target));
    const end = done(c);
    expect(c.events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_1", name: "read_file" },
      { type: "tool_call_start", index: 1, id: "call_2", name: "read_file" },
    ]);
    expect(c.events.filter((e) => e.type === "tool_call_delta").length).toBeGreaterThan(4);
    expect(end.finishReason).toBe("tool_calls");
    expect(end.message.tool_calls).toEqual([
      {
        id: "call_1",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"src/index.ts"}' },
      },
      { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } },
    ]);
  });

  it("reports usage with cached prompt tokens counted inside inputTokens", async () => {
    fake.enqueue({
      text: "ok",
      reasoning: "let me think about this",
      usage: { input: 1200, output: 40, cacheRead: 1000 },
    });
    const end = done(await run(streamOpenAIChat, request(target)));
    expect(end.usage.inputTokens).toBe(1200);
    expect(end.usage.outputTokens).toBe(40);
    expect(end.usage.cacheReadTokens).toBe(1000);
    expect(end.usage.reasoningTokens).toBeGreaterThan(0);
  });

  it("streams reasoning_content as reasoning deltas, kept out of the text", async () => {
    fake.enqueue({ reasoning: "The user greets me.", text: "Hi!" });
    const c = await run(streamOpenAIChat, request(target));
    const end = done(c);
    expect(c.reasoning).toBe("The user greets me.");
    expect(end.message.content).toBe("Hi!");
    expect(end.message.reasoning).toBe("The user greets me.");
  });

  it("sends system as developer for gpt-5 and strips fields the protocol does not know", async () => {
    fake.enqueue({ text: "a" }, { text: "b" });
    const history: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "read it" },
      {
        role: "assistant",
        content: null,
        reasoning: "private",
        tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", name: "read_file", content: "data" },
    ];
    done(await run(streamOpenAIChat, request({ ...target, model: "gpt-5-mini" }, { messages: history })));
    done(await run(streamOpenAIChat, request(target, { messages: history })));
    const [gpt5, other] = fake.requests.map((r) => r.body.messages);
    expect(gpt5[0]).toEqual({ role: "developer", content: "Be brief." });
    expect(other[0]).toEqual({ role: "system", content: "Be brief." });
    expect(gpt5[2].reasoning).toBeUndefined();
    expect(gpt5[2].tool_calls[0].id).toBe("c1");
    expect(gpt5[3]).toEqual({ role: "tool", tool_call_id: "c1", content: "data" });
  });

  it("sends max_tokens only when set, and custom headers", async () => {
    fake.enqueue({ text: "a" }, { text: "b" });
    done(
      await run(
        streamOpenAIChat,
        request({ ...target, maxTokens: 321, headers: { "X-Title": "Hermes Agent" } }),
      ),
    );
    done(await run(streamOpenAIChat, request(target)));
    expect(fake.requests[0]!.body.max_tokens).toBe(321);
    expect(fake.requests[0]!.headers["x-title"]).toBe("Hermes Agent");
    expect(fake.requests[1]!.body.max_tokens).toBeUndefined();
    expect(fake.requests[1]!.body.max_completion_tokens).toBeUndefined();
  });

  it("delivers malformed tool JSON as the raw string for the agent to repair", async () => {
    fake.enqueue({ fault: { kind: "malformed_tool_json" } });
    const end = done(await run(streamOpenAIChat, request(target)));
    expect(end.message.tool_calls?.[0]?.function).toEqual({
      name: "read_file",
      arguments: '{"path": "a.txt",',
    });
  });

  it.each([
    { status: 429, reason: "rate_limit", retryable: true },
    { status: 500, reason: "server_error", retryable: true },
    { status: 529, reason: "overloaded", retryable: true },
    { status: 401, reason: "auth", retryable: false },
  ] as const)("ends HTTP $status with a $reason error event", async ({ status, reason, retryable }) => {
    fake.enqueue({ fault: { kind: "http", status } });
    const c = await run(streamOpenAIChat, request(target));
    const err = failed(c);
    expect(c.events).toHaveLength(1);
    expect(err.error.reason).toBe(reason);
    expect(err.error.status).toBe(status);
    expect(err.error.retryable).toBe(retryable);
    if (status === 429) expect(err.error.resetAt).toBeGreaterThan(Date.now() - 5000);
  });

  it("classifies a 400 context-length error as context_overflow with shouldCompress", async () => {
    const message = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.";
    fake.enqueue({
      fault: {
        kind: "http",
        status: 400,
        body: { error: { message, type: "invalid_request_error", code: "context_length_exceeded" } },
      },
    });
    const err = failed(await run(streamOpenAIChat, request(target)));
    expect(err.error).toMatchObject({ reason: "context_overflow", shouldCompress: true, status: 400 });
    expect(err.error.message).toContain("maximum context length");
  });

  it("ends with reason aborted when the caller aborts a hung request", async () => {
    fake.enqueue({ fault: { kind: "hang" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = failed(await run(streamOpenAIChat, request(target, { signal: controller.signal })));
    expect(err.error).toMatchObject({ reason: "aborted", retryable: false });
  });

  it("ends a hung request with a retryable timeout after timeoutMs of silence", async () => {
    fake.enqueue({ fault: { kind: "hang" } });
    const err = failed(await run(streamOpenAIChat, request({ ...target, timeoutMs: 300 })));
    expect(err.error).toMatchObject({ reason: "timeout", retryable: true });
  });

  it("turns a connection reset mid-stream into a retryable error with the partial text", async () => {
    fake.enqueue({
      text: "The first part arrives, the rest never does.",
      fault: { kind: "reset_mid_stream" },
    });
    const c = await run(streamOpenAIChat, request(target));
    const err = failed(c);
    expect(err.error.retryable).toBe(true);
    expect(err.partial?.content).toBe(c.text);
    expect(c.text.length).toBeGreaterThan(0);
  });

  it("names the URL when the server is not running", async () => {
    const gone = await startFakeLlm();
    await gone.close();
    const err = failed(await run(streamOpenAIChat, request({ ...target, baseUrl: gone.openaiBaseUrl })));
    expect(err.error.message).toContain(gone.openaiBaseUrl);
    expect(err.error.message).toContain("connection refused");
    expect(err.error.retryable).toBe(true);
  });

  it("surfaces an exhausted script as an error event", async () => {
    const err = failed(await run(streamOpenAIChat, request(target)));
    expect(err.error.reason).toBe("server_error");
    expect(err.error.message).toContain("script exhausted");
  });
});

describe("buildChatParams", () => {
  it("uses max_completion_tokens for gpt-5 and o-series on api.openai.com only", () => {
    const openai: ModelTarget = {
      provider: "openai",
      apiMode: "chat_completions",
      model: "gpt-5",
      baseUrl: "https://api.openai.com/v1",
      apiKey: "k",
      maxTokens: 100,
    };
    const params = (t: ModelTarget) => buildChatParams(request(t));
    expect(params(openai).max_completion_tokens).toBe(100);
    expect(params(openai).max_tokens).toBeUndefined();
    expect(params({ ...openai, model: "o3-mini" }).max_completion_tokens).toBe(100);
    expect(params({ ...openai, model: "gpt-4.1" }).max_tokens).toBe(100);
    expect(
      params({ ...openai, baseUrl: "https://openrouter.ai/api/v1", model: "openai/gpt-5" }).max_tokens,
    ).toBe(100);
  });

  it("omits an empty tools list and passes temperature through", () => {
    const t: ModelTarget = {
      provider: "x",
      apiMode: "chat_completions",
      model: "m",
      baseUrl: "http://h/v1",
      apiKey: "",
    };
    const params = buildChatParams(request(t, { tools: [], temperature: 0.2 }));
    expect(params.tools).toBeUndefined();
    expect(params.temperature).toBe(0.2);
  });
});
