import { describe, expect, it } from "vitest";
import { ConversationCache } from "../../src/api/conversation-cache.js";
import { messagesOf } from "../support/e2e.js";
import type { RecordedRequest } from "../support/fake-llm.js";
import { stateDbBytes } from "../support/state-bytes.js";
import { useApiServer } from "./support.js";

/**
 * What a client gave the API server reaches the model as given, while state.db keeps a redacted
 * copy: a key pasted in an earlier message of a chat-completions history, or in the first turn of
 * a Responses chain, is still there for the model on the next request.
 */

// Built from parts so no key-shaped literal sits in the source.
const SECRET = ["sk", "proj", "Vb3Nq8Lw1Rz6Tk4Hy9Mc2Xd7Fp5Gs0Ja"].join("-");

const api = useApiServer();

const sentText = (r: RecordedRequest): string => JSON.stringify(messagesOf(r));

describe("the live conversation of API requests", () => {
  it("a chat-completions history reaches the model unredacted, on a new and a continued session", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "noted" }));
    const history = [
      { role: "user" as const, content: `my deploy key is ${SECRET}` },
      { role: "assistant" as const, content: "got it" },
    ];
    const first = await t.client.chat.completions.create({
      model: "m",
      messages: [...history, { role: "user", content: "which key did I give you?" }],
    });
    expect(sentText(api.fake.requests.at(-1)!)).toContain(SECRET);

    // The next turn continues the stored session: the model still gets the key.
    await t.client.chat.completions.create({
      model: "m",
      messages: [
        ...history,
        { role: "user", content: "which key did I give you?" },
        { role: "assistant", content: first.choices[0]!.message.content ?? "" },
        { role: "user", content: "say it again" },
      ],
    });
    expect(api.fake.requests).toHaveLength(2);
    expect(sentText(api.fake.requests.at(-1)!)).toContain(SECRET);

    const store = t.runtime.sessions!;
    await store.flush(5_000);
    expect(store.listSessions({ source: "api_server" })).toHaveLength(1);
    expect(stateDbBytes(store.path)).not.toContain(SECRET.slice(-12));
  });

  it("the first turn of a Responses chain reaches the model unredacted through previous_response_id", async () => {
    const t = await api.start();
    api.fake.setResponder(() => ({ text: "noted" }));
    const first = await t.client.responses.create({ model: "m", input: `remember ${SECRET}` });
    const second = await t.client.responses.create({
      model: "m",
      input: "what did I ask you to remember?",
      previous_response_id: first.id,
    });
    expect(sentText(api.fake.requests.at(-1)!)).toContain(SECRET);
    await t.client.responses.create({
      model: "m",
      input: "and once more?",
      previous_response_id: second.id,
    });
    expect(sentText(api.fake.requests.at(-1)!)).toContain(SECRET);

    const store = t.runtime.sessions!;
    await store.flush(5_000);
    expect(stateDbBytes(store.path)).not.toContain(SECRET.slice(-12));
  });
});

describe("ConversationCache", () => {
  const convo = (text: string) => [{ role: "user" as const, content: text }];

  it("drops the least recently used past its entry count", () => {
    const cache = new ConversationCache({ maxEntries: 2, maxBytes: 1_000_000 });
    cache.set("a", convo("a"));
    cache.set("b", convo("b"));
    expect(cache.get("a")).toEqual(convo("a"));
    cache.set("c", convo("c"));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toEqual(convo("a"));
    expect(cache.get("c")).toEqual(convo("c"));
  });

  it("drops the oldest past its byte budget, and keeps nothing larger than the budget", () => {
    const one = convo("x".repeat(100));
    const bytes = JSON.stringify(one).length * 2;
    const cache = new ConversationCache({ maxEntries: 100, maxBytes: bytes * 2 });
    cache.set("a", one);
    cache.set("b", one);
    cache.set("c", one);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.set("huge", convo("x".repeat(1_000)));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
