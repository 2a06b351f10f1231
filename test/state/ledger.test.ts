import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { DeliveryLedger, LEDGER_RETENTION_MS, type OutboundBody } from "../../src/gateway/ledger.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { SqliteSessionStore } from "../../src/state/sqlite/store.js";
import { startTsChild } from "../support/child.js";
import { tempDir } from "../support/temp.js";

const dbPath = (): string => join(tempDir("hermes-ledger-"), "state.db");

function inbound(updateId: string, over: Partial<InboundMessage> = {}): InboundMessage {
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

const textBody = (chunks: string[]): OutboundBody => ({
  kind: "text",
  target: { chatId: "100" },
  chunks,
  sent: 0,
});

describe("DeliveryLedger: inbound", () => {
  it("records an update once; the duplicate is refused, also after the database is reopened", () => {
    const path = dbPath();
    const first = DeliveryLedger.open(path);
    expect(first.recordInbound(inbound("1"), "agent:main:telegram:dm:100")).toBe(true);
    expect(first.recordInbound(inbound("1"))).toBe(false);
    expect(first.recordInbound(inbound("1", { platform: "webhook" }))).toBe(true);
    first.close();

    const again = DeliveryLedger.open(path);
    expect(again.recordInbound(inbound("1"))).toBe(false);
    expect(again.recordInbound(inbound("2"))).toBe(true);
    again.close();
  });

  it("returns what was recorded but never finished, payload intact, oldest first, after a reopen", () => {
    const path = dbPath();
    let t = 1_000;
    const ledger = DeliveryLedger.open(path, { now: () => t });
    for (const id of ["a", "b", "c", "d"]) {
      ledger.recordInbound(inbound(id));
      t += 10;
    }
    ledger.recordInbound(inbound("w", { platform: "webhook" }));
    ledger.markInbound("telegram", "a", "done");
    ledger.markInbound("telegram", "b", "processing");
    ledger.markInbound("telegram", "d", "skipped");
    ledger.close();

    const reopened = DeliveryLedger.open(path, { now: () => t });
    const left = reopened.unfinishedInbound("telegram");
    expect(left.map((m) => m.updateId)).toEqual(["b", "c"]);
    expect(left[1]).toEqual(inbound("c"));
    expect(reopened.unfinishedInbound().map((m) => m.updateId)).toEqual(["b", "c", "w"]);
    expect(reopened.inboundStatus("telegram", "a")).toBe("done");
    expect(reopened.stats().unfinishedInbound).toBe(3);
    reopened.close();
  });

  it("retires a row whose payload cannot be read instead of failing the restart", () => {
    const path = dbPath();
    const ledger = DeliveryLedger.open(path);
    ledger.recordInbound(inbound("good"));
    const raw = new DatabaseSync(path);
    raw
      .prepare(
        "INSERT INTO gateway_inbound(platform, update_id, status, payload, received_at) VALUES ('telegram', 'bad', 'received', '{not json', 0)",
      )
      .run();
    raw.close();
    expect(ledger.unfinishedInbound().map((m) => m.updateId)).toEqual(["good"]);
    expect(ledger.inboundStatus("telegram", "bad")).toBe("failed");
    ledger.close();
  });
});

describe("DeliveryLedger: outbound", () => {
  it("records a message once per key and marks its chunks in order until it is sent", () => {
    const ledger = DeliveryLedger.open(dbPath());
    const { record, created } = ledger.recordOutbound({
      key: "telegram:5:answer",
      platform: "telegram",
      sessionKey: "s",
      body: textBody(["one", "two"]),
    });
    expect(created).toBe(true);
    expect(record).toMatchObject({ status: "pending", messageIds: [], sessionKey: "s" });
    const again = ledger.recordOutbound({
      key: "telegram:5:answer",
      platform: "telegram",
      body: textBody(["other"]),
    });
    expect(again.created).toBe(false);
    expect(again.record.body).toEqual(record.body);

    expect(() => ledger.markChunkSent(record, 1, "m2")).toThrow(/not next/);
    const half = ledger.markChunkSent(record, 0, "m1");
    expect(half).toMatchObject({ status: "pending", messageIds: ["m1"] });
    expect(ledger.pendingOutbound("telegram").map((r) => r.key)).toEqual(["telegram:5:answer"]);
    const done = ledger.markChunkSent(half, 1, "m2");
    expect(done).toMatchObject({ status: "sent", messageIds: ["m1", "m2"] });
    expect(ledger.outbound("telegram:5:answer")).toMatchObject({ status: "sent", body: { sent: 2 } });
    expect(ledger.pendingOutbound("telegram")).toEqual([]);
    ledger.close();
  });

  it("counts failed attempts, keeps permanent failures out of the pending list, and reports stats", () => {
    let t = 10_000;
    const ledger = DeliveryLedger.open(dbPath(), { now: () => t });
    const a = ledger.recordOutbound({ key: "a", platform: "telegram", body: textBody(["x"]) }).record;
    t += 5_000;
    const b = ledger.recordOutbound({ key: "b", platform: "telegram", body: textBody(["y"]) }).record;
    ledger.recordOutbound({ key: "c", platform: "webhook", body: textBody(["z"]) });
    t += 1_000;
    ledger.markAttemptFailed(a, "connection reset");
    ledger.markAttemptFailed(a, "connection reset");
    ledger.markFailed(b, "Forbidden: bot was blocked by the user");
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
    ledger.close();
  });

  it("an empty message is sent as soon as it is recorded (there is nothing to send)", () => {
    const ledger = DeliveryLedger.open(dbPath());
    const { record } = ledger.recordOutbound({ key: "empty", platform: "telegram", body: textBody([]) });
    expect(record.status).toBe("sent");
    expect(ledger.stats().pending).toBe(0);
    ledger.close();
  });
});

describe("DeliveryLedger: the file", () => {
  it("prunes rows older than seven days when it opens", () => {
    const path = dbPath();
    const day = 24 * 3600 * 1000;
    let t = 100 * day;
    const ledger = DeliveryLedger.open(path, { now: () => t });
    ledger.recordInbound(inbound("old"));
    ledger.recordOutbound({ key: "old", platform: "telegram", body: textBody(["x"]) });
    t += 2 * day;
    ledger.recordInbound(inbound("recent"));
    ledger.recordOutbound({ key: "recent", platform: "telegram", body: textBody(["y"]) });
    ledger.close();

    t += LEDGER_RETENTION_MS - day;
    const later = DeliveryLedger.open(path, { now: () => t });
    expect(later.outbound("old")).toBeUndefined();
    expect(later.outbound("recent")).toBeDefined();
    expect(later.unfinishedInbound().map((m) => m.updateId)).toEqual(["recent"]);
    // Pruned means forgotten: an update that old would count as new (platforms redeliver for a day at most).
    expect(later.recordInbound(inbound("old"))).toBe(true);
    later.close();
  });

  it("a gateway that keeps running prunes as it records", () => {
    let t = 0;
    const ledger = DeliveryLedger.open(dbPath(), { now: () => t, retentionMs: 1_000 });
    ledger.recordInbound(inbound("first"));
    t = 5_000;
    for (let i = 0; i < 998; i++) ledger.recordInbound(inbound(`n${i}`));
    expect(ledger.inboundStatus("telegram", "first")).toBe("received");
    ledger.recordInbound(inbound("the thousandth"));
    expect(ledger.inboundStatus("telegram", "first")).toBeUndefined();
    expect(ledger.stats().unfinishedInbound).toBe(999);
    ledger.close();
  });

  it("shares state.db with the session store, and waits for another process's write lock", async () => {
    const path = dbPath();
    const store = new SqliteSessionStore(path);
    store.createSession({ id: "s1", source: "telegram" });
    const ledger = DeliveryLedger.open(path);
    expect(ledger.recordInbound(inbound("1"))).toBe(true);
    store.appendMessage("s1", { role: "user", content: "hi" });

    const { child, done } = startTsChild("state-writer.mjs", ["hold", path, "600"]);
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (d: Buffer) => d.includes("locked") && resolve()),
    );
    // The holder keeps the lock for 600 ms: the write waits for it instead of failing.
    expect(ledger.recordInbound(inbound("2"))).toBe(true);
    child.stdin!.end();
    expect((await done).stdout).toContain("released");
    expect(ledger.unfinishedInbound().map((m) => m.updateId)).toEqual(["1", "2"]);
    expect(store.loadMessages("s1")).toHaveLength(1);
    ledger.close();
    store.close();
  });
});
