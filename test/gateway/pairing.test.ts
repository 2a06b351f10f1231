import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, type HermesConfig } from "../../src/core/config.js";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { CODE_ALPHABET, generateCode, normaliseCode } from "../../src/gateway/auth/pairing-code.js";
import { PairingError, PairingStore } from "../../src/gateway/auth/pairing-store.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { tempDir } from "../support/temp.js";

const MIN = 60_000;

/** A store on a fresh home with a clock the test moves by hand. */
function storeWithClock(start = 1_700_000_000_000) {
  const home = tempDir("hermes-pairing-");
  const clock = { now: start };
  const store = new PairingStore({ home, now: () => clock.now });
  return { home, clock, store };
}

function codeOf(result: ReturnType<PairingStore["requestCode"]>): string {
  if (result.kind !== "code") throw new Error(`expected a code, got ${result.kind}`);
  return result.code;
}

function failureOf(fn: () => unknown): PairingError {
  try {
    fn();
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
  it("approves the user who got the code and reports them", () => {
    const { store } = storeWithClock();
    const code = codeOf(store.requestCode("telegram", { id: "111", name: "Alice" }));
    expect(store.isApproved("telegram", "111")).toBe(false);
    const user = store.approve("telegram", code.toLowerCase());
    expect(user).toMatchObject({ platform: "telegram", userId: "111", userName: "Alice" });
    expect(store.isApproved("telegram", "111")).toBe(true);
    expect(store.isApproved("discord", "111")).toBe(false);
    const listing = store.list();
    expect(listing.pending).toEqual([]);
    expect(listing.approved.map((u) => u.userId)).toEqual(["111"]);
    // A code works once.
    expect(failureOf(() => store.approve("telegram", code)).reason).toBe("unknown_code");
  });

  it("lets a code expire after an hour", () => {
    const { store, clock } = storeWithClock();
    const code = codeOf(store.requestCode("telegram", { id: "111" }));
    clock.now += 60 * MIN + 1;
    expect(store.list().pending).toEqual([]);
    const err = failureOf(() => store.approve("telegram", code));
    expect(err.reason).toBe("expired");
    expect(err.message).toMatch(/expired/);
    expect(store.isApproved("telegram", "111")).toBe(false);
  });

  it("keeps at most 3 codes waiting per platform", () => {
    const { store, clock } = storeWithClock();
    for (const id of ["1", "2", "3"]) codeOf(store.requestCode("telegram", { id }));
    expect(store.requestCode("telegram", { id: "4" }).kind).toBe("full");
    // Other platforms have their own cap.
    codeOf(store.requestCode("discord", { id: "4" }));
    // Once the codes expire, new users get codes again.
    clock.now += 61 * MIN;
    codeOf(store.requestCode("telegram", { id: "5" }));
    expect(store.list("telegram").pending.map((p) => p.userId)).toEqual(["5"]);
  });

  it("gives a user at most one reply per 10 minutes, then a new code that replaces the old", () => {
    const { store, clock } = storeWithClock();
    const first = codeOf(store.requestCode("telegram", { id: "111" }));
    clock.now += 9 * MIN;
    expect(store.requestCode("telegram", { id: "111" }).kind).toBe("recent");
    clock.now += 2 * MIN;
    const second = codeOf(store.requestCode("telegram", { id: "111" }));
    expect(store.list().pending).toHaveLength(1);
    expect(failureOf(() => store.approve("telegram", first)).reason).toBe("unknown_code");
    expect(store.approve("telegram", second).userId).toBe("111");
  });

  it("locks a platform's approvals for an hour after 5 wrong codes", () => {
    const { store, clock } = storeWithClock();
    const code = codeOf(store.requestCode("telegram", { id: "111" }));
    const wrong = code === "AAAAAAAA" ? "BBBBBBBB" : "AAAAAAAA";
    for (let i = 0; i < 4; i++)
      expect(failureOf(() => store.approve("telegram", wrong)).reason).toBe("unknown_code");
    const fifth = failureOf(() => store.approve("telegram", wrong));
    expect(fifth.message).toMatch(/locked for 1 h/);
    // Even the right code is refused while locked, and other platforms are not affected.
    expect(failureOf(() => store.approve("telegram", code)).reason).toBe("locked");
    expect(store.list().lockedUntil.telegram).toBe(clock.now + 60 * MIN);
    const other = codeOf(store.requestCode("discord", { id: "9" }));
    expect(store.approve("discord", other).userId).toBe("9");
    clock.now += 30 * MIN;
    expect(failureOf(() => store.approve("telegram", code)).reason).toBe("locked");
    clock.now += 30 * MIN + 1;
    // The lockout outlived the code; the user writes again and the new code is accepted.
    const fresh = codeOf(store.requestCode("telegram", { id: "111" }));
    expect(store.approve("telegram", fresh).userId).toBe("111");
  });

  it("does not count malformed codes as guesses", () => {
    const { store } = storeWithClock();
    for (let i = 0; i < 6; i++)
      expect(failureOf(() => store.approve("telegram", "nope")).reason).toBe("bad_code");
    const code = codeOf(store.requestCode("telegram", { id: "1" }));
    expect(store.approve("telegram", code).userId).toBe("1");
  });

  it("revokes approvals and waiting codes, and says when there was neither", () => {
    const { store } = storeWithClock();
    store.approve("telegram", codeOf(store.requestCode("telegram", { id: "1" })));
    codeOf(store.requestCode("telegram", { id: "2" }));
    expect(store.revoke("telegram", "1")).toEqual({ approval: true, pending: false });
    expect(store.isApproved("telegram", "1")).toBe(false);
    expect(store.revoke("telegram", "2")).toEqual({ approval: false, pending: true });
    expect(failureOf(() => store.revoke("telegram", "3")).reason).toBe("not_found");
    expect(failureOf(() => store.revoke("../etc", "3")).reason).toBe("bad_platform");
  });

  it("writes 0600 files in a 0700 folder and never the plain code", () => {
    const { store } = storeWithClock();
    const code = codeOf(store.requestCode("telegram", { id: "111", name: "Alice" }));
    codeOf(store.requestCode("telegram", { id: "222" }));
    store.approve("telegram", code);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(store.dir).filter((f) => f.endsWith(".json"));
    expect(files.sort()).toEqual(["_rate_limits.json", "telegram-approved.json", "telegram-pending.json"]);
    for (const file of files) {
      expect(statSync(join(store.dir, file)).mode & 0o777).toBe(0o600);
    }
    const second = codeOf(store.requestCode("telegram", { id: "333" }));
    for (const file of readdirSync(store.dir)) {
      const text = readFileSync(join(store.dir, file), "utf8");
      expect(text).not.toContain(code);
      expect(text).not.toContain(second);
    }
    // No lock or temp files left behind.
    expect(readdirSync(store.dir).filter((f) => !f.endsWith(".json"))).toEqual([]);
  });

  it("moves a corrupt file aside instead of overwriting it", () => {
    const { store } = storeWithClock();
    store.approve("telegram", codeOf(store.requestCode("telegram", { id: "1" })));
    writeFileSync(join(store.dir, "telegram-approved.json"), "{not json");
    expect(store.isApproved("telegram", "1")).toBe(false);
    store.approve("telegram", codeOf(store.requestCode("telegram", { id: "2" })));
    expect(readdirSync(store.dir).some((f) => f.startsWith("telegram-approved.json.corrupt-"))).toBe(true);
    expect(store.isApproved("telegram", "2")).toBe(true);
  });
});

describe("hermes pairing (another process)", () => {
  const config = (): HermesConfig => structuredClone(DEFAULT_CONFIG);

  it("approves a code the gateway issued, and the gateway lets the user in at the next message", async () => {
    const box = sandbox();
    const env = cleanEnv({ HERMES_HOME: box.home });
    const auth = new GatewayAuth({ home: box.home, config: config(), env: {} });
    const first = auth.check(dm("4242"));
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
    expect(auth.check(dm("4242", "hi again"))).toEqual({ allowed: true });

    const revoked = await runHermes(["pairing", "revoke", "telegram", "4242"], { env, cwd: box.work });
    expect(revoked.code).toBe(0);
    expect(auth.check(dm("4242", "still there?")).allowed).toBe(false);
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
