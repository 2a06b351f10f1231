import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAIHeaders, openAIUrl, streamOpenAIEvents } from "../../src/llm/openai-wire.js";
import { type FakeLlm, type ScriptedTurn, startFakeLlm } from "../support/fake-llm.js";

/** The SDK client as Hermes configured it before it spoke the wire itself. */
const sdkClient = (baseURL: string, apiKey: string, headers?: Record<string, string>) =>
  new OpenAI({ baseURL, apiKey: apiKey || "not-needed", maxRetries: 0, defaultHeaders: headers });

const BODY = {
  model: "m",
  messages: [{ role: "user" as const, content: "héllo" }],
  stream: true as const,
  stream_options: { include_usage: true },
};

async function drain<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** What a call throws, or undefined. */
async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
    return undefined;
  } catch (err) {
    return err;
  }
}

const shape = (err: unknown) => {
  const e = err as InstanceType<typeof OpenAI.APIError>;
  return {
    name: e.constructor.name,
    message: e.message,
    status: e.status,
    error: e.error,
    code: e.code,
    retryAfter: e.headers?.get("retry-after") ?? null,
  };
};

describe("the OpenAI wire, against the openai SDK's client", () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });

  it.each([
    "https://api.example.com/v1",
    "https://api.example.com/v1/",
    "http://127.0.0.1:8080/openai/v1",
    "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
    "https://gw.example.com/v1/?a=1&b=x%20y",
  ])("joins %s and a path as the SDK does", (base) => {
    for (const path of ["/chat/completions", "/responses"]) {
      expect(openAIUrl(base, path)).toBe(sdkClient(base, "k").buildURL(path, undefined));
    }
  });

  it("sends the body and headers the SDK sent (its own X-Stainless-* aside)", async () => {
    const saved = { org: process.env.OPENAI_ORG_ID, project: process.env.OPENAI_PROJECT_ID };
    process.env.OPENAI_ORG_ID = "org-1";
    process.env.OPENAI_PROJECT_ID = "proj-1";
    try {
      const headers = {
        "X-Title": "Hermes Agent",
        "HTTP-Referer": "https://example.org",
        "user-agent": "custom/1",
      };
      const turn: ScriptedTurn = { text: "hi" };
      fake.enqueue(turn, turn);
      const target = { baseUrl: fake.openaiBaseUrl, apiKey: "sk-test", headers };
      await drain(await sdkClient(target.baseUrl, target.apiKey, headers).chat.completions.create(BODY));
      await drain(await streamOpenAIEvents(target, "/chat/completions", BODY, new AbortController().signal));
      const [viaSdk, viaWire] = fake.requests.slice(-2);
      expect(viaWire!.rawBody).toBe(viaSdk!.rawBody);
      expect(viaWire!.path).toBe(viaSdk!.path);
      // Added by fetch itself, or describing the SDK's runtime: not part of the request Hermes makes.
      const own =
        /^(x-stainless-|host$|connection$|content-length$|accept-encoding$|accept-language$|sec-fetch-mode$)/;
      const keep = (h: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(h).filter(([k]) => !own.test(k)));
      expect(keep(viaWire!.headers)).toEqual(keep(viaSdk!.headers));
      expect(viaWire!.headers["openai-organization"]).toBe("org-1");
      expect(viaWire!.headers["user-agent"]).toBe("custom/1");
    } finally {
      for (const [k, v] of [
        ["OPENAI_ORG_ID", saved.org],
        ["OPENAI_PROJECT_ID", saved.project],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it.each<[string, ScriptedTurn]>([
    ["a 400 with an OpenAI error body", { fault: { kind: "http", status: 400 } }],
    ["a 401", { fault: { kind: "http", status: 401 } }],
    ["a 429 with retry-after", { fault: { kind: "http", status: 429, headers: { "retry-after": "7" } } }],
    ["a 500 with a plain-text body", { fault: { kind: "http", status: 500, body: "upstream exploded" } }],
    ["a 503 with an empty body", { fault: { kind: "http", status: 503, body: "" } }],
    [
      "an error inside the stream",
      { fault: { kind: "stream_error", code: "server_error", message: "boom" } },
    ],
  ])("fails on %s with the error the SDK throws", async (_, turn) => {
    const target = { baseUrl: fake.openaiBaseUrl, apiKey: "k" };
    fake.enqueue(turn, turn);
    const sdkError = await failure(async () =>
      drain(await sdkClient(target.baseUrl, "k").chat.completions.create(BODY)),
    );
    const wireError = await failure(async () =>
      drain(await streamOpenAIEvents(target, "/chat/completions", BODY, new AbortController().signal)),
    );
    expect(sdkError).toBeInstanceOf(OpenAI.APIError);
    expect(shape(wireError)).toEqual(shape(sdkError));
  });

  it("reshapes a Google-style error list so the message survives", async () => {
    fake.enqueue({
      fault: {
        kind: "http",
        status: 400,
        body: [
          {
            error: {
              code: 400,
              message: "Request contains an invalid argument.",
              status: "INVALID_ARGUMENT",
            },
          },
        ],
      },
    });
    const err = await failure(async () =>
      drain(
        await streamOpenAIEvents(
          { baseUrl: fake.openaiBaseUrl, apiKey: "k" },
          "/chat/completions",
          BODY,
          new AbortController().signal,
        ),
      ),
    );
    expect(shape(err)).toMatchObject({
      name: "BadRequestError",
      message: "400 Request contains an invalid argument.",
    });
  });

  it("reports a refused connection as the SDK's connection error, with the socket error as cause", async () => {
    const closed = await startFakeLlm();
    const baseUrl = closed.openaiBaseUrl;
    await closed.close();
    const err = await failure(() =>
      streamOpenAIEvents({ baseUrl, apiKey: "k" }, "/chat/completions", BODY, new AbortController().signal),
    );
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect((err as Error).message).toBe("Connection error.");
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });

  it("an abort while waiting is the SDK's user abort", async () => {
    fake.enqueue({ fault: { kind: "hang" } });
    const controller = new AbortController();
    const pending = failure(() =>
      streamOpenAIEvents(
        { baseUrl: fake.openaiBaseUrl, apiKey: "k" },
        "/chat/completions",
        BODY,
        controller.signal,
      ),
    );
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
  });
});

describe("request headers", () => {
  it("merge by name whatever the case, the target's winning, the JSON type last", () => {
    const headers = openAIHeaders(
      { apiKey: "", headers: { authorization: "Bearer mine", "content-type": "text/plain", "X-A": "1" } },
      "1.2.3",
      { OPENAI_CUSTOM_HEADERS: "X-B: two\nX-A: env" },
    );
    expect(headers).toEqual({
      Accept: "application/json",
      "User-Agent": "OpenAI/JS 1.2.3",
      authorization: "Bearer mine",
      "X-A": "1",
      "X-B": "two",
      "Content-Type": "application/json",
    });
    expect(openAIHeaders({ apiKey: "" }, "1", {}).Authorization).toBe("Bearer not-needed");
  });
});
