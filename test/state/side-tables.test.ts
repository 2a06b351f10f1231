import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { prefixHashes } from "../../src/state/continuation-hash.js";
import { IDEMPOTENCY_TTL_MS } from "../../src/state/idempotency.js";
import { openStateStore } from "../../src/state/open.js";
import type { RouteEntry } from "../../src/state/routing.js";
import type { StateStore, StateStoreOptions } from "../../src/state/store.js";
import { tempDir } from "../support/temp.js";

/**
 * The contract of the store's side tables (routing, responses, idempotency, continuations) and of
 * deleting a session, run against every backend (the SQLite store; another backend joins the list).
 */
const BACKENDS: ReadonlyArray<{ name: string; open(dir: string, opts: StateStoreOptions): StateStore }> = [
  {
    name: "sqlite",
    open: (dir, opts) => {
      const opened = openStateStore(join(dir, "state.db"), opts);
      if ("error" in opened) throw opened.error;
      return opened.store;
    },
  },
];

const open: StateStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const entry = (over: Partial<RouteEntry> = {}): RouteEntry => ({
  platform: "telegram",
  chatId: "100",
  chatType: "dm",
  userId: "7",
  lastActiveAt: 1,
  ...over,
});

const response = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: '{"id":"chatcmpl-1"}',
};

describe.each(BACKENDS)("$name store", (backend) => {
  function fresh(opts: StateStoreOptions = {}): StateStore {
    const s = backend.open(tempDir("hermes-side-"), opts);
    open.push(s);
    return s;
  }

  describe("gateway routing", () => {
    it("points a chat at its session, replaces, lists newest first and forgets", async () => {
      const s = fresh();
      await s.routing.set("a", "s1", entry({ model: "m1" }), 10);
      await s.routing.set("b", "s2", entry({ chatId: "200", title: "b" }), 20);
      await s.routing.set("a", "s3", entry(), 30);
      expect(s.routing.get("a")).toMatchObject({ sessionId: "s3", updatedAt: 30 });
      expect(s.routing.list().map((r) => r.sessionKey)).toEqual(["a", "b"]);
      expect(s.routing.get("b")?.entry).toEqual(entry({ chatId: "200", title: "b" }));
      await s.routing.delete("a");
      expect(s.routing.get("a")).toBeUndefined();
    });
  });

  describe("API responses", () => {
    it("saves, reads, keeps the newest `keep` and deletes", async () => {
      const s = fresh();
      for (let i = 0; i < 3; i++) {
        await s.responses.save(
          {
            id: `r${i}`,
            previousResponseId: i ? `r${i - 1}` : null,
            sessionId: "s",
            model: "m",
            conversation: [{ role: "user", content: `q${i}` }],
            response: { id: `r${i}` },
            createdAt: i,
          },
          2,
        );
      }
      expect(s.responses.count()).toBe(2);
      expect(s.responses.get("r0")).toBeUndefined();
      expect(s.responses.get("r2")).toMatchObject({ previousResponseId: "r1", response: { id: "r2" } });
      expect(await s.responses.delete("r2")).toBe(true);
      expect(await s.responses.delete("r2")).toBe(false);
    });
  });

  describe("idempotency records", () => {
    it("one claim wins; a retry sees it running, then the stored answer; another caller's key is its own", async () => {
      const s = fresh();
      const claims = await Promise.all([
        s.idempotency.claim("alice", "k1", { fingerprint: "f" }),
        s.idempotency.claim("alice", "k1", { fingerprint: "f" }),
      ]);
      expect(claims.map((c) => c.outcome).sort()).toEqual(["claimed", "running"]);
      expect((await s.idempotency.claim("bob", "k1", { fingerprint: "f" })).outcome).toBe("claimed");
      await s.idempotency.complete("alice", "k1", response, "sess-1");
      const again = await s.idempotency.claim("alice", "k1", { fingerprint: "f" });
      expect(again).toMatchObject({
        outcome: "done",
        record: { state: "done", response, sessionId: "sess-1" },
      });
      expect((await s.idempotency.claim("alice", "k1", { fingerprint: "other body" })).outcome).toBe(
        "mismatch",
      );
    });

    it("a released claim runs again; an abandoned one is taken over; records expire after a day", async () => {
      let t = 1_000_000;
      const s = fresh({ now: () => t });
      await s.idempotency.claim("alice", "k", { fingerprint: "f" });
      await s.idempotency.release("alice", "k");
      expect(s.idempotency.get("alice", "k")).toBeUndefined();
      expect((await s.idempotency.claim("alice", "k", { fingerprint: "f" })).outcome).toBe("claimed");
      t += 5_000;
      expect(
        (await s.idempotency.claim("alice", "k", { fingerprint: "f", staleAfterMs: 60_000 })).outcome,
      ).toBe("running");
      t += 60_001;
      expect(
        (await s.idempotency.claim("alice", "k", { fingerprint: "f", staleAfterMs: 60_000 })).outcome,
      ).toBe("claimed");
      await s.idempotency.complete("alice", "k", response);
      t += IDEMPOTENCY_TTL_MS + 1;
      expect(s.idempotency.get("alice", "k")).toBeUndefined();
      expect(await s.idempotency.prune()).toBe(1);
      expect((await s.idempotency.claim("alice", "k", { fingerprint: "f" })).outcome).toBe("claimed");
    });
  });

  describe("chat-completions continuations", () => {
    it("finds the longest recorded prefix of a caller's conversation", async () => {
      const s = fresh();
      const turn1 = ["u:hello", "a:hi"];
      const turn2 = [...turn1, "u:how are you", "a:fine"];
      const h1 = prefixHashes(turn1);
      const h2 = prefixHashes(turn2);
      // A prefix's hash does not depend on what follows it.
      expect(h2.slice(0, 2)).toEqual(h1);
      await s.continuations.record("alice", { prefixHash: h1.at(-1)!, sessionId: "s1", messageCount: 2 });
      await s.continuations.record("alice", { prefixHash: h2.at(-1)!, sessionId: "s1", messageCount: 4 });

      const next = prefixHashes([...turn2, "u:and now?"]);
      expect(s.continuations.find("alice", [...next].reverse())).toMatchObject({
        sessionId: "s1",
        messageCount: 4,
      });
      const edited = prefixHashes(["u:hello", "a:hi", "u:something else", "a:fine", "u:?"]);
      expect(s.continuations.find("alice", [...edited].reverse())).toMatchObject({ messageCount: 2 });
      expect(s.continuations.find("bob", [...next].reverse())).toBeUndefined();
      expect(s.continuations.find("alice", prefixHashes(["u:other"]))).toBeUndefined();
    });
  });

  describe("deleting a session", () => {
    it("removes it from every table: messages, search indexes, inner calls, responses, continuations, idempotency, routes", async () => {
      const s = fresh();
      for (const id of ["gone", "kept"]) {
        s.createSession({ id, source: "api_server" });
        s.appendMessage(id, { role: "user", content: `flamingo ${id}` });
        s.appendMessage(id, { role: "assistant", content: `pelican ${id}` });
        s.appendInnerToolCall(id, {
          parentTool: "execute_code",
          toolName: "read_file",
          args: {},
          result: "r",
          isError: false,
          durationMs: 1,
        });
        await s.responses.save(
          {
            id: `resp-${id}`,
            previousResponseId: null,
            sessionId: id,
            model: "m",
            conversation: [{ role: "user", content: `flamingo ${id}` }],
            response: { id: `resp-${id}` },
            createdAt: 1,
          },
          100,
        );
        await s.continuations.record("alice", { prefixHash: `h-${id}`, sessionId: id, messageCount: 2 });
        await s.idempotency.claim("alice", `idem-${id}`, { fingerprint: "f" });
        await s.idempotency.complete("alice", `idem-${id}`, response, id);
        await s.routing.set(`route-${id}`, id, entry());
      }
      s.indexPending();
      expect(s.search({ query: "flamingo" })).toHaveLength(2);

      expect(await s.deleteSession("gone")).toBe(true);

      expect(s.getSession("gone")).toBeUndefined();
      expect(s.loadMessages("gone")).toEqual([]);
      expect(s.loadInnerToolCalls("gone")).toEqual([]);
      expect(s.search({ query: "flamingo" }).map((h) => h.sessionId)).toEqual(["kept"]);
      expect(s.search({ query: "lamin" }).map((h) => h.sessionId)).toEqual(["kept"]);
      expect(s.responses.get("resp-gone")).toBeUndefined();
      expect(s.continuations.find("alice", ["h-gone"])).toBeUndefined();
      expect(s.idempotency.get("alice", "idem-gone")).toBeUndefined();
      expect(s.routing.get("route-gone")).toBeUndefined();
      // The other session is untouched.
      expect(s.loadMessages("kept")).toHaveLength(2);
      expect(s.responses.get("resp-kept")).toBeDefined();
      expect(s.continuations.find("alice", ["h-kept"])).toBeDefined();
      expect(s.idempotency.get("alice", "idem-kept")).toBeDefined();
      expect(s.routing.get("route-kept")).toBeDefined();

      if (backend.name === "sqlite") expectNoRowOf(s.path, "gone");

      // Prune deletes the same way.
      expect(await s.prune(Date.now() + 1)).toBe(1);
      expect(s.responses.count()).toBe(0);
      expect(s.routing.list()).toEqual([]);
    });

    it("reaches the delivery ledger: outbound messages go, inbound text goes, inbound update ids stay", async () => {
      const s = fresh();
      const inbound = (updateId: string, text: string) => ({
        platform: "telegram",
        updateId,
        chatId: "100",
        text,
      });
      const body = (text: string) => ({
        kind: "text",
        target: { chatId: "100" },
        sent: 0,
        chunks: [text],
      });
      for (const id of ["gone", "kept"]) {
        s.createSession({ id, source: "telegram" });
        await s.routing.set(`chat-${id}`, id, entry());
        // One finished turn, one that was running when the session was deleted.
        await s.ledger.recordInbound(inbound(`done-${id}`, `flamingo done ${id}`), `chat-${id}`);
        await s.ledger.startInbound("telegram", `done-${id}`, `flamingo done ${id}`, id);
        await s.ledger.markInbound("telegram", `done-${id}`, "done");
        await s.ledger.recordInbound(inbound(`run-${id}`, `flamingo run ${id}`), `chat-${id}`);
        // No session given: the one its session key routes to.
        await s.ledger.startInbound("telegram", `run-${id}`, `flamingo run ${id}`);
        // An answer sent, and one still pending (its session found through the chat's route).
        const sent = await s.ledger.recordOutbound({
          key: `sent-${id}`,
          platform: "telegram",
          sessionId: id,
          body: body(`pelican sent ${id}`),
        });
        await s.ledger.markChunkSent(sent.record, 0, "m1");
        await s.ledger.recordOutbound({
          key: `pending-${id}`,
          platform: "telegram",
          sessionKey: `chat-${id}`,
          body: body(`pelican pending ${id}`),
        });
      }
      expect(s.ledger.pendingOutbound("telegram")).toHaveLength(2);

      expect(await s.deleteSession("gone")).toBe(true);

      expect(s.ledger.outbound("sent-gone")).toBeUndefined();
      expect(s.ledger.outbound("pending-gone")).toBeUndefined();
      expect(s.ledger.pendingOutbound("telegram").map((r) => r.key)).toEqual(["pending-kept"]);
      // Redelivered updates of the deleted session are still duplicates, and nothing re-runs them.
      expect(await s.ledger.recordInbound(inbound("done-gone", "again"))).toBe("duplicate");
      expect(await s.ledger.recordInbound(inbound("run-gone", "again"))).toBe("duplicate");
      expect(s.ledger.inboundStatus("telegram", "run-gone")).toBe("skipped");
      expect(s.ledger.unfinishedInbound().map((m) => m.updateId)).toEqual(["run-kept"]);
      // The other session's rows are untouched.
      expect(s.ledger.outbound("sent-kept")?.status).toBe("sent");
      expect(s.ledger.inboundStatus("telegram", "done-kept")).toBe("done");

      if (backend.name === "sqlite") {
        const raw = new DatabaseSync(s.path, { readOnly: true });
        try {
          const text = JSON.stringify([
            raw.prepare("SELECT * FROM gateway_inbound").all(),
            raw.prepare("SELECT * FROM gateway_outbound").all(),
          ]);
          for (const gone of [
            "flamingo done gone",
            "flamingo run gone",
            "pelican sent gone",
            "pelican pending gone",
          ]) {
            expect(text).not.toContain(gone);
          }
          expect(text).toContain("flamingo done kept");
          expect(text).toContain("pelican pending kept");
        } finally {
          raw.close();
        }
      }
    });
  });
});

/** Not a row of `sessionId` anywhere in a SQLite file, as the file itself sees it (indexes included). */
function expectNoRowOf(path: string, sessionId: string): void {
  const raw = new DatabaseSync(path);
  const count = (sql: string, ...params: string[]): number =>
    Number((raw.prepare(sql).get(...params) as { n: number }).n);
  try {
    expect(count("SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH ?", sessionId)).toBe(0);
    expect(
      count("SELECT COUNT(*) AS n FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?", sessionId),
    ).toBe(0);
    for (const table of [
      "messages",
      "inner_tool_calls",
      "api_responses",
      "api_continuations",
      "api_idempotency",
      "gateway_routing",
    ]) {
      expect(count(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`, sessionId), table).toBe(0);
    }
    raw.exec("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')");
  } finally {
    raw.close();
  }
}
