import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { lastUser } from "../runtime/support.js";
import { KEY, useApiServer } from "./support.js";

const api = useApiServer();

/** The official client as applications use it: default retries, default backoff. */
const defaultClient = (url: string): OpenAI => new OpenAI({ apiKey: KEY, baseURL: `${url}/v1` });

interface ErrorBody {
  error: { message: string; type: string; code: string | null };
}

describe("safe retries", () => {
  it("finishes 50 concurrent streamed requests of the official client (default retries) with 4 run slots", async () => {
    const t = await api.start("platforms:\n  api_server:\n    max_concurrent_runs: 4\n");
    api.fake.setResponder((req) => ({ text: `echo ${lastUser(req)}`, chunkSize: 4, delayMs: 20 }));
    const client = defaultClient(t.url);
    const one = async (i: number): Promise<string> => {
      const stream = await client.chat.completions.create({
        model: "hermes-agent",
        messages: [{ role: "user", content: `request ${i}` }],
        stream: true,
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      return text;
    };
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => one(i)));
    const failed = results.filter((r) => r.status === "rejected");
    expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect(results.map((r) => (r as PromiseFulfilledResult<string>).value)).toEqual(
      Array.from({ length: 50 }, (_, i) => `echo request ${i}`),
    );
    // Each request ran once: nothing was refused and retried.
    expect(api.fake.requests).toHaveLength(50);
  });

  it("answers a provider that refuses our key with a 502 the SDKs do not retry", async () => {
    const t = await api.start();
    api.fake.enqueue({
      fault: { kind: "http", status: 401, body: { error: { message: "invalid x-api-key" } } },
    });
    const res = await t.post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(502);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(((await res.json()) as ErrorBody).error).toMatchObject({ type: "server_error", code: "auth" });

    api.fake.enqueue({
      fault: { kind: "http", status: 401, body: { error: { message: "invalid x-api-key" } } },
    });
    await expect(
      defaultClient(t.url).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    // The default client obeyed x-should-retry: one model request per API request.
    expect(api.fake.requests).toHaveLength(2);
  });

  it("passes a provider's rate limit on as 429 with its wait, and a provider's 5xx as 502", async () => {
    const t = await api.start();
    api.fake.enqueue({
      fault: {
        kind: "http",
        status: 429,
        body: { error: { message: "rate limited" } },
        headers: { "retry-after": "7" },
      },
    });
    const limited = await t.post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(6);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(7);
    expect(((await limited.json()) as ErrorBody).error.code).toBe("upstream_rate_limited");

    api.fake.enqueue({ fault: { kind: "http", status: 500, body: { error: { message: "boom" } } } });
    const broken = await t.post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] });
    expect(broken.status).toBe(502);
    expect(broken.headers.get("x-should-retry")).toBeNull();

    api.fake.enqueue({
      fault: {
        kind: "http",
        status: 400,
        body: { error: { message: "This model's maximum context length is 8192 tokens" } },
      },
    });
    const long = await t.post("/v1/responses", { input: "hi" });
    expect(long.status).toBe(400);
    expect(((await long.json()) as ErrorBody).error).toMatchObject({
      type: "invalid_request_error",
      code: "context_length_exceeded",
    });
  });
});
