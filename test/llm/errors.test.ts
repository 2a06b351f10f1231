import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamAnthropic } from "../../src/llm/anthropic.js";
import { classifyError, parseResetAt } from "../../src/llm/errors.js";
import { streamOpenAIChat } from "../../src/llm/openai-chat.js";
import { ResponseFailedError } from "../../src/llm/responses.js";
import type { ClassifiedError, ModelTarget } from "../../src/llm/types.js";
import { type FakeLlm, type Fault, startFakeLlm } from "../support/fake-llm.js";
import { ERROR_BODY_CASES, type ErrorBodyCase } from "./error-bodies.js";
import { failed, request, run } from "./helpers.js";

const openaiError = (status: number, body: object, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, body, undefined, new Headers(headers));
const oe = (message: string, code: string | null = null, type = "invalid_request_error") => ({
  error: { message, type, code, param: null },
});

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());

/** Serves one vendor response and returns what the real SDK + stream function classified. */
async function classifyServed(c: ErrorBodyCase): Promise<ClassifiedError> {
  const fault: Fault = { kind: "http", status: c.status, body: c.body };
  if (c.headers) fault.headers = c.headers;
  fake.enqueue({ fault });
  const openai = c.protocol === "openai";
  const target: ModelTarget = {
    provider: c.vendor,
    apiMode: openai ? "chat_completions" : "anthropic_messages",
    model: "m",
    baseUrl: openai ? fake.openaiBaseUrl : fake.anthropicBaseUrl,
    apiKey: "k",
  };
  return failed(await run(openai ? streamOpenAIChat : streamAnthropic, request(target))).error;
}

describe("classifyError: vendor error bodies over HTTP", () => {
  it("has at least 40 distinct cases", () => {
    expect(new Set(ERROR_BODY_CASES.map((c) => JSON.stringify(c.body))).size).toBeGreaterThanOrEqual(40);
  });

  it.each(ERROR_BODY_CASES.map((c) => [`${c.vendor} ${c.status} ${c.what}`, c] as const))(
    "%s",
    async (_name, c) => {
      const before = Date.now();
      const got = await classifyServed(c);
      const after = Date.now();
      expect(got.reason).toBe(c.reason);
      expect(got.status).toBe(c.status);
      if (c.flags) expect(got).toMatchObject(c.flags);
      if (c.resetAt !== undefined) expect(got.resetAt).toBe(c.resetAt);
      if (c.resetIn !== undefined) {
        expect(got.resetAt).toBeGreaterThanOrEqual(before + c.resetIn);
        expect(got.resetAt).toBeLessThanOrEqual(after + c.resetIn);
      }
      // Messages are for humans: no SDK status prefix, no raw JSON document.
      expect(got.message).not.toMatch(/^\d{3} /);
      expect(got.message).not.toMatch(/: \{\s*"error"/);
    },
  );
});

describe("classifyError: a 400 without a reason, read against the context window", () => {
  /** Serves `body` as a 400 to a request of ~`tokens` tokens on a model with `window` tokens. */
  async function bare400(body: unknown, tokens: number, window?: number, protocol = "openai") {
    fake.enqueue({ fault: { kind: "http", status: 400, body } });
    const openai = protocol === "openai";
    const target: ModelTarget = {
      provider: "custom",
      apiMode: openai ? "chat_completions" : "anthropic_messages",
      model: "m",
      baseUrl: openai ? fake.openaiBaseUrl : fake.anthropicBaseUrl,
      apiKey: "k",
      ...(window ? { contextLength: window } : {}),
    };
    const messages = [{ role: "user" as const, content: "x".repeat(tokens * 4) }];
    return failed(await run(openai ? streamOpenAIChat : streamAnthropic, request(target, { messages })))
      .error;
  }
  const badRequest = { error: { message: "Bad Request", type: "invalid_request_error", code: null } };

  it("is a context overflow on a session at 60% of the window or more", async () => {
    const got = await bare400(badRequest, 9000, 10_000);
    expect(got).toMatchObject({ reason: "context_overflow", shouldCompress: true, status: 400 });
    expect(got.message).toBe(
      "Context probably too long for the model (~90% of its window) (HTTP 400, custom): Bad Request",
    );
    expect(await bare400(badRequest, 7000, 10_000)).toMatchObject({ reason: "context_overflow" });
    // Bodies that say no more than "400" in other words.
    for (const body of [
      { error: { message: "Error code: 400", type: null, code: 400 } },
      { error: { message: "400 Bad Request", type: "invalid_request_error", code: "bad_request" } },
      { error: { message: "HTTP 400: invalid_request_error", type: null, code: null } },
      "null",
    ])
      expect(await bare400(body, 6500, 10_000), JSON.stringify(body)).toMatchObject({
        reason: "context_overflow",
      });
    expect(
      await bare400(
        { type: "error", error: { type: "invalid_request_error", message: "Error" } },
        9500,
        10_000,
        "anthropic",
      ),
    ).toMatchObject({
      reason: "context_overflow",
    });
    expect(await bare400("", 9000, 10_000)).toMatchObject({ reason: "context_overflow" });
  });

  it("stays a request error on a smaller session, with an unknown window, or when the body gives a reason", async () => {
    expect(await bare400(badRequest, 5000, 10_000)).toMatchObject({
      reason: "format_error",
      shouldCompress: false,
    });
    expect(await bare400(badRequest, 9000)).toMatchObject({ reason: "format_error" });
    const reasoned = oe(
      "Invalid 'tools[0].function.name': string does not match pattern '^[a-zA-Z0-9_-]+$'.",
    );
    expect(await bare400(reasoned, 9500, 10_000)).toMatchObject({ reason: "format_error", retryable: false });
  });
});

describe("classifyError: recovery flags and messages", () => {
  it("sets recovery flags by reason", () => {
    expect(classifyError(openaiError(401, oe("bad key")))).toMatchObject({
      shouldRotateCredential: true,
      shouldFallback: true,
      shouldCompress: false,
    });
    expect(classifyError(openaiError(404, oe("no such model")))).toMatchObject({
      shouldFallback: true,
      retryable: false,
    });
  });

  it("makes a human-readable message with status, provider and the API's words", () => {
    const c = classifyError(openaiError(429, oe("Slow down")), { provider: "openrouter" });
    expect(c.message).toBe("Rate limited (HTTP 429, openrouter): Slow down");
  });

  it("reads in-stream errors (no HTTP status) by their body code", () => {
    const inStream = (body: object) => new Anthropic.APIError(undefined, body, undefined, new Headers());
    expect(inStream({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })).toSatisfy(
      (e: unknown) => classifyError(e).reason === "overloaded",
    );
    const cases: Array<[object, string]> = [
      [{ error: { message: "Rate limit exceeded", code: "rate_limit_exceeded" } }, "rate_limit"],
      [{ error: { message: "Provider returned error", code: 429, metadata: { raw: "busy" } } }, "rate_limit"],
      [{ error: { message: "prompt too long", code: "context_length_exceeded" } }, "context_overflow"],
      [{ type: "error", error: { type: "api_error", message: "Internal server error" } }, "server_error"],
      [{ error: { message: "The model is overloaded.", status: "UNAVAILABLE", code: 503 } }, "overloaded"],
    ];
    for (const [body, reason] of cases) {
      const c = classifyError(inStream(body));
      expect(c.reason, JSON.stringify(body)).toBe(reason);
      expect(c.status).toBeUndefined();
    }
  });

  it("classifies status-less errors by their words: billing before rate limit", () => {
    expect(classifyError(new Error("Insufficient credits on this account")).reason).toBe("billing");
    expect(classifyError(new Error("quota exceeded, retry in 30s")).reason).toBe("rate_limit");
    expect(classifyError(new Error("usage limit reached")).reason).toBe("billing");
    expect(classifyError(new Error("key limit exceeded, please wait")).reason).toBe("rate_limit");
    expect(classifyError(new Error("Prompt 超过最大长度限制")).reason).toBe("context_overflow");
    expect(
      classifyError(new Error("The long context beta is not yet available for this subscription.")),
    ).toMatchObject({ reason: "oauth_long_context_beta_forbidden", shouldRotateCredential: false });
    expect(classifyError(new Error("Too Many Requests")).reason).toBe("rate_limit");
    expect(classifyError(new Error("maximum context length exceeded")).reason).toBe("context_overflow");
  });

  it("refuses content-policy blocks at once, in-stream too, keeping the provider's words", () => {
    const c = classifyError(
      openaiError(400, oe("This request violates our usage policy (weapons).", "content_policy_violation")),
      {
        provider: "openai",
      },
    );
    expect(c).toMatchObject({ reason: "content_policy_blocked", retryable: false, shouldFallback: false });
    expect(c.message).toBe(
      "Refused by the provider's content policy (HTTP 400, openai): This request violates our usage policy (weapons).",
    );
    const inStream = new Anthropic.APIError(
      undefined,
      {
        type: "error",
        error: { type: "invalid_request_error", message: "Output blocked by content filtering policy" },
      },
      undefined,
      new Headers(),
    );
    expect(classifyError(inStream)).toMatchObject({ reason: "content_policy_blocked", retryable: false });
    expect(classifyError(inStream).status).toBeUndefined();
    expect(classifyError(new Error("Your request was flagged by our safety system.")).reason).toBe(
      "content_policy_blocked",
    );
  });

  it("reads a failed Responses stream that rejects the replayed reasoning", () => {
    const failedResponse = new ResponseFailedError({
      code: "invalid_encrypted_content",
      message: "The encrypted content for item rs_1 could not be verified.",
    });
    expect(classifyError(failedResponse)).toMatchObject({
      reason: "invalid_encrypted_content",
      retryable: false,
    });
  });

  it("reads plan and free-tier limits as billing unless they say when they lift", () => {
    expect(
      classifyError(new Error("Your free tier has run out; upgrade your plan to continue.")).reason,
    ).toBe("billing");
    expect(classifyError(new Error("You exceeded your current quota")).reason).toBe("billing");
    const throttled = openaiError(
      400,
      oe("Rate limit reached for requests on the free tier. Please try again in 20s."),
    );
    expect(classifyError(throttled)).toMatchObject({ reason: "rate_limit", retryable: true });
  });

  it("marks an upstream OpenRouter 429 as not the key's fault and an account 429 as the key's", () => {
    const upstream = classifyError(
      openaiError(429, { error: { message: "Provider returned error", code: 429, metadata: { raw: "x" } } }),
    );
    expect(upstream).toMatchObject({
      reason: "rate_limit",
      shouldRotateCredential: false,
      shouldFallback: true,
    });
    const account = classifyError(openaiError(429, { error: { message: "Rate limit exceeded", code: 429 } }));
    expect(account).toMatchObject({ reason: "rate_limit", shouldRotateCredential: true });
  });
});

describe("classifyError: transport errors", () => {
  const refused = () => {
    const sys = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    return new OpenAI.APIConnectionError({ cause: new TypeError("fetch failed", { cause: sys }) });
  };

  it("names the URL on connection refused", () => {
    const c = classifyError(refused(), { baseUrl: "https://llm.example.com:9/v1" });
    expect(c.message).toBe(
      "Cannot reach https://llm.example.com:9/v1 (connection refused). Is the server running?",
    );
    expect(c).toMatchObject({ reason: "connection_refused", retryable: true });
  });

  it("finds codes inside AggregateError (both address families refused)", () => {
    const agg = new AggregateError(
      [Object.assign(new Error("x"), { code: "ECONNREFUSED" })],
      "connect failed",
    );
    expect(classifyError(new TypeError("fetch failed", { cause: agg })).message).toContain(
      "connection refused",
    );
  });

  it("explains DNS failures", () => {
    const dns = Object.assign(new Error("getaddrinfo ENOTFOUND nope.invalid"), { code: "ENOTFOUND" });
    const c = classifyError(new TypeError("fetch failed", { cause: dns }), {
      baseUrl: "http://nope.invalid",
    });
    expect(c.message).toContain("host name not found");
  });

  it("treats timeouts as retryable timeouts and aborts as final", () => {
    expect(classifyError(new OpenAI.APIConnectionTimeoutError())).toMatchObject({
      reason: "timeout",
      retryable: true,
    });
    expect(classifyError(new Anthropic.APIUserAbortError())).toMatchObject({
      reason: "aborted",
      retryable: false,
    });
    expect(classifyError(new DOMException("aborted", "AbortError")).reason).toBe("aborted");
  });

  it("reads a disconnect on a large session as context overflow, but never an SSL error", () => {
    const reset = () =>
      new TypeError("terminated", {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      });
    const big = { approxTokens: 90_000, contextLength: 100_000 };
    expect(classifyError(reset(), big)).toMatchObject({ reason: "context_overflow", shouldCompress: true });
    expect(classifyError(reset(), { approxTokens: 1000, contextLength: 100_000 })).toMatchObject({
      reason: "timeout",
      shouldCompress: false,
    });
    const ssl = new Error("ssl3_read_bytes: sslv3 alert bad record mac; socket hang up");
    expect(classifyError(ssl, big)).toMatchObject({ reason: "timeout", shouldCompress: false });
  });

  it("reads dropped connections and broken bodies as retryable transport failures", () => {
    const sock = (message: string, code?: string) =>
      new TypeError("terminated", { cause: Object.assign(new Error(message), code ? { code } : {}) });
    const dropped = [
      new Error("peer closed connection without sending complete message body (incomplete chunked read)"),
      new Error("incomplete chunked read"),
      sock("Premature close"),
      sock("other side closed", "UND_ERR_SOCKET"),
      sock("read ECONNRESET", "ECONNRESET"),
      new Error("socket hang up"),
    ];
    for (const err of dropped) {
      const c = classifyError(err, { approxTokens: 2000, contextLength: 100_000, baseUrl: "http://h/v1" });
      expect(c, String(err.message)).toMatchObject({
        reason: "timeout",
        retryable: true,
        shouldCompress: false,
      });
      expect(c.message).toBe("Connection to http://h/v1 was closed mid-response.");
    }
  });

  it("reads a disconnect on a large request as a timeout when it does not fill the window", () => {
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    });
    expect(classifyError(reset, { approxTokens: 300_000, contextLength: 1_000_000 })).toMatchObject({
      reason: "timeout",
      retryable: true,
      shouldCompress: false,
    });
    expect(classifyError(new Error("socket hang up"), { approxTokens: 150_000 })).toMatchObject({
      reason: "timeout",
    });
    // The words win over the size: a disconnect that says the context overflowed is an overflow.
    const said = new Error("socket hang up: prompt is too long for this model");
    expect(classifyError(said, { approxTokens: 1000, contextLength: 100_000 })).toMatchObject({
      reason: "context_overflow",
      shouldCompress: true,
    });
  });

  it("falls back to a retryable unknown and never throws", () => {
    expect(classifyError("weird")).toMatchObject({ reason: "unknown", retryable: true });
    expect(classifyError(undefined).reason).toBe("unknown");
    const hostile = {
      get message(): string {
        throw new Error("boom");
      },
    };
    expect(classifyError(hostile).reason).toBe("unknown");
  });
});

describe("parseResetAt", () => {
  const now = 1_700_000_000_000;
  const err = (headers: Record<string, string>) => ({ headers: new Headers(headers) });
  it.each([
    [{ "retry-after": "7" }, now + 7000],
    [{ "retry-after-ms": "250" }, now + 250],
    [{ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")],
    [{ "x-ratelimit-reset": "1700000060" }, 1_700_000_060_000],
    [{ "x-ratelimit-reset-tokens": "6m0s" }, now + 360_000],
    [{ "x-ratelimit-reset-requests": "1.5s" }, now + 1500],
    [{ "anthropic-ratelimit-tokens-reset": "2023-11-14T22:14:00Z" }, Date.parse("2023-11-14T22:14:00Z")],
  ])("%o", (headers, expected) => {
    expect(parseResetAt(err(headers), now)).toBe(expected);
  });

  it("accepts plain header records and returns undefined when nothing parses", () => {
    expect(parseResetAt({ headers: { "Retry-After": "3" } }, now)).toBe(now + 3000);
    expect(parseResetAt({ headers: { "retry-after": "soon" } }, now)).toBeUndefined();
    expect(parseResetAt({}, now)).toBeUndefined();
  });

  it("fills resetAt on a classified 429", () => {
    const c = classifyError(openaiError(429, oe("slow"), { "retry-after": "2" }), { now });
    expect(c.resetAt).toBe(now + 2000);
  });
});
