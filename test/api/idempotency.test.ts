import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { apiServerUrl, cleanEnv, startHermes } from "../support/cli.js";
import { openaiConfig } from "../support/e2e.js";
import { eventually, KEY, useApiServer } from "./support.js";

const api = useApiServer();

interface ErrorBody {
  error: { message: string; type: string; code: string | null };
}

const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

describe("Idempotency-Key", () => {
  it("answers a retry with the first attempt's answer: the agent runs once and the user message is stored once", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "the only answer" });
    const body = { model: "m", messages: [{ role: "user" as const, content: "do it once" }] };
    const first = await t.client.chat.completions.create(body, withKey("order-1"));
    const { data: again, response } = await t.client.chat.completions
      .create(body, withKey("order-1"))
      .withResponse();
    expect(again).toEqual(first);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(api.fake.requests).toHaveLength(1);
    const sessions = t.runtime.sessions!.listSessions({ source: "api_server" });
    expect(sessions).toHaveLength(1);
    const users = t.runtime.sessions!.loadMessages(sessions[0]!.id).filter((m) => m.message.role === "user");
    expect(users).toHaveLength(1);

    // Without the key (or with another one) the same request runs again.
    api.fake.enqueue({ text: "a second answer" });
    const other = await t.client.chat.completions.create(body, withKey("order-2"));
    expect(other.choices[0]?.message.content).toBe("a second answer");
  });

  it("makes a retry that arrives while the first attempt runs wait for it, then get its answer", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "slow but single", delayMs: 300 });
    const body = { model: "m", messages: [{ role: "user" as const, content: "slow" }] };
    const first = t.client.chat.completions.create(body, withKey("slow-1"));
    await eventually(() => api.fake.requests.length === 1, "the first attempt to reach the model");
    const retry = t.client.chat.completions.create(body, withKey("slow-1"));
    const [a, b] = await Promise.all([first, retry]);
    expect(b).toEqual(a);
    expect(a.choices[0]?.message.content).toBe("slow but single");
    expect(api.fake.requests).toHaveLength(1);
  });

  it("replays a streamed answer as a stream, with the same text", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "streamed once", chunkSize: 3 });
    const read = async (): Promise<string> => {
      const stream = await t.client.chat.completions.create(
        { model: "m", messages: [{ role: "user", content: "stream" }], stream: true },
        withKey("stream-1"),
      );
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      return text;
    };
    expect(await read()).toBe("streamed once");
    expect(await read()).toBe("streamed once");
    expect(api.fake.requests).toHaveLength(1);
  });

  it("keeps a model-side 400 for the retries, and releases a 5xx so a retry runs", async () => {
    const t = await api.start();
    const body = { messages: [{ role: "user", content: "refused" }] };
    const post = (key: string) =>
      t.call("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
      });
    api.fake.enqueue({
      fault: { kind: "http", status: 400, body: { error: { message: "bad input upstream" } } },
    });
    expect((await post("bad-1")).status).toBe(400);
    const replayed = await post("bad-1");
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as ErrorBody).error.message).toMatch(/bad input upstream/);
    expect(api.fake.requests).toHaveLength(1);

    api.fake.enqueue(
      { fault: { kind: "http", status: 500, body: { error: { message: "flaky" } } } },
      { text: "worked the second time" },
    );
    expect((await post("flaky-1")).status).toBe(502);
    const retried = await post("flaky-1");
    expect(retried.status).toBe(200);
    expect(api.fake.requests).toHaveLength(3);
  });

  it("refuses a key reused with another request (422), and keeps keys apart per caller", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "first" });
    await t.client.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "one thing" }] },
      withKey("k"),
    );
    const reuse = await t.client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "another thing" }] }, withKey("k"))
      .catch((err: unknown) => err);
    expect(reuse).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((reuse as InstanceType<typeof OpenAI.APIError>).code).toBe("idempotency_key_reused");

    // Another end user (`user`) of the key has keys of their own.
    api.fake.enqueue({ text: "for bob" });
    const bob = await t.client.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "one thing" }], user: "bob" },
      withKey("k"),
    );
    expect(bob.choices[0]?.message.content).toBe("for bob");
    expect(api.fake.requests).toHaveLength(2);
  });

  it("replays a Responses answer with its id, streamed or not", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "responded once" });
    const first = await t.client.responses.create({ model: "m", input: "hello" }, withKey("r-1"));
    const again = await t.client.responses.create({ model: "m", input: "hello" }, withKey("r-1"));
    expect(again.id).toBe(first.id);
    expect(again.output_text).toBe("responded once");
    const client = new OpenAI({ apiKey: KEY, baseURL: `${t.url}/v1`, maxRetries: 0 });
    api.fake.enqueue({ text: "streamed response" });
    const stream = await client.responses.create(
      { model: "m", input: "hello stream", stream: true },
      withKey("r-2"),
    );
    let done: string | undefined;
    for await (const event of stream) if (event.type === "response.completed") done = event.response.id;
    const replay = await client.responses.create(
      { model: "m", input: "hello stream", stream: true },
      withKey("r-2"),
    );
    let text = "";
    let replayedId: string | undefined;
    for await (const event of replay) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") replayedId = event.response.id;
    }
    expect(text).toBe("streamed response");
    expect(replayedId).toBe(done);
    expect(api.fake.requests).toHaveLength(2);
  });

  it("still answers retries once while state.db cannot be opened (records kept in memory)", async () => {
    const t = await api.start("", {}, openaiConfig, { "state.db": "this is not a database" });
    expect(t.runtime.sessions).toBeUndefined();
    api.fake.enqueue({ text: "without a store" });
    const body = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
    const first = await t.client.chat.completions.create(body, withKey("mem-1"));
    const again = await t.client.chat.completions.create(body, withKey("mem-1"));
    expect(again).toEqual(first);
    expect(api.fake.requests).toHaveLength(1);
  });

  it("answers a retry sent to another server process on the same state.db with the first answer", async () => {
    const t = await api.start();
    const other = startHermes(["api", "serve", "--port", "0"], {
      env: cleanEnv({ HERMES_HOME: t.box.home, OPENAI_API_KEY: "test-key", API_SERVER_KEY: KEY }),
      cwd: t.box.work,
    });
    const otherUrl = await apiServerUrl(other);
    api.fake.enqueue({ text: "answered by the first process", delayMs: 400 });
    const body = { model: "m", messages: [{ role: "user" as const, content: "once across processes" }] };
    const first = t.client.chat.completions.create(body, withKey("shared-1"));
    await eventually(() => api.fake.requests.length === 1, "the first attempt to reach the model");
    const otherClient = new OpenAI({ apiKey: KEY, baseURL: `${otherUrl}/v1`, maxRetries: 0 });
    const { data: retried, response } = await otherClient.chat.completions
      .create(body, withKey("shared-1"))
      .withResponse();
    expect(retried).toEqual(await first);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(api.fake.requests).toHaveLength(1);
    other.child.kill("SIGTERM");
    expect((await other.done).code).toBe(0);
  });
});
