import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getStreamFn } from "../../src/llm/registry.js";
import { streamResponses } from "../../src/llm/responses.js";
import { buildResponsesParams, toResponsesInput } from "../../src/llm/responses-convert.js";
import type { ChatMessage, ModelTarget } from "../../src/llm/types.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { done, failed, request, run } from "./helpers.js";

let fake: FakeLlm;
let target: ModelTarget;

beforeAll(async () => {
  fake = await startFakeLlm();
  target = {
    provider: "custom",
    apiMode: "codex_responses",
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

describe("streamResponses (through the openai SDK's Responses client)", () => {
  it("is the registered codex_responses protocol", () => {
    expect(getStreamFn("codex_responses")).toBe(streamResponses);
  });

  it("streams text deltas and ends with the assembled message, stateless", async () => {
    fake.enqueue({ text: "Hello there, how can I help you today?", chunkSize: 5 });
    const c = await run(streamResponses, request(target));
    const end = done(c);
    expect(c.events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(3);
    expect(c.text).toBe("Hello there, how can I help you today?");
    expect(end.message).toEqual({ role: "assistant", content: "Hello there, how can I help you today?" });
    expect(end.finishReason).toBe("stop");
    const sent = fake.requests[0]!;
    expect(sent.protocol).toBe("responses");
    expect(sent.path).toBe("/v1/responses");
    expect(sent.stream).toBe(true);
    expect(sent.body.store).toBe(false);
    expect(sent.body.previous_response_id).toBeUndefined();
    expect(sent.body.instructions).toBe("You are Hermes.");
    expect(sent.body.input).toEqual([{ type: "message", role: "user", content: "Hello" }]);
    expect(sent.body.tools[0]).toMatchObject({ type: "function", name: "read_file", strict: false });
    expect(sent.headers.authorization).toBe("Bearer k");
  });

  it("assembles function calls from argument deltas, in order", async () => {
    fake.enqueue({
      text: "Reading.",
      toolCalls: [
        { name: "read_file", arguments: { path: "src/index.ts" }, id: "call_1" },
        { name: "read_file", arguments: { path: "README.md" }, id: "call_2" },
      ],
      chunkSize: 3,
    });
    const c = await run(streamResponses, request(target));
    const end = done(c);
    expect(c.events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_1", name: "read_file" },
      { type: "tool_call_start", index: 1, id: "call_2", name: "read_file" },
    ]);
    const deltas = c.events.filter((e) => e.type === "tool_call_delta" && e.index === 0);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((e) => (e.type === "tool_call_delta" ? e.argumentsDelta : "")).join("")).toBe(
      '{"path":"src/index.ts"}',
    );
    expect(end.finishReason).toBe("tool_calls");
    expect(end.message.content).toBe("Reading.");
    expect(end.message.tool_calls).toEqual([
      {
        id: "call_1",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"src/index.ts"}' },
      },
      { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } },
    ]);
  });

  it("reports usage with cached input and reasoning tokens", async () => {
    fake.enqueue({
      text: "ok",
      reasoning: "think about it",
      usage: { input: 1200, output: 40, cacheRead: 1000 },
    });
    const c = await run(streamResponses, request(target));
    const end = done(c);
    expect(end.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 40,
      cacheReadTokens: 1000,
      cacheWriteTokens: 0,
      reasoningTokens: 4,
    });
    expect(c.reasoning).toBe("think about it");
    expect(end.message.reasoning).toBe("think about it");
  });

  it("keeps encrypted reasoning for reasoning models and replays it without ids on the next turn", async () => {
    const gpt5 = { ...target, model: "gpt-5" };
    fake.enqueue({
      reasoning: "plan: read the file",
      toolCalls: [{ name: "read_file", arguments: { path: "a" } }],
    });
    const first = done(await run(streamResponses, request(gpt5)));
    expect(fake.requests[0]!.body.include).toEqual(["reasoning.encrypted_content"]);
    expect(first.message.reasoning_items).toEqual([
      { encrypted_content: expect.stringMatching(/^enc-/), summary: ["plan: read the file"] },
    ]);
    const call = first.message.tool_calls![0]!;
    fake.enqueue({ text: "done" });
    const history: ChatMessage[] = [
      { role: "system", content: "You are Hermes." },
      { role: "user", content: "Hello" },
      first.message,
      { role: "tool", tool_call_id: call.id, name: "read_file", content: "file body" },
    ];
    done(await run(streamResponses, request(gpt5, { messages: history })));
    const input = fake.requests[1]!.body.input;
    expect(input).toEqual([
      { type: "message", role: "user", content: "Hello" },
      {
        type: "reasoning",
        encrypted_content: first.message.reasoning_items![0]!.encrypted_content,
        summary: [{ type: "summary_text", text: "plan: read the file" }],
      },
      { type: "function_call", call_id: call.id, name: "read_file", arguments: '{"path":"a"}' },
      { type: "function_call_output", call_id: call.id, output: "file body" },
    ]);
  });

  it("delivers malformed function-call JSON as the raw string for the agent to repair", async () => {
    fake.enqueue({ fault: { kind: "malformed_tool_json" } });
    const end = done(await run(streamResponses, request(target)));
    expect(end.message.tool_calls?.[0]?.function).toEqual({
      name: "read_file",
      arguments: '{"path": "a.txt",',
    });
  });

  it("maps an incomplete response (max_output_tokens) to finish reason length", async () => {
    fake.enqueue({ text: "cut off", finishReason: "length" });
    const end = done(await run(streamResponses, request({ ...target, maxTokens: 5 })));
    expect(end.finishReason).toBe("length");
    expect(fake.requests[0]!.body.max_output_tokens).toBe(5);
  });

  it.each([
    { status: 429, reason: "rate_limit", retryable: true },
    { status: 500, reason: "server_error", retryable: true },
    { status: 401, reason: "auth", retryable: false },
  ] as const)("ends HTTP $status with a $reason error event", async ({ status, reason, retryable }) => {
    fake.enqueue({ fault: { kind: "http", status } });
    const c = await run(streamResponses, request(target));
    const err = failed(c);
    expect(c.events).toHaveLength(1);
    expect(err.error).toMatchObject({ reason, status, retryable });
  });

  it("turns an in-stream error event into a classified error event", async () => {
    fake.enqueue({ fault: { kind: "stream_error", code: "rate_limit_exceeded", message: "Slow down." } });
    const err = failed(await run(streamResponses, request(target)));
    expect(err.error).toMatchObject({ reason: "rate_limit", retryable: true });
    expect(err.error.message).toContain("Slow down.");
  });

  it("turns response.failed into a classified error event", async () => {
    fake.enqueue({
      fault: { kind: "stream_error", code: "server_error", message: "Boom.", failedResponse: true },
    });
    const err = failed(await run(streamResponses, request(target)));
    expect(err.error).toMatchObject({ reason: "server_error", retryable: true });
    expect(err.error.message).toContain("Boom.");
  });

  it("turns a reset mid-stream into a retryable error carrying the partial text", async () => {
    fake.enqueue({
      text: "The first part arrives, the rest never does.",
      chunkSize: 4,
      fault: { kind: "reset_mid_stream" },
    });
    const c = await run(streamResponses, request(target));
    const err = failed(c);
    expect(err.error.retryable).toBe(true);
    expect(c.text.length).toBeGreaterThan(0);
    expect(err.partial?.content).toBe(c.text);
  });

  it("ends a hung request with reason aborted when the caller aborts", async () => {
    fake.enqueue({ fault: { kind: "hang" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = failed(await run(streamResponses, request(target, { signal: controller.signal })));
    expect(err.error).toMatchObject({ reason: "aborted", retryable: false });
  });

  it("answers non-streaming requests too (fake server contract)", async () => {
    fake.enqueue({ text: "plain", toolCalls: [{ name: "read_file", arguments: { path: "x" } }] });
    const res = await fetch(`${fake.openaiBaseUrl}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    const body = (await res.json()) as { status: string; output: Array<{ type: string }>; usage: unknown };
    expect(body.status).toBe("completed");
    expect(body.output.map((o) => o.type)).toEqual(["message", "function_call"]);
    expect(body.usage).toMatchObject({ input_tokens: expect.any(Number) });
  });
});

describe("buildResponsesParams", () => {
  const openai: ModelTarget = {
    provider: "openai",
    apiMode: "codex_responses",
    model: "gpt-5",
    baseUrl: "https://api.openai.com/v1",
    apiKey: "k",
  };

  it("maps images to input_image and system messages to instructions", () => {
    const { instructions, input } = toResponsesInput([
      { role: "system", content: "A" },
      { role: "system", content: "B" },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
    ]);
    expect(instructions).toBe("A\n\nB");
    expect(input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "what is this" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
        ],
      },
    ]);
  });

  it("passes reasoning effort, omits temperature for reasoning models, caps with max_output_tokens", () => {
    const p = buildResponsesParams(
      request({ ...openai, reasoningEffort: "high", maxTokens: 900 }, { temperature: 0.3 }),
    );
    expect(p.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(p.temperature).toBeUndefined();
    expect(p.max_output_tokens).toBe(900);
    expect(p.store).toBe(false);
    const plain = buildResponsesParams(request({ ...openai, model: "gpt-4.1" }, { temperature: 0.3 }));
    expect(plain.temperature).toBe(0.3);
    expect(plain.reasoning).toBeUndefined();
    expect(plain.include).toBeUndefined();
  });

  it("leaves max_output_tokens out on the ChatGPT Codex backend", () => {
    const codex = {
      ...openai,
      provider: "openai-codex",
      baseUrl: "https://chatgpt.com/backend-api/codex",
      maxTokens: 100,
    };
    expect(buildResponsesParams(request(codex)).max_output_tokens).toBeUndefined();
  });
});
