import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { LEDGER_RETENTION_MS, type LedgerInbound, type LedgerOutboundBody } from "../../src/state/ledger.js";
import { SqliteSessionStore, type SqliteStoreOptions } from "../../src/state/sqlite/store.js";
import { tempDir } from "../support/temp.js";

/** The delivery ledger of the store (state.db's gateway_inbound / gateway_outbound), on real files. */

const dbPath = (): string => join(tempDir("hermes-ledger-"), "state.db");

const open: SqliteSessionStore[] = [];
function storeAt(path: string, opts: SqliteStoreOptions = {}): SqliteSessionStore {
  const s = new SqliteSessionStore(path, opts);
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

type Inbound = LedgerInbound & Record<string, unknown>;

function inbound(updateId: string, over: Partial<Inbound> = {}): Inbound {
  return {
    platform: "telegram",
    updateId,
    chatId: "100",
    chatType: "dm",
    userId: "7",
    userName: "Alice",
    text: `message ${updateId}`,
    attachments: [{ kind: "image", path: "/tmp/cat.jpg", bytes: 12 }],
    receivedAt: 1_700_000_000_000,
    ...over,
  };
}

const textBody = (chunks: string[]): LedgerOutboundBody & { chunks: string[] } => ({
  kind: "text",
  target: { chatId: "100" },
  chunks,
  sent: 0,
});

describe("delivery ledger: inbound", () => {
  it("records an update once; the duplicate is refused, also after the database is reopened", async () => {
    const path = dbPath();
    const first = storeAt(path);
    expect(await first.ledger.recordInbound(inbound("1"), "agent:main:telegram:dm:100")).toBe("new");
    expect(await first.ledger.recordInbound(inbound("1"))).toBe("duplicate");
    expect(await first.ledger.recordInbound(inbound("1", { platform: "webhook" }))).toBe("new");
    await first.close();

    const again = storeAt(path);
    expect(await again.ledger.recordInbound(inbound("1"))).toBe("duplicate");
    expect(await again.ledger.recordInbound(inbound("2"))).toBe("new");
  });

  it("returns what was recorded but never finished, payload intact, oldest first, after a reopen", async () => {
    const path = dbPath();
    let t = 1_000;
    const store = storeAt(path, { now: () => t });
    for (const id of ["a", "b", "c", "d"]) {
      await store.ledger.recordInbound(inbound(id));
      t += 10;
    }
    await store.ledger.recordInbound(inbound("w", { platform: "webhook" }));
    await store.ledger.markInbound("telegram", "a", "done");
    await store.ledger.markInbound("telegram", "b", "processing");
    await store.ledger.startInbound("telegram", "c", "the prepared text");
    await store.ledger.markInbound("telegram", "d", "skipped");
    await store.close();

    const reopened = storeAt(path, { now: () => t }).ledger;
    const left = reopened.unfinishedInbound("telegram");
    expect(left.map((m) => m.updateId)).toEqual(["b", "c"]);
    expect(left[1]).toEqual({ ...inbound("c"), preparedText: "the prepared text" });
    expect(reopened.unfinishedInbound().map((m) => m.updateId)).toEqual(["b", "c", "w"]);
    expect(reopened.inboundStatus("telegram", "a")).toBe("done");
    expect(reopened.stats().unfinishedInbound).toBe(3);
  });

  it("retires a row whose payload cannot be read instead of failing the restart", async () => {
    const path = dbPath();
    const store = storeAt(path);
    await store.ledger.recordInbound(inbound("good"));
    const raw = new DatabaseSync(path);
    raw
      .prepare(
        "INSERT INTO gateway_inbound(platform, update_id, status, payload, received_at) VALUES ('telegram', 'bad', 'received', '{not json', 0)",
      )
      .run();
    raw.close();
    expect(store.ledger.unfinishedInbound().map((m) => m.updateId)).toEqual(["good"]);
    await store.flush();
    expect(store.ledger.inboundStatus("telegram", "bad")).toBe("failed");
  });
});

describe("delivery ledger: outbound", () => {
  it("records a message once per key and marks its chunks in order until it is sent", async () => {
    const { ledger } = storeAt(dbPath());
    const { record, created } = await ledger.recordOutbound({
      key: "telegram:5:answer",
      platform: "telegram",
      sessionKey: "s",
      body: textBody(["one", "two"]),
    });
    expect(created).toBe(true);
    expect(record).toMatchObject({ status: "pending", messageIds: [], sessionKey: "s" });
    const again = await ledger.recordOutbound({
      key: "telegram:5:answer",
      platform: "telegram",
      body: textBody(["other"]),
    });
    expect(again.created).toBe(false);
    expect(again.record.body).toEqual(record.body);

    await expect(ledger.markChunkSent(record, 1, "m2")).rejects.toThrow(/not next/);
    const half = await ledger.markChunkSent(record, 0, "m1");
    expect(half).toMatchObject({ status: "pending", messageIds: ["m1"] });
    expect(ledger.pendingOutbound("telegram").map((r) => r.key)).toEqual(["telegram:5:answer"]);
    const done = await ledger.markChunkSent(half, 1, "m2");
    expect(done).toMatchObject({ status: "sent", messageIds: ["m1", "m2"] });
    expect(ledger.outbound("telegram:5:answer")).toMatchObject({ status: "sent", body: { sent: 2 } });
    expect(ledger.pendingOutbound("telegram")).toEqual([]);
  });

  it("counts failed attempts, keeps permanent failures out of the pending list, and reports stats", async () => {
    let t = 10_000;
    const { ledger } = storeAt(dbPath(), { now: () => t });
    const a = (await ledger.recordOutbound({ key: "a", platform: "telegram", body: textBody(["x"]) })).record;
    t += 5_000;
    const b = (await ledger.recordOutbound({ key: "b", platform: "telegram", body: textBody(["y"]) })).record;
    await ledger.recordOutbound({ key: "c", platform: "webhook", body: textBody(["z"]) });
    t += 1_000;
    await ledger.markAttemptFailed(a, "connection reset");
    await ledger.markAttemptFailed(a, "connection reset");
    await ledger.markFailed(b, "Forbidden: bot was blocked by the user");
    expect(ledger.outbound("a")).toMatchObject({
      attempts: 2,
      lastError: "connection reset",
      status: "pending",
    });
    expect(ledger.outbound("b")).toMatchObject({ status: "failed" });
    expect(ledger.pendingOutbound("telegram").map((r) => r.key)).toEqual(["a"]);
    expect(ledger.stats()).toEqual({
      pending: 2,
      oldestPendingAgeMs: 6_000,
      failed: 1,
      unfinishedInbound: 0,
    });
  });

  it("an empty message is sent as soon as it is recorded (there is nothing to send)", async () => {
    const { ledger } = storeAt(dbPath());
    const { record } = await ledger.recordOutbound({
      key: "empty",
      platform: "telegram",
      body: textBody([]),
    });
    expect(record.status).toBe("sent");
    expect(ledger.stats().pending).toBe(0);
  });
});

describe("delivery ledger: retention", () => {
  it("forgets rows older than seven days with its first write after a restart", async () => {
    const path = dbPath();
    const day = 24 * 3600 * 1000;
    let t = 100 * day;
    const first = storeAt(path, { now: () => t });
    await first.ledger.recordInbound(inbound("old"));
    await first.ledger.recordOutbound({ key: "old", platform: "telegram", body: textBody(["x"]) });
    t += 2 * day;
    await first.ledger.recordInbound(inbound("recent"));
    await first.ledger.recordOutbound({ key: "recent", platform: "telegram", body: textBody(["y"]) });
    await first.close();

    t += LEDGER_RETENTION_MS - day;
    const later = storeAt(path, { now: () => t }).ledger;
    // Opening never writes: the rows are still there until the ledger records something.
    expect(later.outbound("old")).toBeDefined();
    // Pruned means forgotten: an update that old counts as new (platforms redeliver for a day at most).
    expect(await later.recordInbound(inbound("old"))).toBe("new");
    expect(later.outbound("old")).toBeUndefined();
    expect(later.outbound("recent")).toBeDefined();
    expect(later.unfinishedInbound().map((m) => m.updateId)).toEqual(["recent", "old"]);
  });

  it("a gateway that keeps running prunes as it records", async () => {
    let t = 0;
    const { ledger } = storeAt(dbPath(), { now: () => t, ledgerRetentionMs: 1_000 });
    await ledger.recordInbound(inbound("first"));
    t = 5_000;
    for (let i = 0; i < 999; i++) await ledger.recordInbound(inbound(`n${i}`));
    expect(ledger.inboundStatus("telegram", "first")).toBe("received");
    await ledger.recordInbound(inbound("the thousandth after the first"));
    expect(ledger.inboundStatus("telegram", "first")).toBeUndefined();
    expect(ledger.stats().unfinishedInbound).toBe(1_000);
  });
});
