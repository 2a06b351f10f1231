import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionSearchService } from "../../src/runtime/session-search-scope.js";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import { useRuntime } from "../runtime/support.js";
import { tempDir } from "../support/temp.js";

const open: SqliteSessionStore[] = [];
function fresh(): SqliteSessionStore {
  const s = new SqliteSessionStore(join(tempDir("hermes-owner-"), "state.db"));
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** Three sessions that all mention "kiwi": a CLI one, and two chat users' on telegram. */
function seeded(): SqliteSessionStore {
  const s = fresh();
  s.createSession({ id: "cli", source: "cli" });
  s.createSession({
    id: "alice",
    source: "telegram",
    userId: "1",
    chatId: "c1",
    sessionKey: "agent:main:telegram:dm:c1",
  });
  s.createSession({
    id: "bob",
    source: "telegram",
    userId: "2",
    chatId: "c2",
    sessionKey: "agent:main:telegram:dm:c2",
  });
  s.createSession({ id: "alice-elsewhere", source: "discord", userId: "1" });
  for (const id of ["cli", "alice", "bob", "alice-elsewhere"])
    s.appendMessage(id, { role: "user", content: `kiwi in ${id}` });
  return s;
}

describe("session owners", () => {
  it("stores who a session belongs to", () => {
    const s = seeded();
    expect(s.getSession("alice")).toMatchObject({
      userId: "1",
      chatId: "c1",
      sessionKey: "agent:main:telegram:dm:c1",
    });
    expect(s.getSession("cli")?.userId).toBeUndefined();
  });

  it("search filters by source and user", () => {
    const s = seeded();
    const ids = (o: { source?: string; userId?: string }) =>
      s
        .search({ query: "kiwi", ...o })
        .map((h) => h.sessionId)
        .sort();
    expect(ids({})).toEqual(["alice", "alice-elsewhere", "bob", "cli"]);
    expect(ids({ source: "telegram", userId: "1" })).toEqual(["alice"]);
    expect(ids({ source: "telegram" })).toEqual(["alice", "bob"]);
  });

  it("a scoped search service neither finds nor scrolls another user's sessions", () => {
    const s = seeded();
    const scoped = sessionSearchService(s, { source: "telegram", userId: "2" });
    expect(scoped.search({ query: "kiwi" }).map((h) => h.sessionId)).toEqual(["bob"]);
    const aliceMessage = s.loadMessages("alice")[0]!.id;
    expect(scoped.around("alice", aliceMessage, 2)).toEqual([]);
    expect(scoped.getSession("alice")).toBeUndefined();
    expect(scoped.getSession("bob")?.id).toBe("bob");
    expect(sessionSearchService(s).getSession("alice")?.id).toBe("alice");
  });
});

describe("newAgent owner", () => {
  const h = useRuntime();

  it("stores the owner on the session row", async () => {
    const { runtime } = h.start();
    h.fake.setResponder(() => ({ text: "hi" }));
    const agent = runtime.newAgent(() => undefined, {
      platform: "telegram",
      owner: { userId: "42", chatId: "c42", sessionKey: "agent:main:telegram:dm:c42" },
    });
    await agent.runConversation("hello");
    expect(runtime.sessions?.getSession(agent.sessionId)).toMatchObject({
      source: "telegram",
      userId: "42",
      chatId: "c42",
      sessionKey: "agent:main:telegram:dm:c42",
    });
    await agent.close();
  });
});
