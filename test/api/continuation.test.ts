import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { lastUser, scriptPerRequest } from "../runtime/support.js";
import { type ApiHarness, eventually, useApiServer } from "./support.js";

const api = useApiServer();

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Every stored row of the API's sessions: [session count, message rows]. */
function stored(t: ApiHarness): { sessions: string[]; rows: number } {
  const store = t.runtime.sessions!;
  const sessions = store.listSessions({ source: "api_server", limit: 1000 }).map((s) => s.id);
  return { sessions, rows: sessions.reduce((n, id) => n + store.loadMessages(id).length, 0) };
}

/** One turn as a chat client makes it: the whole history resent, the answer appended. */
async function turn(
  t: ApiHarness,
  history: Message[],
  content: string,
  extra: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming> = {},
): Promise<string> {
  history.push({ role: "user", content });
  const done = await t.client.chat.completions.create({ model: "m", messages: history, ...extra });
  const answer = done.choices[0]?.message.content ?? "";
  history.push({ role: "assistant", content: answer });
  return answer;
}

describe("chat completions continue their session", () => {
  it("stores 40 turns of one client as one session of 80 messages (plus its tool messages)", async () => {
    const t = await api.start();
    api.fake.setResponder((req) =>
      lastUser(req).includes("turn 7") && !JSON.stringify(req.body.messages).includes("tool-output-7")
        ? { toolCalls: [{ name: "terminal", arguments: { command: "echo tool-output-7" } }] }
        : { text: `answer to ${lastUser(req).slice(-7)}` },
    );
    const history: Message[] = [{ role: "system", content: "Be brief." }];
    for (let i = 1; i <= 40; i++) await turn(t, history, `turn ${i}`);
    const { sessions, rows } = stored(t);
    expect(sessions).toHaveLength(1);
    // 40 user + 40 assistant messages, and turn 7's tool call and result.
    expect(rows).toBe(82);
    const messages = t.runtime.sessions!.loadMessages(sessions[0]!);
    expect(messages.filter((m) => m.message.role === "user")).toHaveLength(40);
    // The model saw the whole conversation each time, tool messages included.
    const last = api.fake.requests.at(-1)!.body.messages as Array<{ role: string }>;
    expect(last.filter((m) => m.role === "user")).toHaveLength(40);
    expect(last.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  it("continues a streamed conversation from the text the client received", async () => {
    const t = await api.start();
    api.fake.setResponder((req) => ({ text: `streamed ${lastUser(req)}`, chunkSize: 2 }));
    const history: Message[] = [];
    for (let i = 1; i <= 3; i++) {
      history.push({ role: "user", content: `s${i}` });
      const stream = await t.client.chat.completions.create({ model: "m", messages: history, stream: true });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      history.push({ role: "assistant", content: text });
    }
    expect(stored(t)).toEqual({ sessions: [expect.any(String)], rows: 6 });
  });

  it("starts a new session when the client edits an earlier message; the old one is left as it was", async () => {
    const t = await api.start();
    api.fake.setResponder((req) => ({ text: `re: ${lastUser(req)}` }));
    const history: Message[] = [];
    for (const text of ["first", "second", "third"]) await turn(t, history, text);
    const before = stored(t);
    expect(before.sessions).toHaveLength(1);
    const edited: Message[] = [{ role: "user", content: "FIRST, edited" }, ...history.slice(1)];
    await turn(t, edited, "fourth");
    const after = stored(t);
    expect(after.sessions).toHaveLength(2);
    const newest = t.runtime.sessions!.loadMessages(after.sessions[0]!);
    expect(newest.map((m) => m.message.content)).toEqual([
      "FIRST, edited",
      "re: first",
      "second",
      "re: second",
      "third",
      "re: third",
      "fourth",
      "re: fourth",
    ]);
    expect(t.runtime.sessions!.loadMessages(before.sessions[0]!)).toHaveLength(6);
  });

  it("does not continue another caller's conversation, nor one with other instructions", async () => {
    const t = await api.start();
    api.fake.setResponder((req) => ({ text: `re: ${lastUser(req).slice(-6)}` }));
    const alice: Message[] = [];
    await turn(t, alice, "hello", { user: "alice" });
    const bob = [...alice];
    await turn(t, bob, "as bob", { user: "bob" });
    const instructed: Message[] = [{ role: "system", content: "Speak French." }, ...alice];
    await turn(t, instructed, "bonjour", { user: "alice" });
    await turn(t, alice, "again", { user: "alice" });
    const { sessions } = stored(t);
    // alice's first session (continued by "again"), bob's copy, the instructed copy.
    expect(sessions).toHaveLength(3);
    const continued = sessions.map((id) => t.runtime.sessions!.loadMessages(id).length).sort();
    expect(continued).toEqual([4, 4, 4]);
  });

  it("copies a long first history into one session", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "read it all" }));
    const history: Message[] = [];
    for (let i = 0; i < 1000; i++) {
      history.push({ role: "user", content: `question ${i}` });
      history.push({ role: "assistant", content: `answer ${i}` });
    }
    await turn(t, history, "summarise");
    const { sessions, rows } = stored(t);
    expect(sessions).toHaveLength(1);
    expect(rows).toBe(2002);
    // And the next turn continues it.
    await turn(t, history, "thanks");
    expect(stored(t)).toEqual({ sessions, rows: 2004 });
  });

  it("lets one of two requests continuing the same session at once have it; the other gets its own", async () => {
    const t = await api.start("platforms:\n  api_server:\n    max_concurrent_runs: 1\n");
    const history: Message[] = [];
    api.fake.enqueue({ text: "re: start" });
    await turn(t, history, "start");
    // One slot, held by another conversation: both continuations are planned while they wait.
    api.fake.enqueue({ fault: { kind: "hang" } });
    const held = new AbortController();
    const blocker = t.client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "elsewhere" }] }, { signal: held.signal })
      .catch(() => undefined);
    await eventually(() => api.fake.requests.length === 2, "the blocker to reach the model");
    api.fake.setResponder((req) => ({ text: `re: ${lastUser(req)}` }));
    const both = Promise.all([turn(t, [...history], "left"), turn(t, [...history], "right")]);
    await eventually(() => t.server.status().runsQueued === 2, "both to wait for the slot");
    held.abort();
    await blocker;
    await both;
    const sessions = stored(t).sessions.filter(
      (id) => t.runtime.sessions!.loadMessages(id)[0]?.message.content === "start",
    );
    expect(sessions).toHaveLength(2);
    const contents = sessions.map((id) => t.runtime.sessions!.loadMessages(id).map((m) => m.message.content));
    // Neither session holds the other's turn.
    for (const c of contents) expect(c.slice(0, 2)).toEqual(["start", "re: start"]);
    expect(contents.map((c) => c.slice(2)).sort()).toEqual([
      ["left", "re: left"],
      ["right", "re: right"],
    ]);
  });

  it("does not continue a session whose last attempt failed: the retry starts a new one", async () => {
    const t = await api.start();
    api.fake.enqueue({ text: "one" });
    const history: Message[] = [];
    await turn(t, history, "first");
    api.fake.enqueue({ fault: { kind: "http", status: 500, body: { error: { message: "boom" } } } });
    await expect(turn(t, [...history], "second")).rejects.toThrow(/boom/);
    api.fake.enqueue({ text: "two" });
    await turn(t, history, "second");
    const { sessions } = stored(t);
    expect(sessions).toHaveLength(2);
    // The new session holds the conversation once; the failed attempt stays in the old one.
    const newest = t.runtime.sessions!.loadMessages(sessions[0]!).map((m) => m.message.content);
    expect(newest).toEqual(["first", "one", "second", "two"]);
  });
});

describe("continuation across compression", () => {
  it("continues the session compression moved the conversation to", async () => {
    const t = await api.start(
      "compression:\n  hygiene_hard_message_limit: 6\n  protect_first_n: 1\n  protect_last_n: 3\n",
    );
    api.fake.setResponder(scriptPerRequest({}));
    const history: Message[] = [];
    for (let i = 1; i <= 6; i++) await turn(t, history, `turn ${i}`);
    const all = t.runtime.sessions!.listSessions({ source: "api_server", limit: 100 });
    // Compression made new rows; every row but the first continues the one before it: no copies.
    expect(all.length).toBeGreaterThan(1);
    const roots = all.filter((s) => s.parentSessionId === null);
    expect(roots).toHaveLength(1);
    const ids = new Set(all.map((s) => s.id));
    for (const s of all) if (s.parentSessionId) expect(ids.has(s.parentSessionId)).toBe(true);
    // A chain, not a tree: no request went on in a row compression had already moved on from.
    const children = all.map((s) => all.filter((c) => c.parentSessionId === s.id).length);
    expect(children.toSorted()).toEqual([0, ...Array(all.length - 1).fill(1)]);
  });
});

describe("Responses continue their session", () => {
  it("stores a chain of previous_response_id requests in one session", async () => {
    const t = await api.start();
    api.fake.setResponder((req) => ({ text: `re: ${lastUser(req)}` }));
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await t.client.responses.create({
        model: "m",
        input: `step ${i}`,
        ...(ids.length > 0 ? { previous_response_id: ids.at(-1) } : {}),
      });
      ids.push(r.id);
    }
    const { sessions, rows } = stored(t);
    expect(sessions).toHaveLength(1);
    expect(rows).toBe(10);
    // Branching from an earlier response makes a session of its own, holding that conversation.
    const branch = await t.client.responses.create({
      model: "m",
      input: "other way",
      previous_response_id: ids[1],
    });
    expect(branch.output_text).toBe("re: other way");
    const after = stored(t);
    expect(after.sessions).toHaveLength(2);
    const copy = t.runtime.sessions!.loadMessages(after.sessions[0]!).map((m) => m.message.content);
    expect(copy).toEqual(["step 1", "re: step 1", "step 2", "re: step 2", "other way", "re: other way"]);
  });
});
