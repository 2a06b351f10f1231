import { describe, expect, it } from "vitest";
import { lastUser, scriptPerRequest, terminal, text, toolResultOf } from "../runtime/support.js";
import { messagesOf } from "../support/e2e.js";
import { useGateway } from "./support/gateway.js";

const g = useGateway();

describe("gateway runner: a chat's conversation", () => {
  it("answers a message with a tool call and stores the session as the chat's user", async () => {
    const gw = await g.start();
    g.fake.setResponder(
      scriptPerRequest({
        "list the greeting": [terminal("echo hello-from-tool"), { text: "The tool said hello." }],
      }),
    );
    const m = await gw.adapter.say("list the greeting please");
    await gw.adapter.waitForText("The tool said hello.");

    expect(toolResultOf(g.fake, "list the greeting", "terminal")?.output).toContain("hello-from-tool");
    expect(gw.ledger.inboundStatus(m.platform, m.updateId)).toBe("done");
    const route = gw.routing.get(gw.dmKey());
    expect(route?.entry).toMatchObject({ platform: "memchat", chatId: "c-u1", userId: "u1", chatType: "dm" });
    const row = gw.t.runtime.sessions?.getSession(route!.sessionId);
    expect(row).toMatchObject({ source: "memchat", userId: "u1", chatId: "c-u1", sessionKey: gw.dmKey() });
    // The one user message carries exactly the text (a DM: no sender prefix).
    expect(lastUser(g.fake.requests[0]!)).toBe("list the greeting please");
    expect(gw.adapter.typing.length).toBeGreaterThan(0);
  });

  it("continues the conversation: the second message's request holds the first exchange", async () => {
    const gw = await g.start();
    g.fake.setResponder(scriptPerRequest({ "first words": [{ text: "answer one" }] }));
    await gw.adapter.say("first words");
    await gw.adapter.waitForText("answer one");
    await gw.adapter.say("second words");
    await gw.adapter.waitForText("done");
    const history = messagesOf(g.fake.requests[1]!).map((w) => text(w));
    expect(history).toEqual(expect.arrayContaining(["first words", "answer one", "second words"]));
  });

  it("processes a duplicate update once", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "only once" }));
    const m = await gw.adapter.say("hello there");
    await gw.adapter.push({ ...m });
    await gw.adapter.waitForText("only once");
    await gw.adapter.push({ ...m });
    await gw.runner.drain(2_000);
    expect(g.fake.requests).toHaveLength(1);
    expect(gw.adapter.texts().filter((t) => t.includes("only once"))).toHaveLength(1);
  });

  it("never lets an unauthorized user reach the model; a stranger's DM gets a pairing code", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "should not happen" }));
    const m = await gw.adapter.say("let me in", { userId: "stranger" });
    await gw.adapter.waitForText("Pairing code");
    await gw.adapter.say("hello from a group", {
      userId: "stranger",
      chatId: "g1",
      chatType: "group",
      addressed: true,
    });
    await gw.runner.drain(2_000);
    expect(g.fake.requests).toHaveLength(0);
    // Nothing of a stranger's message is kept: no inbound row, no outbound row for the pairing reply.
    expect(gw.ledger.inboundStatus(m.platform, m.updateId)).toBeUndefined();
    expect(gw.ledger.outbound(`${m.platform}:${m.updateId}:auth`)).toBeUndefined();
    expect(gw.adapter.texts("g1")).toEqual([]);
  });

  it("in groups answers only when addressed, and tells the model who speaks", async () => {
    const gw = await g.start();
    g.fake.setResponder(() => ({ text: "group answer" }));
    await gw.adapter.say("chatter among humans", { chatId: "g1", chatType: "group", userName: "Alice" });
    await gw.adapter.say("bot, what time is it", {
      chatId: "g1",
      chatType: "group",
      userName: "Alice",
      addressed: true,
    });
    await gw.adapter.waitForText("group answer");
    expect(g.fake.requests).toHaveLength(1);
    expect(lastUser(g.fake.requests[0]!)).toBe("[Alice] bot, what time is it");
  });
});
