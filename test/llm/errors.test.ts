import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { classifyError, parseResetAt } from "../../src/llm/errors.js";

const openaiError = (status: number, body: object, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, body, undefined, new Headers(headers));
const anthropicError = (status: number, type: string, message: string) =>
  Anthropic.APIError.generate(status, { type: "error", error: { type, message } }, undefined, new Headers());
const oe = (message: string, code: string | null = null, type = "invalid_request_error") => ({
  error: { message, type, code, param: null },
});

describe("classifyError: HTTP errors", () => {
  it.each([
    ["401", openaiError(401, oe("Incorrect API key", "invalid_api_key")), "auth", false],
    ["403", anthropicError(403, "permission_error", "not allowed"), "auth", false],
    ["402 billing", openaiError(402, oe("Insufficient credits. Add more.")), "billing", false],
    [
      "402 transient",
      openaiError(402, oe("Usage limit reached, try again in 5 minutes")),
      "rate_limit",
      true,
    ],
    [
      "429 quota = billing",
      openaiError(429, oe("You exceeded your current quota", "insufficient_quota")),
      "billing",
      false,
    ],
    [
      "429",
      anthropicError(429, "rate_limit_error", "Number of requests has exceeded your rate limit"),
      "rate_limit",
      true,
    ],
    [
      "404",
      openaiError(404, oe("The model `x` does not exist", "model_not_found")),
      "model_not_found",
      false,
    ],
    [
      "404 policy",
      openaiError(404, oe("No endpoints found matching your data policy")),
      "provider_policy_blocked",
      false,
    ],
    [
      "413",
      anthropicError(413, "request_too_large", "Request exceeds the maximum size"),
      "payload_too_large",
      true,
    ],
    ["400 format", openaiError(400, oe("Invalid value for 'tools[0].type'")), "format_error", false],
    [
      "400 image",
      anthropicError(400, "invalid_request_error", "image exceeds 5 MB maximum"),
      "image_too_large",
      false,
    ],
    ["500", openaiError(500, oe("server error", null, "server_error")), "server_error", true],
    ["502", openaiError(502, oe("bad gateway")), "server_error", true],
    ["503", openaiError(503, oe("overloaded")), "overloaded", true],
    ["529", anthropicError(529, "overloaded_error", "Overloaded"), "overloaded", true],
    [
      "in-stream overloaded (SSE error event, no status)",
      new Anthropic.APIError(
        undefined,
        { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        undefined,
        new Headers(),
      ),
      "overloaded",
      true,
    ],
    [
      "thinking signature",
      anthropicError(400, "invalid_request_error", "Invalid `signature` in `thinking` block"),
      "thinking_signature",
      true,
    ],
  ] as const)("%s", (_name, err, reason, retryable) => {
    const c = classifyError(err, { provider: "test" });
    expect(c.reason).toBe(reason);
    expect(c.retryable).toBe(retryable);
    expect(c.message).not.toMatch(/^\d{3} /);
  });

  it.each([
    "This model's maximum context length is 128000 tokens",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "context_length_exceeded",
    "Too many tokens in request",
  ])("400 '%s' → context_overflow with shouldCompress", (message) => {
    const c = classifyError(openaiError(400, oe(message)));
    expect(c).toMatchObject({
      reason: "context_overflow",
      shouldCompress: true,
      retryable: true,
      status: 400,
    });
  });

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
});

describe("classifyError: transport errors", () => {
  const refused = () => {
    const sys = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    return new OpenAI.APIConnectionError({ cause: new TypeError("fetch failed", { cause: sys }) });
  };

  it("names the URL on connection refused", () => {
    const c = classifyError(refused(), { baseUrl: "http://127.0.0.1:9/v1" });
    expect(c.message).toBe("Cannot reach http://127.0.0.1:9/v1 (connection refused). Is the server running?");
    expect(c.retryable).toBe(true);
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
