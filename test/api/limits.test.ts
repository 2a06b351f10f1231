import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { lastUser } from "../runtime/support.js";
import { eventually, KEY, useApiServer } from "./support.js";

const api = useApiServer();

interface ErrorBody {
  error: { message: string; type: string; code: string | null; param?: string | null };
}

describe("auth", () => {
  it("refuses a missing or wrong key with 401 in OpenAI's shape; /health needs none", async () => {
    const t = await api.start();
    const missing = await t.call("/v1/models", { key: null });
    expect(missing.status).toBe(401);
    const body = (await missing.json()) as ErrorBody;
    expect(body.error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    expect(body.error.message).toMatch(/Bearer/);

    const wrong = new OpenAI({ apiKey: `${KEY}-wrong`, baseURL: `${t.url}/v1`, maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(api.fake.requests).toHaveLength(0);

    for (const path of ["/health", "/v1/health"]) {
      const health = await t.call(path, { key: null });
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
    }
    const models = await t.client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["hermes-agent"]);
  });
});

describe("limits", () => {
  it("queues past max_concurrent_runs, then answers 429 with a jittered retry-after once the queue timeout passes", async () => {
    const t = await api.start(
      "platforms:\n  api_server:\n    max_concurrent_runs: 1\n    queue_timeout: 0.3\n",
    );
    api.fake.enqueue({ fault: { kind: "hang" } });
    const held = new AbortController();
    const first = t.client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hold" }] }, { signal: held.signal })
      .catch((err: unknown) => err);
    await eventually(() => api.fake.requests.length === 1, "the first run to reach the model");

    const second = await t.post("/v1/chat/completions", { messages: [{ role: "user", content: "second" }] });
    expect(second.status).toBe(429);
    const ms = Number(second.headers.get("retry-after-ms"));
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThanOrEqual(3000);
    expect(second.headers.get("retry-after")).toBe(String(Math.ceil(ms / 1000)));
    const body = (await second.json()) as ErrorBody;
    expect(body.error.type).toBe("rate_limit_error");
    expect(body.error.message).toMatch(/no run slot freed within 0\.3 s/);
    await expect(
      t.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "third" }] }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    // Refused requests never reached the model.
    expect(api.fake.requests).toHaveLength(1);

    held.abort();
    await first;
    await eventually(() => t.server.status().runsInFlight === 0, "the held run to end");
    api.fake.enqueue({ text: "free again" });
    const after = await t.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "now" }],
    });
    expect(after.choices[0]?.message.content).toBe("free again");
  });

  it("serves queued requests in arrival order as slots free", async () => {
    const t = await api.start("platforms:\n  api_server:\n    max_concurrent_runs: 1\n");
    api.fake.setResponder((req) => ({ text: `answer to ${lastUser(req)}` }));
    api.fake.enqueue({ fault: { kind: "hang" } });
    const held = new AbortController();
    const first = t.client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "one" }] }, { signal: held.signal })
      .catch((err: unknown) => err);
    await eventually(() => api.fake.requests.length === 1, "the first run");
    const later: Promise<string | null | undefined>[] = [];
    for (const content of ["two", "three", "four"]) {
      later.push(
        t.client.chat.completions
          .create({ model: "m", messages: [{ role: "user", content }] })
          .then((a) => a.choices[0]?.message.content),
      );
      await eventually(() => t.server.status().runsQueued === later.length, `${content} to wait`);
    }
    held.abort();
    await first;
    expect(await Promise.all(later)).toEqual(["answer to two", "answer to three", "answer to four"]);
    expect(api.fake.requests.map((r) => lastUser(r))).toEqual(["one", "two", "three", "four"]);
  });

  it("stops the run when the client disconnects mid-stream: no further model requests, the session ends", async () => {
    const t = await api.start();
    api.fake.enqueue(
      { text: "Starting a long job.", toolCalls: [{ name: "terminal", arguments: { command: "sleep 20" } }] },
      { text: "this answer is never asked for" },
    );
    const controller = new AbortController();
    const { data: stream, response } = await t.client.chat.completions
      .create(
        { model: "m", messages: [{ role: "user", content: "start the job" }], stream: true },
        { signal: controller.signal },
      )
      .withResponse();
    const sessionId = response.headers.get("x-hermes-session-id")!;
    let seen = "";
    try {
      for await (const chunk of stream) {
        seen += chunk.choices[0]?.delta.content ?? "";
        if (seen.includes("long job")) controller.abort();
      }
    } catch (err) {
      expect(err).toBeInstanceOf(OpenAI.APIUserAbortError);
    }
    expect(seen).toContain("long job");
    await eventually(() => t.server.status().runsInFlight === 0, "the run to stop");
    await eventually(() => t.runtime.sessions?.getSession(sessionId)?.endedAt != null, "the session to end");
    // The run is over: the scripted second turn was never requested.
    expect(api.fake.requests).toHaveLength(1);
    expect(api.fake.pending()).toBe(1);
  });

  it("answers 413 past the body limit", async () => {
    const t = await api.start("", { maxBodyBytes: 4096 });
    const res = await t.post("/v1/chat/completions", {
      messages: [{ role: "user", content: "x".repeat(8192) }],
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe("request_too_large");
  });
});

describe("bad requests", () => {
  const cases: Array<[string, string, unknown, RegExp]> = [
    ["/v1/chat/completions", "no messages", { model: "m" }, /^messages must be an array/],
    [
      "/v1/chat/completions",
      "a bad role",
      {
        messages: [
          { role: "user", content: "a" },
          { role: "robot", content: "b" },
        ],
      },
      /^messages\[1\]\.role must be one of system, developer, user, assistant, tool, not "robot"/,
    ],
    [
      "/v1/chat/completions",
      "a last message that is not the user's",
      {
        messages: [
          { role: "user", content: "a" },
          { role: "assistant", content: "b" },
        ],
      },
      /^messages\[1\]\.role must be user/,
    ],
    [
      "/v1/chat/completions",
      "a stray tool result",
      {
        messages: [
          { role: "user", content: "a" },
          { role: "tool", tool_call_id: "call_x", content: "r" },
          { role: "user", content: "b" },
        ],
      },
      /^messages\[1\]\.tool_call_id .* does not answer a tool call/,
    ],
    [
      "/v1/chat/completions",
      "stream that is not a boolean",
      { stream: "yes", messages: [] },
      /^stream must be true or false/,
    ],
    ["/v1/chat/completions", "a body that is not JSON", "{not json", /not valid JSON/],
    [
      "/v1/responses",
      "input of the wrong type",
      { input: 42 },
      /^input must be a string or an array of items, not a number/,
    ],
    ["/v1/responses", "an empty user message", { input: "   " }, /^input is empty/],
  ];
  for (const [path, what, body, message] of cases) {
    it(`answers 400 naming the field for ${what}`, async () => {
      const t = await api.start();
      const res = await t.post(path, body);
      expect(res.status).toBe(400);
      const err = ((await res.json()) as ErrorBody).error;
      expect(err.type).toBe("invalid_request_error");
      expect(err.message).toMatch(message);
      expect(api.fake.requests).toHaveLength(0);
    });
  }

  it("answers 415 to a body sent as a form, naming the content type to use", async () => {
    const t = await api.start();
    const res = await t.call("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(415);
    const err = ((await res.json()) as ErrorBody).error;
    expect(err.code).toBe("unsupported_media_type");
    expect(err.message).toMatch(/must be application\/json/);
    expect(api.fake.requests).toHaveLength(0);
  });

  it("answers 404 for unknown routes and 405 for a wrong method", async () => {
    const t = await api.start();
    expect((await t.call("/v1/nothing")).status).toBe(404);
    const wrong = await t.call("/v1/chat/completions");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await t.call("/v1/responses/resp_unknown")).status).toBe(404);
  });
});

describe("CORS", () => {
  it("answers only the configured origins", async () => {
    const t = await api.start("platforms:\n  api_server:\n    cors_origins: [https://app.example]\n");
    const preflight = (origin: string) =>
      t.call("/v1/chat/completions", {
        method: "OPTIONS",
        key: null,
        headers: { origin, "access-control-request-method": "POST" },
      });
    const allowed = await preflight("https://app.example");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const other = await preflight("https://evil.example");
    expect(other.status).toBe(403);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const models = await t.call("/v1/models", { headers: { origin: "https://app.example" } });
    expect(models.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });
});
