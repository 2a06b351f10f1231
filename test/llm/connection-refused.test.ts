import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { callModel } from "../../src/agent/model-call.js";
import { classifyError, LOCAL_REFUSED_RETRY_DELAY_MS } from "../../src/llm/errors.js";
import { streamOpenAIChat } from "../../src/llm/openai-chat.js";
import { ProviderRouter } from "../../src/llm/provider-router.js";
import { retryBudget, retryDelay } from "../../src/llm/retry.js";
import type { ClassifiedError, ModelTarget } from "../../src/llm/types.js";
import { closedPort } from "../support/closed-port.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";
import { failed, request, run } from "./helpers.js";

/** What undici throws when nothing listens: a fetch failure caused by ECONNREFUSED. */
const refusedError = (address = "127.0.0.1:11434") => {
  const sys = Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: "ECONNREFUSED" });
  return new OpenAI.APIConnectionError({ cause: new TypeError("fetch failed", { cause: sys }) });
};

describe("a refused connection is not a timeout", () => {
  it.each([
    "http://localhost:11434/v1",
    "http://127.0.0.1:8080/v1",
    "http://127.1.2.3:8000/v1",
    "http://[::1]:8000/v1",
    "http://0.0.0.0:8000/v1",
    "http://192.168.1.20:8000/v1",
    "http://10.0.0.5:8000/v1",
    "http://172.20.0.2:8000/v1",
    "http://169.254.10.1:8000/v1",
    "http://[fe80::1]:8000/v1",
    "http://[fd12:3456::1]:8000/v1",
    "http://host.docker.internal:11434/v1",
    "http://gpu-box.local:8000/v1",
    "http://models.localhost:8000/v1",
  ])("local server %s: one quick retry, and what to start", (baseUrl) => {
    const c = classifyError(refusedError(), { baseUrl });
    expect(c).toMatchObject({
      reason: "connection_refused",
      retryable: true,
      shouldCompress: false,
      retryLimit: 1,
      retryDelayMs: LOCAL_REFUSED_RETRY_DELAY_MS,
    });
    expect(c.message).toMatch(
      new RegExp(
        `^Nothing is listening at ${baseUrl.replace(/[.[\]]/g, "\\$&")} \\(connection refused\\): start the server \\(.+\\) or set model\\.base_url\\.$`,
      ),
    );
  });

  it.each([
    "https://api.example.com/v1",
    "http://8.8.8.8:8000/v1",
    "http://172.32.0.1:8000/v1",
    "http://[2001:db8::1]:8000/v1",
    "https://localhost.example.com/v1",
  ])("remote host %s keeps the configured backoff", (baseUrl) => {
    const c = classifyError(refusedError(), { baseUrl });
    expect(c.reason).toBe("connection_refused");
    expect(c.retryable).toBe(true);
    expect(c.retryLimit).toBeUndefined();
    expect(c.retryDelayMs).toBeUndefined();
    expect(c.message).toBe(`Cannot reach ${baseUrl} (connection refused). Is the server running?`);
  });

  it("names the server that usually listens on the port", () => {
    const start = (url: string) =>
      /start the server \((.+)\) or set/.exec(classifyError(refusedError(), { baseUrl: url }).message)?.[1];
    expect(start("http://localhost:11434/v1")).toBe("ollama serve");
    expect(start("http://localhost:8080/v1")).toBe("llama-server");
    expect(start("http://localhost:8000/v1")).toBe("vllm serve");
    expect(start("http://localhost:1234/v1")).toBe("LM Studio's local server");
    expect(start("http://localhost:9999/v1")).toBe("ollama serve / llama-server / vllm serve / LM Studio");
  });

  it("reads refusals of both address families (AggregateError) the same way", () => {
    const agg = new AggregateError(
      [
        Object.assign(new Error("connect ECONNREFUSED ::1:11434"), { code: "ECONNREFUSED" }),
        Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:11434"), { code: "ECONNREFUSED" }),
      ],
      "connect failed",
    );
    const c = classifyError(new TypeError("fetch failed", { cause: agg }), {
      baseUrl: "http://localhost:11434/v1",
    });
    expect(c).toMatchObject({ reason: "connection_refused", retryLimit: 1 });
  });

  it("other transport failures stay timeouts with the full backoff", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const c = classifyError(new TypeError("fetch failed", { cause: reset }), {
      baseUrl: "http://localhost:11434/v1",
    });
    expect(c.reason).toBe("timeout");
    expect(c.retryLimit).toBeUndefined();
  });

  it("a real request to a closed loopback port is classified as a local refusal", async () => {
    const port = await closedPort();
    const target: ModelTarget = {
      provider: "custom",
      apiMode: "chat_completions",
      model: "m",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: "k",
    };
    const err = failed(await run(streamOpenAIChat, request(target))).error;
    expect(err).toMatchObject({ reason: "connection_refused", retryLimit: 1 });
    expect(err.message).toContain(`Nothing is listening at http://127.0.0.1:${port}/v1`);
  });
});

describe("retry policy read from the classification", () => {
  it("a failure's own retry limit lowers the configured budget, never raises it", () => {
    expect(retryBudget({}, 3)).toBe(3);
    expect(retryBudget({ retryLimit: 1 }, 3)).toBe(1);
    expect(retryBudget({ retryLimit: 5 }, 2)).toBe(2);
    expect(retryBudget({ retryLimit: 1 }, 0)).toBe(0);
  });

  it("a failure's own delay replaces the exponential backoff (jittered up to +50%)", () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const d = retryDelay({ retryDelayMs: 500 }, attempt, { baseDelayMs: 5000, maxDelayMs: 120_000 });
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(750);
    }
    const backoff = retryDelay({}, 3, { baseDelayMs: 100, maxDelayMs: 10_000, jitterRatio: 0 });
    expect(backoff).toBe(400);
  });
});

describe("the retry loop on a refused connection", () => {
  const target = (baseUrl: string): ModelTarget => ({
    provider: "custom",
    apiMode: "chat_completions",
    model: "m",
    baseUrl,
    apiKey: "k",
  });

  async function callRefused(baseUrl: string) {
    const error: ClassifiedError = classifyError(refusedError(), { baseUrl });
    const attempts: number[] = [];
    const stream = scriptedStream([], (): StreamTurn => {
      attempts.push(Date.now());
      return { error };
    });
    const events: AgentEvent[] = [];
    const result = await callModel({
      streamFn: stream.streamFn,
      buildRequest: (t) => ({ target: t, messages: [{ role: "user", content: "hi" }], tools: [] }),
      router: new ProviderRouter({ target: target(baseUrl) }),
      maxRetries: 3,
      // A configured backoff much shorter than the local retry's delay, so the delay seen is that one.
      retryBaseDelayMs: 20,
      retryMaxDelayMs: 40,
      emit: (e) => events.push(e),
      signal: new AbortController().signal,
    });
    const statuses = events.flatMap((e) => (e.type === "status" ? [e.message] : []));
    return { result, attempts, statuses };
  }

  it("a local server: one retry after about half a second, then the message", async () => {
    const { result, attempts, statuses } = await callRefused("http://localhost:11434/v1");
    expect(attempts).toHaveLength(2);
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(LOCAL_REFUSED_RETRY_DELAY_MS - 5);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]).toMatch(
      /^connection_refused: Nothing is listening at .* — retrying in 0\.[5-8]s \(retry 1 of 1\)$/,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.retryable).toBe(false);
    expect(result.error.message).toBe(
      "Nothing is listening at http://localhost:11434/v1 (connection refused): start the server (ollama serve) or set model.base_url. (gave up after 1 retry)",
    );
  });

  it("a remote host: the configured retry budget and backoff", async () => {
    const { result, attempts, statuses } = await callRefused("https://llm.example.com/v1");
    expect(attempts).toHaveLength(4);
    expect(statuses.map((s) => /\(retry (\d) of (\d)\)$/.exec(s)?.slice(1).join("/"))).toEqual([
      "1/3",
      "2/3",
      "3/3",
    ]);
    expect(!result.ok && result.error.message).toMatch(/connection refused.*gave up after 3 retries/);
  });
});
