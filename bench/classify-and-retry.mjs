// Error classification throughput over the real-shaped vendor error corpus, and the cost of the
// retry machinery on the happy path (callModel with its router vs iterating the stream directly).
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { callModel } from "../dist/agent/model-call.js";
import { classifyError } from "../dist/llm/errors.js";
import { ProviderRouter } from "../dist/llm/provider-router.js";
import { ERROR_BODY_CASES } from "../test/llm/error-bodies.ts";
import { fmt } from "./lib.mjs";

const toError = (c) => {
  const headers = new Headers({ "content-type": "application/json", ...(c.headers ?? {}) });
  const Sdk = c.protocol === "anthropic" ? Anthropic : OpenAI;
  return Sdk.APIError.generate(c.status, c.body, undefined, headers);
};
const errors = ERROR_BODY_CASES.map(toError);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2000);
for (let i = 0; i < 200; i++) for (const e of errors) classifyError(e);
let t0 = performance.now();
for (let i = 0; i < ROUNDS; i++) for (const e of errors) classifyError(e, { provider: "openrouter" });
let ms = performance.now() - t0;
const n = ROUNDS * errors.length;
console.log(
  `classification: ${fmt(n / (ms / 1000), 0)} errors/s (${fmt((ms * 1000) / n, 2)} µs each, ${errors.length} vendor bodies × ${ROUNDS})`,
);

const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
const streamFn = async function* () {
  yield { type: "text_delta", text: "hi" };
  yield { type: "done", message: { role: "assistant", content: "hi" }, usage, finishReason: "stop" };
};
const target = {
  provider: "custom",
  apiMode: "chat_completions",
  model: "bench",
  baseUrl: "http://x",
  apiKey: "k",
};
const router = new ProviderRouter({ target });
const signal = new AbortController().signal;
const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);
const direct = async () => {
  for await (const _ of streamFn({ target, messages: [], tools: [] })) {
    // drain
  }
};
const viaRetry = () =>
  callModel({
    streamFn,
    buildRequest: (t) => ({ target: t, messages: [], tools: [], signal }),
    router,
    maxRetries: 3,
    emit: () => {},
    retryBaseDelayMs: 5000,
    retryMaxDelayMs: 120_000,
    signal,
  });
for (let i = 0; i < 2000; i++) {
  await direct();
  await viaRetry();
}
t0 = performance.now();
for (let i = 0; i < CALLS; i++) await direct();
const directMs = performance.now() - t0;
t0 = performance.now();
for (let i = 0; i < CALLS; i++) await viaRetry();
ms = performance.now() - t0;
console.log(
  `retry machinery on the happy path: +${fmt(((ms - directMs) * 1000) / CALLS, 2)} µs per model call (${CALLS} calls; a loopback HTTP round trip is ~1000 µs)`,
);
