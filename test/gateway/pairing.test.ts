import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config.js";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { CODE_ALPHABET, generateCode, hashCode, normaliseCode } from "../../src/gateway/auth/pairing-code.js";
import {
  PairingError,
  type PairingRequestResult,
  PairingStore,
} from "../../src/gateway/auth/pairing-store.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { openStateStore } from "../../src/state/open.js";
import type { StateStore, StateStoreOptions } from "../../src/state/store.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { tempDir } from "../support/temp.js";

const MIN = 60_000;

const opened: StateStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function openState(path: string, opts: StateStoreOptions = {}): StateStore {
  const result = openStateStore(path, opts);
  if ("error" in result) throw result.error;
  opened.push(result.store);
  return result.store;
}

/** A store on a fresh state.db with a clock the test moves by hand. */
function storeWithClock(start = 1_700_000_000_000) {
  const home = tempDir("hermes-pairing-");
  const clock = { now: start };
  const state = openState(join(home, "state.db"), { now: () => clock.now });
  return { home, clock, state, store: new PairingStore(state.pairing) };
}

function codeOf(result: PairingRequestResult): string {
  if (result.kind !== "code") throw new Error(`expected a code, got ${result.kind}`);
  return result.code;
}

async function failureOf(promise: Promise<unknown>): Promise<PairingError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof PairingError) return err;
    throw err;
  }
  throw new Error("expected a PairingError");
}

const dm = (userId: string, text = "hello"): InboundMessage => ({
  platform: "telegram",
  updateId: `u-${userId}-${Math.random()}`,
  chatId: userId,
  chatType: "dm",
  userId,
  userName: `User ${userId}`,
  text,
  receivedAt: Date.now(),
});

describe("pairing codes", () => {
  it("are 8 characters of the unambiguous alphabet, and differ", () => {
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = generateCode();
      expect(code).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
      codes.add(code);
    }
    expect(codes.size).toBe(200);
    expect(CODE_ALPHABET).not.toMatch(/[01IO]/);
  });

  it("are accepted in any case, with spaces or dashes, and malformed ones are refused", () => {
    expect(normaliseCode("x7k2-m9qp")).toBe("X7K2M9QP");
    expect(normaliseCode(" X7K2 M9QP ")).toBe("X7K2M9QP");
    expect(normaliseCode("X7K2M9Q")).toBeUndefined();
    expect(normaliseCode("X7K2M9Q0")).toBeUndefined();
  });
});

describe("PairingStore", () => {
  it("approves the user who got the code and reports them", async () => {
    const { store } = storeWithClock();
    const code = codeOf(await store.requestCode("telegram", { id: "111", name: "Alice" }));
    expect(store.isApproved("telegram", "111")).toBe(false);
    const user = await store.approve("telegram", code.toLowerCase());
    expect(user).toMatchObject({ platform: "telegram", userId: "111", userName: "Alice" });
    expect(store.isApproved("telegram", "111")).toBe(true);
    expect(store.isApproved("discord", "111")).toBe(false);
    const listing = store.list();
    expect(listing.pending).toEqual([]);
    expect(listing.approved.map((u) => u.userId)).toEqual(["111"]);
    // A code works once.
    expect((await failureOf(store.approve("telegram", code))).reason).toBe("unknown_code");
  });

  it("lets a code expire after an hour", async () => {
    const { store, clock } = storeWithClock();
    const code = codeOf(await store.requestCode("telegram", { id: "111" }));
    clock.now += 60 * MIN + 1;
    expect(store.list().pending).toEqual([]);
    const err = await failureOf(store.approve("telegram", code));
    expect(err.reason).toBe("expired");
    expect(err.message).toMatch(/expired/);
    expect(store.isApproved("telegram", "111")).toBe(false);
  });

  it("keeps at most 3 codes waiting per platform", async () => {
    const { store, clock } = storeWithClock();
    for (const id of ["1", "2", "3"]) codeOf(await store.requestCode("telegram", { id }));
    expect((await store.requestCode("telegram", { id: "4" })).kind).toBe("full");
    // Other platforms have their own cap.
    codeOf(await store.requestCode("discord", { id: "4" }));
    // Once the codes expire, new users get codes again.
    clock.now += 61 * MIN;
    codeOf(await store.requestCode("telegram", { id: "5" }));
    expect(store.list("telegram").pending.map((p) => p.userId)).toEqual(["5"]);
  });

  it("gives a user at most one reply per 10 minutes, then a new code that replaces the old", async () => {
    const { store, clock } = storeWithClock();
    const first = codeOf(await store.requestCode("telegram", { id: "111" }));
    clock.now += 9 * MIN;
    expect((await store.requestCode("telegram", { id: "111" })).kind).toBe("recent");
    clock.now += 2 * MIN;
    const second = codeOf(await store.requestCode("telegram", { id: "111" }));
    expect(store.list().pending).toHaveLength(1);
    expect((await failureOf(store.approve("telegram", first))).reason).toBe("unknown_code");
    expect((await store.approve("telegram", second)).userId).toBe("111");
  });

  it("locks a platform's approvals for an hour after 5 wrong codes", async () => {
    const { store, clock } = storeWithClock();
    const code = codeOf(await store.requestCode("telegram", { id: "111" }));
    const wrong = code === "AAAAAAAA" ? "BBBBBBBB" : "AAAAAAAA";
    for (let i = 0; i < 4; i++) {
      expect((await failureOf(store.approve("telegram", wrong))).reason).toBe("unknown_code");
    }
    const fifth = await failureOf(store.approve("telegram", wrong));
    expect(fifth.message).toMatch(/locked for 1 h/);
    // Even the right code is refused while locked, and other platforms are not affected.
    expect((await failureOf(store.approve("telegram", code))).reason).toBe("locked");
    expect(store.list().lockedUntil.telegram).toBe(clock.now + 60 * MIN);
    const other = codeOf(await store.requestCode("discord", { id: "9" }));
    expect((await store.approve("discord", other)).userId).toBe("9");
    clock.now += 30 * MIN;
    expect((await failureOf(store.approve("telegram", code))).reason).toBe("locked");
    clock.now += 30 * MIN + 1;
    // The lockout outlived the code; the user writes again and the new code is accepted.
    const fresh = codeOf(await store.requestCode("telegram", { id: "111" }));
    expect((await store.approve("telegram", fresh)).userId).toBe("111");
  });

  it("does not count malformed codes as guesses", async () => {
    const { store } = storeWithClock();
    for (let i = 0; i < 6; i++) {
      expect((await failureOf(store.approve("telegram", "nope"))).reason).toBe("bad_code");
    }
    const code = codeOf(await store.requestCode("telegram", { id: "1" }));
    expect((await store.approve("telegram", code)).userId).toBe("1");
  });

  it("revokes approvals and waiting codes, and says when there was neither", async () => {
    const { store } = storeWithClock();
    await store.approve("telegram", codeOf(await store.requestCode("telegram", { id: "1" })));
    codeOf(await store.requestCode("telegram", { id: "2" }));
    expect(await store.revoke("telegram", "1")).toEqual({ approval: true, pending: false });
    expect(store.isApproved("telegram", "1")).toBe(false);
    expect(await store.revoke("telegram", "2")).toEqual({ approval: false, pending: true });
    expect((await failureOf(store.revoke("telegram", "3"))).reason).toBe("not_found");
    expect((await failureOf(store.revoke("../etc", "3"))).reason).toBe("bad_platform");
  });

  it("keeps pairing in state.db, codes only as salted hashes, and writes no files", async () => {
    const { home, store } = storeWithClock();
    const code = codeOf(await store.requestCode("telegram", { id: "111", name: "Alice" }));
    const second = codeOf(await store.requestCode("telegram", { id: "222" }));
    await store.approve("telegram", code);
    expect(existsSync(join(home, "platforms"))).toBe(false);
    const db = new DatabaseSync(join(home, "state.db"), { readOnly: true });
    try {
      const rows = db.prepare("SELECT * FROM pairing_pending").all();
      expect(rows).toMatchObject([{ platform: "telegram", user_id: "222" }]);
      expect(JSON.stringify(rows)).not.toContain(second);
      expect(db.prepare("SELECT user_id, user_name FROM pairing_approved").all()).toEqual([
        { user_id: "111", user_name: "Alice" },
      ]);
    } finally {
      db.close();
    }
  });

  it("waits for another process's write lock on timers, never holding the event loop", async () => {
    const { home, store } = storeWithClock();
    const holder = new DatabaseSync(join(home, "state.db"));
    holder.exec("BEGIN IMMEDIATE");
    const order: string[] = [];
    const pin = store.pinHandle("telegram", "alice", "100").then(
      (owner) => order.push(`pinned to ${owner}`),
      (err: Error) => order.push(`failed: ${err.message}`),
    );
    // Set after the write started: it fires first only if the write left the event loop free.
    setTimeout(() => {
      order.push("timer");
      holder.exec("COMMIT");
      holder.close();
    }, 0);
    await pin;
    expect(order).toEqual(["timer", "pinned to 100"]);
    expect(store.pinnedUser("telegram", "alice")).toBe("100");
  });

  it("imports the old JSON files once, then renames them; an unreadable file stays as it was", async () => {
    const home = tempDir("hermes-pairing-import-");
    const dir = join(home, "platforms", "pairing");
    mkdirSync(dir, { recursive: true });
    const waiting = await hashCode("ABCDEFGH");
    const now = 1_700_000_000_000;
    const write = (name: string, data: unknown): void => writeFileSync(join(dir, name), JSON.stringify(data));
    write("telegram-approved.json", {
      version: 1,
      users: [{ user_id: "1", user_name: "Ann", approved_at: 5 }],
    });
    write("telegram-pending.json", {
      version: 1,
      requests: [{ user_id: "2", ...waiting, created_at: now, expires_at: now + 60 * MIN }],
    });
    write("telegram-handles.json", { version: 1, pins: [{ handle: "ann", user_id: "1", pinned_at: 6 }] });
    write("_rate_limits.json", { version: 1, requests: { telegram: { "2": now } }, approvals: {} });
    writeFileSync(join(dir, "discord-approved.json"), "{not json");

    const state = openState(join(home, "state.db"), { now: () => now + MIN });
    const store = new PairingStore(state.pairing);
    expect(store.isApproved("telegram", "1")).toBe(true);
    expect(store.pinnedUser("telegram", "ann")).toBe("1");
    expect(store.list().pending.map((p) => p.userId)).toEqual(["2"]);
    // The reply time came along: the waiting user gets no second code yet.
    expect((await store.requestCode("telegram", { id: "2" })).kind).toBe("recent");
    expect((await store.approve("telegram", "abcd-efgh")).userId).toBe("2");
    expect(readdirSync(dir).sort()).toEqual([
      "_rate_limits.json.imported",
      "discord-approved.json",
      "telegram-approved.json.imported",
      "telegram-handles.json.imported",
      "telegram-pending.json.imported",
    ]);
    expect(readFileSync(join(dir, "discord-approved.json"), "utf8")).toBe("{not json");

    // Files that reappear are not imported again: the tables are state.db's now.
    await state.close();
    write("telegram-approved.json", { version: 1, users: [{ user_id: "9", approved_at: 5 }] });
    const again = openState(join(home, "state.db"));
    expect(again.pairing.isApproved("telegram", "9")).toBe(false);
    expect(again.pairing.isApproved("telegram", "2")).toBe(true);
  });
});

describe("hermes pairing (another process)", () => {
  const config = (): HermesConfig => structuredClone(DEFAULT_CONFIG);

  it("approves a code the gateway issued, and the gateway lets the user in at the next message", async () => {
    const box = sandbox();
    const env = cleanEnv({ HERMES_HOME: box.home });
    const state = openState(join(box.home, "state.db"));
    const auth = new GatewayAuth({ pairing: state.pairing, config: config(), env: {} });
    const first = await auth.check(dm("4242"));
    expect(first.allowed).toBe(false);
    const reply = first.allowed ? "" : (first.reply ?? "");
    const code = /Pairing code: ([A-Z2-9]{8})/.exec(reply)?.[1];
    expect(code).toBeDefined();
    expect(reply).toContain(`hermes pairing approve telegram ${code}`);

    const listed = await runHermes(["pairing", "list", "--json"], { env, cwd: box.work });
    expect(listed.code).toBe(0);
    const listing = JSON.parse(listed.stdout);
    expect(listing.pending).toMatchObject([
      { platform: "telegram", user_id: "4242", user_name: "User 4242" },
    ]);
    expect(listed.stdout).not.toContain(code);

    const approved = await runHermes(["pairing", "approve", "telegram", code!], { env, cwd: box.work });
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("4242");
    expect(await auth.check(dm("4242", "hi again"))).toEqual({ allowed: true });

    const revoked = await runHermes(["pairing", "revoke", "telegram", "4242"], { env, cwd: box.work });
    expect(revoked.code).toBe(0);
    expect((await auth.check(dm("4242", "still there?"))).allowed).toBe(false);
  });

  it("exits 1 for an unknown code and 2 for bad usage", async () => {
    const box = sandbox();
    const env = cleanEnv({ HERMES_HOME: box.home });
    const unknown = await runHermes(["pairing", "approve", "telegram", "ABCDEFGH"], { env, cwd: box.work });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no pending request on telegram has code ABCDEFGH/);
    const missing = await runHermes(["pairing", "approve", "telegram"], { env, cwd: box.work });
    expect(missing.code).toBe(2);
    const badPlatform = await runHermes(["pairing", "revoke", "Tele/gram", "1"], { env, cwd: box.work });
    expect(badPlatform.code).toBe(2);
    const nothing = await runHermes(["pairing", "revoke", "telegram", "1"], { env, cwd: box.work });
    expect(nothing.code).toBe(1);
  });
});
