import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { repairHistory } from "../../src/runtime/recorder.js";
import { MIGRATIONS } from "../../src/state/sqlite/schema.js";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import { StateStoreError, type WriteEvent } from "../../src/state/store.js";
import { tempDir } from "../support/temp.js";

const open: Array<{ close(): unknown }> = [];
function fresh(): SqliteSessionStore {
  const dir = tempDir("hermes-state-");
  const s = new SqliteSessionStore(join(dir, "state.db"));
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe("SqliteSessionStore", () => {
  it("migrates once, records the schema version and reopens without re-running", async () => {
    const s = fresh();
    expect(s.schemaVersion).toBe(MIGRATIONS.length);
    s.createSession({ id: "a", source: "cli" });
    await s.close();
    const again = new SqliteSessionStore(s.path);
    open.push(again);
    expect(again.schemaVersion).toBe(MIGRATIONS.length);
    expect(again.getSession("a")?.source).toBe("cli");
    const db = new DatabaseSync(s.path);
    expect((db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    expect(db.prepare("SELECT COUNT(*) AS n FROM schema_version").get()).toEqual({ n: MIGRATIONS.length });
    db.close();
  });

  it("stores messages in order and round-trips tool calls, tool results and reasoning", () => {
    const s = fresh();
    s.createSession({ id: "s1", source: "cli", systemPrompt: "SYS", model: "m" });
    s.appendMessage("s1", { role: "user", content: "hello" });
    s.appendMessage("s1", {
      role: "assistant",
      content: null,
      reasoning: "think",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } },
      ],
    });
    s.appendMessages("s1", [
      { role: "tool", tool_call_id: "c1", name: "terminal", content: "a.txt" },
      { role: "assistant", content: "done" },
    ]);
    const msgs = s.loadMessages("s1");
    expect(msgs.map((m) => m.seq)).toEqual([0, 1, 2, 3]);
    expect(msgs[1]!.message).toEqual({
      role: "assistant",
      content: null,
      reasoning: "think",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } },
      ],
    });
    expect(msgs[2]!.message).toEqual({
      role: "tool",
      tool_call_id: "c1",
      name: "terminal",
      content: "a.txt",
    });
    expect(s.getSession("s1")).toMatchObject({ messageCount: 4, systemPrompt: "SYS" });
    expect(s.messagesAround("s1", msgs[2]!.id, 1).map((m) => m.seq)).toEqual([1, 2, 3]);
  });

  it("searches words with unicode61, CJK and substrings with trigram, tool names and tool calls too", () => {
    const s = fresh();
    s.createSession({ id: "s1", source: "cli", title: "deploy" });
    s.createSession({ id: "s2", source: "cli" });
    s.appendMessage("s1", { role: "user", content: "How do I configure the nginx reverse proxy?" });
    s.appendMessage("s2", { role: "user", content: "我们明天去北京旅游吧" });
    s.appendMessage("s2", {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c", type: "function", function: { name: "web_search", arguments: '{"q":"kubernetes"}' } },
      ],
    });
    const words = s.search({ query: "nginx proxy" });
    expect(words).toHaveLength(1);
    expect(words[0]).toMatchObject({ sessionId: "s1", sessionTitle: "deploy", role: "user" });
    expect(words[0]!.snippet).toContain(">>>nginx<<<");
    const cjk = s.search({ query: "北京旅" });
    expect(cjk.map((h) => h.sessionId)).toEqual(["s2"]);
    expect(s.search({ query: "ubernet" }).map((h) => h.role)).toEqual(["assistant"]);
    expect(s.search({ query: "kubernetes", role: "user" })).toEqual([]);
    expect(s.search({ query: "nginx", excludeSessionIds: ["s1"] })).toEqual([]);
    expect(s.search({ query: 'AND OR "( *' })).toEqual([]);
  });

  it("keeps the FTS indexes in sync on delete and prune (triggers)", async () => {
    const s = fresh();
    s.createSession({ id: "old", source: "cli", startedAt: Date.now() - 100 * 86_400_000 });
    s.createSession({ id: "new", source: "cli" });
    s.appendMessage("old", { role: "user", content: "zebra crossing" });
    s.appendMessage("new", { role: "user", content: "zebra stripes" });
    expect(s.search({ query: "zebra" })).toHaveLength(2);
    expect(await s.prune(Date.now() - 90 * 86_400_000)).toBe(1);
    expect(s.search({ query: "zebra" }).map((h) => h.sessionId)).toEqual(["new"]);
    expect(s.search({ query: "ebra stri" }).map((h) => h.sessionId)).toEqual(["new"]);
    expect(await s.deleteSession("new")).toBe(true);
    expect(s.search({ query: "zebra" })).toEqual([]);
    expect(s.search({ query: "ebra" })).toEqual([]);
    expect(s.stats()).toMatchObject({ sessions: 0, messages: 0 });
    expect(s.integrityCheck()).toBe("ok");
  });

  it("indexes in batches behind a watermark: searches catch up first, deletes stay in sync", async () => {
    const dir = tempDir("hermes-state-");
    const s = new SqliteSessionStore(join(dir, "state.db"), { indexBatch: 3 });
    open.push(s);
    s.createSession({ id: "a", source: "cli" });
    const raw = new DatabaseSync(s.path);
    const indexed = (): number =>
      Number((raw.prepare("SELECT COUNT(*) AS n FROM messages_fts_docsize").get() as { n: number }).n);
    const ftsCheck = (): void => {
      raw.exec("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')");
      raw.exec("INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('integrity-check')");
    };
    s.appendMessage("a", { role: "user", content: "alpha walrus" });
    s.appendMessage("a", { role: "assistant", content: "beta walrus 北京旅游" });
    expect(indexed()).toBe(0); // below the batch: not indexed yet
    s.appendMessage("a", { role: "user", content: "gamma walrus" });
    expect(indexed()).toBe(3); // the third append indexed the batch in its transaction
    s.appendMessages("a", [
      { role: "assistant", content: "delta narwhal" },
      { role: "user", content: "epsilon narwhal" },
    ]);
    expect(indexed()).toBe(3);
    // A search indexes what waits, so nothing written is missed.
    expect(s.search({ query: "narwhal" })).toHaveLength(2);
    expect(s.search({ query: "arwha" })).toHaveLength(2);
    expect(indexed()).toBe(5);
    ftsCheck();
    // Unindexed rows deleted before any catch-up never reach the index.
    s.appendMessage("a", { role: "user", content: "zeta okapi" });
    expect(await s.deleteMessagesFrom("a", 5)).toBe(1);
    expect(s.indexPending()).toBe(0);
    expect(s.search({ query: "okapi" })).toEqual([]);
    // Indexed rows deleted leave the index through the trigger.
    expect(await s.deleteMessagesFrom("a", 1)).toBe(4);
    expect(s.search({ query: "walrus" }).map((h) => h.seq)).toEqual([0]);
    expect(s.search({ query: "北京" })).toEqual([]);
    expect(s.getSession("a")?.messageCount).toBe(1);
    ftsCheck();
    // Sequence numbers continue after the cut; ids are never reused.
    const again = s.appendMessage("a", { role: "assistant", content: "eta walrus" });
    expect(again?.seq).toBe(1);
    expect(s.search({ query: "walrus", sort: "recency" }).map((h) => h.seq)).toEqual([1, 0]);
    ftsCheck();
    raw.close();
  });

  it("migrates a schema-1 database in place: every message kept and searchable", async () => {
    const dir = tempDir("hermes-state-");
    const path = join(dir, "state.db");
    const v1 = new DatabaseSync(path);
    v1.exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
    v1.exec(MIGRATIONS[0]!);
    v1.exec("INSERT INTO schema_version(version) VALUES (1)");
    v1.exec("INSERT INTO sessions (id, source, started_at) VALUES ('old', 'cli', 1000)");
    const ins = v1.prepare(
      "INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old', ?, 'user', ?, 1000)",
    );
    for (let i = 0; i < 20; i++) ins.run(i, `message ${i} about kangaroo${i} 東京都庁`);
    v1.close();
    const s = new SqliteSessionStore(path);
    open.push(s);
    expect(s.schemaVersion).toBe(MIGRATIONS.length);
    expect(s.loadMessages("old")).toHaveLength(20);
    expect(s.search({ query: "kangaroo7" }).map((h) => h.seq)).toEqual([7]);
    expect(s.search({ query: "angaroo1", limit: 100 })).toHaveLength(11);
    expect(s.search({ query: "京都庁", limit: 100 })).toHaveLength(20);
    s.appendMessage("old", { role: "user", content: "after the upgrade: wombat" });
    expect(s.search({ query: "wombat" }).map((h) => h.seq)).toEqual([20]);
    expect(await s.deleteMessagesFrom("old", 15)).toBe(6);
    expect(s.search({ query: "kangaroo17" })).toEqual([]);
    expect(s.integrityCheck()).toBe("ok");
  });

  it("resolves sessions by id, unique prefix and title; lists newest first", async () => {
    const s = fresh();
    s.createSession({ id: "abc-1", source: "cli", startedAt: 1000 });
    s.createSession({ id: "abd-2", source: "cron", startedAt: 2000 });
    expect(await s.renameSession("abc-1", "my work")).toBe(true);
    expect(s.resolveSession("abc-1")?.id).toBe("abc-1");
    expect(s.resolveSession("abd")?.id).toBe("abd-2");
    expect(s.resolveSession("ab")).toBeUndefined();
    expect(s.resolveSession("my work")?.id).toBe("abc-1");
    expect(s.listSessions().map((x) => x.id)).toEqual(["abd-2", "abc-1"]);
    expect(s.latestSession({ source: "cli" })?.id).toBe("abc-1");
    s.createSession({ id: "abe-3", source: "cli", startedAt: 3000 });
    expect(s.latestSession()?.id).toBe("abe-3");
    s.appendMessage("abc-1", { role: "user", content: "back to the old one" }, { createdAt: 5000 });
    expect(s.latestSession()?.id).toBe("abc-1");
    s.addUsage("abc-1", { inputTokens: 10, outputTokens: 5 });
    expect(s.getSession("abc-1")).toMatchObject({ inputTokens: 10, outputTokens: 5 });
  });

  it("refuses a corrupted file with a clear error and leaves it untouched", async () => {
    const dir = tempDir("hermes-state-");
    const path = join(dir, "state.db");
    const junk = "this is not a database ".repeat(200);
    writeFileSync(path, junk);
    let err: unknown;
    try {
      new SqliteSessionStore(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateStoreError);
    expect((err as StateStoreError).kind).toBe("corrupt");
    expect((err as Error).message).toMatch(/damaged.*left untouched/);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(path, "utf8")).toBe(junk);
  });

  it("reports a database locked while it needs migrating instead of failing silently", async () => {
    const dir = tempDir("hermes-state-");
    const path = join(dir, "state.db");
    const holder = new DatabaseSync(path);
    holder.exec("PRAGMA journal_mode = WAL; BEGIN IMMEDIATE");
    let err: unknown;
    try {
      await new SqliteSessionStore(path, { waitMs: 200 }).close();
    } catch (e) {
      err = e;
    }
    holder.exec("ROLLBACK");
    holder.close();
    expect(err).toBeInstanceOf(StateStoreError);
    expect((err as StateStoreError).kind).toBe("locked");
    expect((err as Error).message).toMatch(/locked by another process/);
  });
});

describe("SqliteSessionStore behind another connection's write lock", () => {
  /** A store and a second connection to its file that can hold the write lock. */
  function withHolder(opts: ConstructorParameters<typeof SqliteSessionStore>[1] = {}) {
    const dir = tempDir("hermes-state-");
    const s = new SqliteSessionStore(join(dir, "state.db"), opts);
    open.push(s);
    const holder = new DatabaseSync(s.path);
    open.push(holder);
    return {
      s,
      lock: () => holder.exec("BEGIN IMMEDIATE"),
      unlock: () => holder.exec("COMMIT"),
      holder,
    };
  }

  it("queues writes in order, lets reads account for them, and writes them once the lock is free", async () => {
    const { s, lock, unlock } = withHolder();
    s.createSession({ id: "a", source: "cli" });
    expect(s.appendMessage("a", { role: "user", content: "zero" })?.seq).toBe(0);
    const events: WriteEvent[] = [];
    s.watchWrites("a", (e) => events.push(e));
    lock();
    expect(s.appendMessage("a", { role: "assistant", content: "one" })).toBeUndefined();
    s.appendMessages("a", [
      { role: "user", content: "two" },
      { role: "assistant", content: "three" },
    ]);
    s.addUsage("a", { inputTokens: 7 });
    s.createSession({ id: "b", source: "cron", title: "queued too" });
    s.appendInnerToolCall("a", {
      parentTool: "execute_code",
      toolName: "read_file",
      args: {},
      result: "r",
      isError: false,
      durationMs: 1,
    });
    expect(s.pendingWrites()).toBe(5);
    expect(s.pendingWrites("a")).toBe(4);
    // Reads see the queued messages after the stored ones, and the queued session row.
    expect(s.loadMessages("a").map((m) => [m.seq, m.id > 0, m.message.content])).toEqual([
      [0, true, "zero"],
      [1, false, "one"],
      [2, false, "two"],
      [3, false, "three"],
    ]);
    expect(s.getSession("b")).toMatchObject({ id: "b", source: "cron", title: "queued too" });
    await new Promise((r) => setTimeout(r, 100));
    expect(events.some((e) => e.type === "waiting" && e.pending === 4)).toBe(true);
    unlock();
    expect(await s.flush(5_000)).toBe(0);
    expect(s.loadMessages("a").map((m) => [m.seq, m.id > 0, m.message.content])).toEqual([
      [0, true, "zero"],
      [1, true, "one"],
      [2, true, "two"],
      [3, true, "three"],
    ]);
    expect(s.getSession("a")).toMatchObject({ messageCount: 4, inputTokens: 7 });
    expect(s.loadInnerToolCalls("a").map((c) => c.afterSeq)).toEqual([3]);
    expect(s.getSession("b")?.title).toBe("queued too");
    expect(events.at(-1)).toEqual({ type: "written", sessionId: "a", count: 4 });
    expect(s.search({ query: "three" })).toHaveLength(1);
  });

  it("undo queued behind other writes removes the messages that were last when it runs", async () => {
    const { s, lock, unlock } = withHolder();
    s.createSession({ id: "a", source: "cli" });
    s.appendMessage("a", { role: "user", content: "keep" });
    lock();
    s.appendMessage("a", { role: "user", content: "undo me" });
    s.appendMessage("a", { role: "assistant", content: "and me" });
    s.deleteLastMessages("a", 2);
    s.setTitle("a", "after undo");
    unlock();
    expect(await s.flush(5_000)).toBe(0);
    expect(s.loadMessages("a").map((m) => m.message.content)).toEqual(["keep"]);
    expect(s.getSession("a")).toMatchObject({ messageCount: 1, title: "after undo" });
  });

  it("delete, prune, rename and an undo by seq reject as locked after the write deadline, without blocking", async () => {
    const { s, lock, unlock } = withHolder({ writeDeadlineMs: 150 });
    s.createSession({ id: "a", source: "cli" });
    s.appendMessage("a", { role: "user", content: "x" });
    lock();
    const calls = [
      s.deleteSession("a"),
      s.prune(Date.now() + 1),
      s.renameSession("a", "t"),
      s.deleteMessagesFrom("a", 0),
    ];
    // They wait in the queue, not on the event loop.
    expect(s.pendingWrites()).toBe(4);
    for (const call of calls) {
      const err = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StateStoreError);
      expect((err as StateStoreError).kind).toBe("locked");
    }
    expect(s.pendingWrites()).toBe(0);
    unlock();
    expect(await s.renameSession("a", "t")).toBe(true);
    expect(s.loadMessages("a")).toHaveLength(1);
    expect(await s.deleteSession("a")).toBe(true);
  });

  it("an answering call waits behind the queued writes and sees them; it resolves once the lock frees", async () => {
    const { s, lock, unlock } = withHolder();
    s.createSession({ id: "a", source: "cli" });
    lock();
    s.appendMessage("a", { role: "user", content: "one" });
    s.appendMessage("a", { role: "user", content: "two" });
    const undo = s.deleteMessagesFrom("a", 1);
    expect(s.pendingWrites()).toBe(3);
    setTimeout(unlock, 50);
    expect(await undo).toBe(1);
    expect(s.pendingWrites()).toBe(0);
    expect(s.loadMessages("a").map((m) => m.message.content)).toEqual(["one"]);
  });

  it("close retries queued writes a bounded time and reports what it could not write", async () => {
    const { s, lock, holder } = withHolder({ closeWaitMs: 150 });
    s.createSession({ id: "a", source: "cli" });
    const events: WriteEvent[] = [];
    s.watchWrites("a", (e) => events.push(e));
    lock();
    s.appendMessage("a", { role: "user", content: "lost" });
    s.endSession("a", "exit");
    expect(await s.close()).toEqual({
      unwritten: [
        { sessionId: "a", what: "message" },
        { sessionId: "a", what: "session_update" },
      ],
    });
    expect(events.at(-1)).toEqual({ type: "abandoned", sessionId: "a", count: 2 });
    holder.exec("ROLLBACK");
    expect(holder.prepare("SELECT COUNT(*) AS n FROM messages").get()).toEqual({ n: 0 });
  });

  it("a queued write that fails for good is dropped and reported; the ones behind it are written", async () => {
    const { s, lock, unlock } = withHolder();
    s.createSession({ id: "a", source: "cli" });
    const events: WriteEvent[] = [];
    s.watchWrites("a", (e) => events.push(e));
    lock();
    s.createSession({ id: "a", source: "cli" }); // already there: cannot ever be written
    s.appendMessage("a", { role: "user", content: "still saved" });
    unlock();
    expect(await s.flush(5_000)).toBe(0);
    expect(events).toContainEqual(expect.objectContaining({ type: "dropped", what: "session" }));
    expect(s.loadMessages("a").map((m) => m.message.content)).toEqual(["still saved"]);
  });
});

describe("repairHistory", () => {
  it("answers tool calls left without a result", () => {
    const out = repairHistory([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "terminal", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "terminal", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "ok" },
      { role: "user", content: "again" },
    ]);
    expect(out.map((m) => (m.role === "tool" ? `tool:${m.tool_call_id}` : m.role))).toEqual([
      "user",
      "assistant",
      "tool:a",
      "tool:b",
      "user",
    ]);
  });
});
