import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { streamAnthropic } from "../../src/llm/anthropic.js";
import type { ChatMessage, ModelTarget } from "../../src/llm/types.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { done, failed, request, run } from "./helpers.js";

let fake: FakeLlm;
let target: ModelTarget;

beforeAll(async () => {
  fake = await startFakeLlm();
  target = {
    provider: "anthropic",
    apiMode: "anthropic_messages",
    model: "claude-sonnet-4-6",
    baseUrl: fake.anthropicBaseUrl,
    apiKey: "sk-ant-test",
  };
});
afterAll(() => fake.close());
afterEach(() => {
  expect(fake.pending()).toBe(0);
  fake.requests.length = 0;
});

/** A conversation with two tool rounds: 1 system + 7 non-system messages. */
const conversation: ChatMessage[] = [
  { role: "system", content: "You are Hermes." },
  { role: "user", content: "List and read." },
  {
    role: "assistant",
    content: "Looking.",
    tool_calls: [
      { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
      {
        id: "functions.read_file:1",
        type: "function",
        function: { name: "read_file", arguments: "{broken" },
      },
    ],
  },
  { role: "tool", tool_call_id: "call_a", content: "A" },
  { role: "tool", tool_call_id: "functions.read_file:1", content: "B" },
  { role: "assistant", content: "Both read." },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
    ],
  },
  {
    role: "assistant",
    content: "A cat.",
    thinking_blocks: [
      { type: "thinking", thinking: "It is a cat.", signature: "sig-1" },
      { type: "thinking", thinking: "unsigned, must be dropped" },
    ],
  },
  { role: "user", content: "Thanks" },
];

describe("streamAnthropic", () => {
  it("streams text and ends with the assembled message", async () => {
    fake.enqueue({ text: "Hello from Claude, streamed in pieces.", chunkSize: 4 });
    const c = await run(streamAnthropic, request(target));
    const end = done(c);
    expect(c.events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(3);
    expect(end.message).toEqual({ role: "assistant", content: "Hello from Claude, streamed in pieces." });
    expect(end.finishReason).toBe("stop");
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.body.max_tokens).toBe(8192);
    expect(sent.body.stream).toBe(true);
    expect(sent.body.tools).toEqual([
      {
        name: "read_file",
        description: "Read a text file.",
        input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    ]);
  });

  it("assembles tool_use input streamed as input_json_delta pieces", async () => {
    fake.enqueue({
      toolCalls: [
        { name: "read_file", arguments: { path: "src/index.ts" }, id: "toolu_1" },
        { name: "list_dir", arguments: {}, id: "toolu_2" },
      ],
      chunkSize: 3,
    });
    const c = await run(streamAnthropic, request({ ...target, maxTokens: 1000 }));
    const end = done(c);
    expect(end.finishReason).toBe("tool_calls");
    expect(c.events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "toolu_1", name: "read_file" },
      { type: "tool_call_start", index: 1, id: "toolu_2", name: "list_dir" },
    ]);
    expect(end.message.tool_calls?.map((t) => t.function.arguments)).toEqual([
      '{"path":"src/index.ts"}',
      "{}",
    ]);
    expect(fake.requests[0]!.body.max_tokens).toBe(1000);
  });

  it("streams thinking as reasoning and keeps the signed block for replay", async () => {
    fake.enqueue({ reasoning: "Consider the greeting.", text: "Hi." });
    const c = await run(streamAnthropic, request(target));
    const end = done(c);
    expect(c.reasoning).toBe("Consider the greeting.");
    expect(end.message.reasoning).toBe("Consider the greeting.");
    expect(end.message.thinking_blocks).toHaveLength(1);
    expect(end.message.thinking_blocks?.[0]).toMatchObject({
      type: "thinking",
      thinking: "Consider the greeting.",
    });
    expect(end.message.thinking_blocks?.[0]?.signature).toMatch(/^sig-/);
  });

  it("sums fresh, cache-read and cache-write tokens into inputTokens", async () => {
    fake.enqueue({ text: "ok", usage: { input: 100, output: 30, cacheRead: 5000, cacheWrite: 200 } });
    const end = done(await run(streamAnthropic, request(target)));
    expect(end.usage).toMatchObject({
      inputTokens: 5300,
      outputTokens: 30,
      cacheReadTokens: 5000,
      cacheWriteTokens: 200,
    });
  });

  it("converts the conversation: system, merged tool results, images, thinking replay", async () => {
    fake.enqueue({ text: "ok" });
    done(await run(streamAnthropic, request(target, { messages: conversation })));
    const body = fake.requests[0]!.body;
    expect(body.system).toEqual([
      { type: "text", text: "You are Hermes.", cache_control: { type: "ephemeral" } },
    ]);
    const roles = body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user"]);
    const [, firstAssistant, results, , imageTurn, catTurn, last] = body.messages;
    expect(firstAssistant.content[1]).toEqual({
      type: "tool_use",
      id: "call_a",
      name: "read_file",
      input: { path: "a.txt" },
    });
    // Unrepairable arguments become {} and foreign ids are sanitised, consistently on both sides.
    expect(firstAssistant.content[2]).toEqual({
      type: "tool_use",
      id: "functions_read_file_1",
      name: "read_file",
      input: {},
    });
    expect(results.content.slice(0, 2)).toEqual([
      { type: "tool_result", tool_use_id: "call_a", content: "A" },
      { type: "tool_result", tool_use_id: "functions_read_file_1", content: "B" },
    ]);
    // Signed thinking is replayed first; the unsigned block is dropped.
    expect(catTurn.content[0]).toEqual({ type: "thinking", thinking: "It is a cat.", signature: "sig-1" });
    expect(catTurn.content).toHaveLength(2);
    expect(last.content.at(-1)).toMatchObject({ type: "text", text: "Thanks" });
    const images = imageTurn.content.filter((b: { type: string }) => b.type === "image");
    expect(images).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      // The image turn is one of the last three messages, so its last block carries the marker.
      {
        type: "image",
        source: { type: "url", url: "https://example.com/cat.jpg" },
        cache_control: { type: "ephemeral" },
      },
    ]);
  });

  it("places cache_control on the system prompt and the last 3 non-system messages", async () => {
    fake.enqueue({ text: "ok" }, { text: "ok" });
    const history: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "u1" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u2" },
      { role: "assistant", content: "a2" },
      { role: "user", content: "u3" },
    ];
    done(await run(streamAnthropic, request(target, { messages: history })));
    done(await run(streamAnthropic, request({ ...target, cacheTtl: "1h" }, { messages: history })));
    const marked = (body: { messages: { content: { cache_control?: unknown }[] | string }[] }) =>
      body.messages.map((m) =>
        typeof m.content === "string" ? null : (m.content.at(-1)?.cache_control ?? null),
      );
    const [short, long] = fake.requests.map((r) => r.body);
    const e5 = { type: "ephemeral" };
    expect(short.system.at(-1).cache_control).toEqual(e5);
    expect(marked(short)).toEqual([null, null, e5, e5, e5]);
    const e1h = { type: "ephemeral", ttl: "1h" };
    expect(long.system.at(-1).cache_control).toEqual(e1h);
    expect(marked(long)).toEqual([null, null, e1h, e1h, e1h]);
    expect(short.messages[0].content).toEqual([{ type: "text", text: "u1" }]);
  });

  it("delivers malformed tool JSON as the raw string", async () => {
    fake.enqueue({ fault: { kind: "malformed_tool_json" } });
    const end = done(await run(streamAnthropic, request(target)));
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
    const err = failed(await run(streamAnthropic, request(target)));
    expect(err.error.reason).toBe(reason);
    expect(err.error.status).toBe(status);
    expect(err.error.retryable).toBe(retryable);
  });

  it("classifies 'prompt is too long' as context_overflow", async () => {
    const body = {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
    };
    fake.enqueue({ fault: { kind: "http", status: 400, body } });
    const err = failed(await run(streamAnthropic, request(target)));
    expect(err.error).toMatchObject({ reason: "context_overflow", shouldCompress: true, retryable: true });
  });

  it("ends with reason aborted when the caller aborts a hung request", async () => {
    fake.enqueue({ fault: { kind: "hang" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = failed(await run(streamAnthropic, request(target, { signal: controller.signal })));
    expect(err.error.reason).toBe("aborted");
  });

  it("turns a reset mid-stream into a retryable error event", async () => {
    fake.enqueue({
      text: "partial answer that will be cut",
      fault: { kind: "reset_mid_stream" },
      chunkSize: 4,
    });
    const c = await run(streamAnthropic, request(target));
    const err = failed(c);
    expect(err.error.retryable).toBe(true);
    expect(err.partial?.content).toBe(c.text);
  });

  it("names the URL when the server is not running", async () => {
    const gone = await startFakeLlm();
    await gone.close();
    const err = failed(await run(streamAnthropic, request({ ...target, baseUrl: gone.anthropicBaseUrl })));
    expect(err.error.message).toBe(
      `Nothing is listening at ${gone.anthropicBaseUrl} (connection refused): start the server (ollama serve / llama-server / vllm serve / LM Studio) or set model.base_url.`,
    );
  });
});
