import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { text } from "../runtime/support.js";
import { messagesOf, toolMessagesOf } from "../support/e2e.js";
import { eventually, KEY, useApiServer } from "./support.js";

const api = useApiServer();

describe("POST /v1/chat/completions", () => {
  it("runs a tool server-side and answers with a chat.completion and its usage", async () => {
    const t = await api.start();
    api.fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "echo tool-output-4711" } }] },
      { text: "The tool printed 4711." },
    );
    const { data, response } = await t.client.chat.completions
      .create({
        model: "hermes-agent",
        messages: [
          { role: "system", content: "Answer in one sentence." },
          { role: "user", content: "run the echo" },
        ],
      })
      .withResponse();

    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("hermes-agent");
    expect(data.choices[0]?.message.content).toBe("The tool printed 4711.");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);

    // The model's second request carries the tool's result.
    expect(api.fake.requests).toHaveLength(2);
    const results = toolMessagesOf(api.fake.requests[1]!);
    expect(results.map((m) => text(m)).join("")).toContain("tool-output-4711");

    // The caller's system message rides on the first user message; Hermes's own prompt is untouched.
    const first = messagesOf(api.fake.requests[0]!);
    expect(text(first[0])).not.toContain("Answer in one sentence.");
    const user = first.find((m) => m.role === "user");
    expect(text(user)).toContain("Answer in one sentence.");
    expect(text(user)).toContain("run the echo");

    // The run's session is in state.db, from the API, and ended with the request.
    const sessionId = response.headers.get("x-hermes-session-id");
    expect(sessionId).toBeTruthy();
    await eventually(() => t.runtime.sessions?.getSession(sessionId!)?.endedAt != null, "the session to end");
    const session = t.runtime.sessions!.getSession(sessionId!)!;
    expect(session.source).toBe("api_server");
    expect(t.server.status().runsInFlight).toBe(0);
  });

  it("streams real chunks, then usage when asked, and ends with [DONE]", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "Hello from a streamed answer.", chunkSize: 5 });
    const stream = await t.client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "say hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    const finishes: string[] = [];
    let usage: { total_tokens: number } | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      expect(chunk.object).toBe("chat.completion.chunk");
      for (const c of chunk.choices) {
        content += c.delta.content ?? "";
        if (c.finish_reason) finishes.push(c.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe("Hello from a streamed answer.");
    expect(chunks).toBeGreaterThan(3);
    expect(finishes).toEqual(["stop"]);
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it("shows tool progress as SSE comment lines that clients skip", async () => {
    const t = await api.start();
    api.fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "echo progress" } }] },
      { text: "done" },
    );
    const res = await t.post("/v1/chat/completions", {
      model: "hermes-agent",
      stream: true,
      messages: [{ role: "user", content: "go" }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-hermes-session-id")).toBeTruthy();
    const body = await res.text();
    expect(body).toContain(": tool terminal started\n\n");
    expect(body).toMatch(/: tool terminal finished \(\d+ ms\)/);
    expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("sends the earlier turns of the request as the conversation's history", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "Blue." });
    const done = await t.client.chat.completions.create({
      model: "anything",
      messages: [
        { role: "user", content: "My favourite colour is blue." },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "What is my favourite colour?" },
      ],
    });
    expect(done.choices[0]?.message.content).toBe("Blue.");
    const sent = messagesOf(api.fake.requests[0]!).filter((m) => m.role !== "system");
    expect(sent.map((m) => [m.role, text(m)])).toEqual([
      ["user", "My favourite colour is blue."],
      ["assistant", "Noted."],
      ["user", "What is my favourite colour?"],
    ]);
  });

  it("denies flagged commands (nobody can approve over HTTP) and the model reads the denial", async () => {
    const t = await api.start("approvals:\n  mode: manual\n");
    mkdirSync(join(t.box.work, "keep"));
    api.fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf keep" } }] },
      { text: "I could not delete it." },
    );
    const done = await t.client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "delete the keep folder" }],
    });
    expect(done.choices[0]?.message.content).toBe("I could not delete it.");
    expect(existsSync(join(t.box.work, "keep"))).toBe(true);
    const denial = toolMessagesOf(api.fake.requests[1]!)
      .map((m) => text(m))
      .join("");
    expect(denial).toMatch(/no one to ask/);
  });

  it("answers a model-side 400 with a 400 carrying the model's message: the SDK does not retry it", async () => {
    const t = await api.start();
    api.fake.enqueue({
      fault: { kind: "http", status: 400, body: { error: { message: "bad thing upstream" } } },
    });
    // The official client with its default retries: a 5xx would run the agent three times.
    const client = new OpenAI({ apiKey: KEY, baseURL: `${t.url}/v1` });
    const failure = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "say hi once" }] })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    const err = failure as InstanceType<typeof OpenAI.BadRequestError>;
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/bad thing upstream/);
    expect(err.type).toBe("invalid_request_error");
    expect(api.fake.requests).toHaveLength(1);
    // One run, so the user's message is stored once.
    await eventually(() => t.server.status().runsInFlight === 0, "the run to end");
    const sessions = t.runtime.sessions!.listSessions({ source: "api_server" });
    expect(sessions).toHaveLength(1);
    const users = t.runtime.sessions!.loadMessages(sessions[0]!.id).filter((m) => m.message.role === "user");
    expect(users.map((m) => m.message.content)).toEqual(["say hi once"]);
  });
});
