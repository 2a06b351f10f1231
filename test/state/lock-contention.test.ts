import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LedgerInbound } from "../../src/state/ledger.js";
import { SqliteSessionStore, type SqliteStoreOptions } from "../../src/state/sqlite/store.js";
import { StateStoreError } from "../../src/state/store.js";
import { holdStateLock, type LockHolder, loopTurnsWhile } from "../support/state-lock.js";
import { tempDir } from "../support/temp.js";

/**
 * state.db's write lock held by ANOTHER PROCESS (test/support/state-writer.mjs) while this one
 * writes: durable writes wait in the queue, never on the event loop, and settle either way.
 */

const open: SqliteSessionStore[] = [];
const holders: LockHolder[] = [];
afterEach(async () => {
  for (const h of holders.splice(0)) await h.release();
  for (const s of open.splice(0)) await s.close();
});

function freshStore(opts: SqliteStoreOptions = {}): SqliteSessionStore {
  const s = new SqliteSessionStore(join(tempDir("hermes-lock-"), "state.db"), opts);
  open.push(s);
  return s;
}

async function holdLock(path: string): Promise<LockHolder> {
  const holder = await holdStateLock(path);
  holders.push(holder);
  return holder;
}

const inbound = (updateId: string): LedgerInbound & { text: string } => ({
  platform: "telegram",
  updateId,
  chatId: "100",
  text: `message ${updateId}`,
});

describe("durable writes while another process holds state.db's write lock", () => {
  it("recordInbound rejects as locked after its deadline (nothing recorded); reads answer meanwhile", async () => {
    const store = freshStore({ writeDeadlineMs: 400 });
    store.createSession({ id: "s", source: "telegram" });
    // The ledger's first write also prunes old rows: done here, so only the write under test waits.
    await store.ledger.recordInbound(inbound("0"));
    const holder = await holdLock(store.path);

    const recording = store.ledger.recordInbound(inbound("1"));
    const turns = loopTurnsWhile(recording);
    // Queued, not blocking: reads of every table answer while the write waits.
    expect(store.pendingWrites()).toBe(1);
    expect(store.getSession("s")?.source).toBe("telegram");
    expect(store.ledger.stats().unfinishedInbound).toBe(1);
    expect(store.routing.list()).toEqual([]);
    expect(store.responses.count()).toBe(0);

    const err = await recording.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StateStoreError);
    expect((err as StateStoreError).kind).toBe("locked");
    expect((err as Error).message).toMatch(/nothing was written/);
    // The old ledger waited 5 s on the event loop; now timers keep running while the write waits.
    expect(await turns).toBeGreaterThan(2);
    expect(store.pendingWrites()).toBe(0);
    expect(store.ledger.inboundStatus("telegram", "1")).toBeUndefined();

    await holder.release();
    // The sender's retry is recorded once the lock is free.
    expect(await store.ledger.recordInbound(inbound("1"))).toBe("new");
    expect(store.ledger.inboundStatus("telegram", "1")).toBe("received");
  });

  it("writes resolve once the lock frees within their deadline: ledger, routing, deleteSession", async () => {
    const store = freshStore({ writeDeadlineMs: 30_000 });
    store.createSession({ id: "gone", source: "api_server" });
    store.appendMessage("gone", { role: "user", content: "delete me" });
    await store.ledger.recordInbound(inbound("0"));
    const holder = await holdLock(store.path);

    const settled: string[] = [];
    const track = <T>(name: string, p: Promise<T>): Promise<T> =>
      p.then((v) => {
        settled.push(name);
        return v;
      });
    const recorded = track("inbound", store.ledger.recordInbound(inbound("2")));
    const routed = track(
      "route",
      store.routing.set("key", "gone", {
        platform: "telegram",
        chatId: "100",
        chatType: "dm",
        userId: "7",
        lastActiveAt: 1,
      }),
    );
    const deleted = track("delete", store.deleteSession("gone"));
    const turns = loopTurnsWhile(Promise.all([recorded, routed, deleted]));
    expect(store.pendingWrites()).toBe(3);
    // Give the retry timer several rounds against the held lock: nothing settles, nothing is lost.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toEqual([]);
    expect(store.pendingWrites()).toBe(3);

    await holder.release();
    expect(await recorded).toBe("new");
    await routed;
    expect(await deleted).toBe(true);
    expect(settled.sort()).toEqual(["delete", "inbound", "route"]);
    // Written in the order they were made: the route pointed at the session, and went with it.
    expect(store.getSession("gone")).toBeUndefined();
    expect(store.routing.get("key")).toBeUndefined();
    expect(store.ledger.inboundStatus("telegram", "2")).toBe("received");
    expect(await turns).toBeGreaterThan(2);
  });

  it("close() retries on timers and rejects the durable writes it could not make", async () => {
    const store = freshStore({ writeDeadlineMs: 30_000, closeWaitMs: 200 });
    const holder = await holdLock(store.path);
    const recording = store.ledger.recordInbound(inbound("3"));
    const closing = store.close();
    const turns = loopTurnsWhile(closing);
    const report = await closing;
    expect(report).toEqual({ unwritten: [] });
    await expect(recording).rejects.toMatchObject({ kind: "locked" });
    expect(await turns).toBeGreaterThan(2);
    await holder.release();
  });
});
