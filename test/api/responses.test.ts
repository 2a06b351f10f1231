import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { text } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";
import { useApiServer } from "./support.js";

const api = useApiServer();

describe("the Responses API", () => {
  it("continues the stored conversation of previous_response_id", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "Nice to meet you, Ada." }, { text: "Your name is Ada." });
    const first = await t.client.responses.create({
      model: "hermes-agent",
      input: "My name is Ada.",
      instructions: "Be warm.",
    });
    expect(first.object).toBe("response");
    expect(first.status).toBe("completed");
    expect(first.output_text).toBe("Nice to meet you, Ada.");
    expect(first.instructions).toBe("Be warm.");
    expect(first.usage?.total_tokens).toBeGreaterThan(0);

    const second = await t.client.responses.create({
      model: "hermes-agent",
      input: "What is my name?",
      previous_response_id: first.id,
      instructions: "Be warm.",
    });
    expect(second.output_text).toBe("Your name is Ada.");
    expect(second.previous_response_id).toBe(first.id);

    // The model's second request carries the first exchange, the instructions once (on its first user message).
    const sent = messagesOf(api.fake.requests[1]!).filter((m) => m.role !== "system");
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(text(sent[0])).toContain("Be warm.");
    expect(text(sent[0])).toContain("My name is Ada.");
    expect(text(sent[1])).toBe("Nice to meet you, Ada.");
    expect(text(sent[2])).toBe("What is my name?");
  });

  it("gets and deletes a stored response; a deleted one cannot be continued", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "stored answer" });
    const created = await t.client.responses.create({ model: "hermes-agent", input: "remember this" });
    const got = await t.client.responses.retrieve(created.id);
    expect(got.id).toBe(created.id);
    expect(got.output_text).toBe("stored answer");

    await t.client.responses.delete(created.id);
    await expect(t.client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await t.post("/v1/responses", { input: "and now?", previous_response_id: created.id });
    expect(chained.status).toBe(404);
    const body = (await chained.json()) as { error: { param: string; code: string } };
    expect(body.error).toMatchObject({ param: "previous_response_id", code: "previous_response_not_found" });
    expect(api.fake.requests).toHaveLength(1);
  });

  it("does not store a response with store: false", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "ephemeral" });
    const created = await t.client.responses.create({ model: "hermes-agent", input: "hi", store: false });
    expect(created.output_text).toBe("ephemeral");
    await expect(t.client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("streams the Responses event sequence and stores the streamed response", async () => {
    const t = await api.start();
    api.fake.enqueue(
      { toolCalls: [{ name: "terminal", arguments: { command: "echo streamed-tool" } }] },
      { text: "All done, streamed.", chunkSize: 4 },
    );
    const stream = await t.client.responses.create({ model: "hermes-agent", input: "work", stream: true });
    const types: string[] = [];
    let deltas = "";
    let doneText = "";
    let completedId = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") deltas += event.delta;
      if (event.type === "response.output_text.done") doneText = event.text;
      if (event.type === "response.completed") completedId = event.response.id;
    }
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    for (const type of [
      "response.output_item.added",
      "response.output_text.delta",
      "response.output_item.done",
    ])
      expect(types).toContain(type);
    expect(deltas).toBe("All done, streamed.");
    expect(doneText).toBe(deltas);
    const stored = await t.client.responses.retrieve(completedId);
    expect(stored.output_text).toBe("All done, streamed.");
  });

  it("keeps only the newest max_stored_responses", async () => {
    const t = await api.start("platforms:\n  api_server:\n    max_stored_responses: 2\n");
    api.fake.setResponder(() => ({ text: "ok" }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await t.client.responses.create({ model: "m", input: `n${i}` })).id);
    await expect(t.client.responses.retrieve(ids[0]!)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await t.client.responses.retrieve(ids[2]!)).id).toBe(ids[2]);
    expect(t.runtime.sessions?.responses.count()).toBe(2);
  });

  it("takes input items: earlier messages, and instructions from system items", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "42" });
    const done = await t.client.responses.create({
      model: "hermes-agent",
      input: [
        { role: "system", content: "Reply with a number." },
        { role: "user", content: [{ type: "input_text", text: "Pick a number." }] },
        { role: "assistant", content: "7" },
        { role: "user", content: "Another one." },
      ],
    });
    expect(done.output_text).toBe("42");
    const sent = messagesOf(api.fake.requests[0]!).filter((m) => m.role !== "system");
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(text(sent[0])).toContain("Reply with a number.");
    expect(text(sent[2])).toBe("Another one.");
  });
});
