import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, deepMerge, type HermesConfig } from "../../src/core/config.js";
import { type AuthDecision, GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { PairingStore } from "../../src/gateway/auth/pairing-store.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { openStateStore } from "../../src/state/open.js";
import type { StateStore } from "../../src/state/store.js";
import { tempDir } from "../support/temp.js";

const opened: StateStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** The state.db of a fresh home, closed after the test. */
function openState(): StateStore {
  const result = openStateStore(join(tempDir("hermes-auth-"), "state.db"));
  if ("error" in result) throw result.error;
  opened.push(result.store);
  return result.store;
}

let seq = 0;

function message(over: Partial<InboundMessage> = {}): InboundMessage {
  seq++;
  return {
    platform: "telegram",
    updateId: String(seq),
    chatId: "100",
    chatType: "dm",
    userId: "100",
    userName: "Alice",
    userHandle: "alice_h",
    text: "hello",
    receivedAt: Date.now(),
    ...over,
  };
}

function setup(overrides: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const state = openState();
  const config = deepMerge(structuredClone(DEFAULT_CONFIG), overrides) as HermesConfig;
  const logged: string[] = [];
  const auth = new GatewayAuth({
    pairing: state.pairing,
    config,
    env,
    log: (_level, msg) => logged.push(msg),
  });
  return { state, pairing: new PairingStore(state.pairing), auth, logged };
}

const codeIn = (decision: AuthDecision): string | undefined =>
  decision.allowed ? undefined : /Pairing code: ([A-Z2-9]{8})\b/.exec(decision.reply ?? "")?.[1];

describe("GatewayAuth", () => {
  it("denies strangers by default and answers a DM with a pairing code", async () => {
    const { auth } = setup();
    const decision = await auth.check(message());
    expect(decision.allowed).toBe(false);
    const code = codeIn(decision);
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(decision).toEqual({
      allowed: false,
      reply: `Hi! I don't know you yet. Pairing code: ${code} — ask the owner to run: hermes pairing approve telegram ${code}`,
    });
    // The next DM within 10 minutes gets no reply at all.
    expect(await auth.check(message())).toEqual({ allowed: false });
  });

  it("never answers strangers in groups or channels, nor their button presses", async () => {
    const { auth, pairing } = setup();
    expect(await auth.check(message({ chatType: "group", chatId: "-5", addressed: true }))).toEqual({
      allowed: false,
    });
    expect(await auth.check(message({ chatType: "channel", chatId: "-6" }))).toEqual({ allowed: false });
    expect(await auth.check(message({ text: "", action: { data: "approve:1" } }))).toEqual({
      allowed: false,
    });
    // ... and none of them created a pairing request.
    expect(pairing.list().pending).toEqual([]);
  });

  it("stays silent with unauthorized_dm_behavior: ignore", async () => {
    const { auth, pairing } = setup({ unauthorized_dm_behavior: "ignore" });
    expect(await auth.check(message())).toEqual({ allowed: false });
    expect(pairing.list().pending).toEqual([]);
  });

  it("lets everyone in with the platform's allow_all_users, on that platform only", async () => {
    const { auth } = setup({ platforms: { telegram: { allow_all_users: true } } });
    expect(await auth.check(message())).toEqual({ allowed: true });
    expect(await auth.check(message({ chatType: "group", chatId: "-5" }))).toEqual({ allowed: true });
    expect((await auth.check(message({ platform: "discord" }))).allowed).toBe(false);
  });

  it("reads allow_all_users from the platform's extra block too", async () => {
    const { auth } = setup({ platforms: { telegram: { extra: { allow_all_users: true } } } });
    expect(await auth.check(message())).toEqual({ allowed: true });
  });

  it("admits allowlisted ids and @handles from config, in DMs and groups", async () => {
    const { auth } = setup({ platforms: { telegram: { allowed_users: ["100", "@Bob_H"] } } });
    expect(await auth.check(message({ userId: "100" }))).toEqual({ allowed: true });
    expect(
      await auth.check(message({ userId: "200", userHandle: "bob_h", chatType: "group", chatId: "-5" })),
    ).toEqual({
      allowed: true,
    });
    // A handle entry does not match an id, nor an id entry a handle.
    expect((await auth.check(message({ userId: "bob_h", userHandle: "someone" }))).allowed).toBe(false);
    expect(await auth.check(message({ userId: "300", userHandle: "100", chatType: "group" }))).toEqual({
      allowed: false,
    });
  });

  it("pins an @handle entry to the first account that carries it, for every later gateway too", async () => {
    const { auth, state, pairing, logged } = setup({
      platforms: { telegram: { allowed_users: ["@Alice"] } },
    });
    expect(await auth.check(message({ userId: "100", userHandle: "ALICE" }))).toEqual({ allowed: true });
    expect(logged).toContain("allowlist handle pinned");
    // Another account with the handle is a stranger, in a group too; the first one is in under any handle.
    expect(
      await auth.check(message({ userId: "200", userHandle: "alice", chatType: "group", chatId: "-5" })),
    ).toEqual({ allowed: false });
    expect(logged.filter((l) => l.startsWith("allowlist handle @alice is pinned"))).toHaveLength(1);
    expect(await auth.check(message({ userId: "100", userHandle: "someone_else" }))).toEqual({
      allowed: true,
    });
    expect(await auth.check(message({ userId: "100", userHandle: undefined }))).toEqual({ allowed: true });

    // A restarted gateway reads the pin from state.db.
    const config = structuredClone(DEFAULT_CONFIG) as HermesConfig;
    const reopened = openStateStore(state.path);
    if ("error" in reopened) throw reopened.error;
    opened.push(reopened.store);
    const again = new GatewayAuth({
      pairing: reopened.store.pairing,
      config,
      env: { TELEGRAM_ALLOWED_USERS: "@alice" },
    });
    expect(await again.allows(message({ userId: "200", userHandle: "alice" }))).toBe(false);
    expect(await again.allows(message({ userId: "100", userHandle: "x" }))).toBe(true);

    expect(pairing.list().pins).toEqual([
      { platform: "telegram", handle: "alice", userId: "100", pinnedAt: expect.any(Number) },
    ]);
    expect(await pairing.unpinHandle("telegram", "@ALICE")).toBe("100");
    await expect(pairing.unpinHandle("telegram", "@alice")).rejects.toThrow(
      /@alice is not pinned on telegram/,
    );
    expect(await again.allows(message({ userId: "200", userHandle: "alice" }))).toBe(true);
    expect(await again.allows(message({ userId: "100", userHandle: "x" }))).toBe(false);
  });

  it("admits users from <PLATFORM>_ALLOWED_USERS (comma separated, spaces ignored)", async () => {
    const { auth } = setup({}, { TELEGRAM_ALLOWED_USERS: " 100 , @carol ,", DISCORD_ALLOWED_USERS: "555" });
    expect(await auth.check(message({ userId: "100" }))).toEqual({ allowed: true });
    expect(await auth.check(message({ userId: "700", userHandle: "@Carol" }))).toEqual({ allowed: true });
    expect((await auth.check(message({ userId: "555", userHandle: "x" }))).allowed).toBe(false);
    expect(await auth.check(message({ platform: "discord", userId: "555" }))).toEqual({ allowed: true });
  });

  it("admits users approved by pairing, and only on their platform", async () => {
    const { auth, pairing } = setup();
    const code = codeIn(await auth.check(message({ userId: "100" })));
    await pairing.approve("telegram", code!);
    expect(await auth.check(message({ userId: "100" }))).toEqual({ allowed: true });
    expect(await auth.check(message({ userId: "100", chatType: "group", chatId: "-5" }))).toEqual({
      allowed: true,
    });
    expect((await auth.check(message({ platform: "discord", userId: "100" }))).allowed).toBe(false);
  });

  it("lets everyone in with GATEWAY_ALLOW_ALL_USERS, and only for true/1/yes", async () => {
    for (const value of ["true", "1", "yes", "YES"]) {
      expect(await setup({}, { GATEWAY_ALLOW_ALL_USERS: value }).auth.check(message())).toEqual({
        allowed: true,
      });
    }
    for (const value of ["false", "0", "no", ""]) {
      expect((await setup({}, { GATEWAY_ALLOW_ALL_USERS: value }).auth.check(message())).allowed).toBe(false);
    }
  });

  it("lets webhook messages through: their signature was checked by the adapter", async () => {
    const { auth } = setup();
    expect(
      await auth.check(
        message({ platform: "webhook", chatId: "github", userId: "webhook:github", userHandle: undefined }),
      ),
    ).toEqual({ allowed: true });
  });

  it("tells a stranger to try later when 3 codes already wait, once per 10 minutes", async () => {
    const { auth, logged } = setup();
    for (const id of ["1", "2", "3"])
      expect(codeIn(await auth.check(message({ userId: id, chatId: id })))).toBeDefined();
    const full = await auth.check(message({ userId: "4", chatId: "4" }));
    expect(full).toEqual({ allowed: false, reply: expect.stringMatching(/try again later/) });
    expect(await auth.check(message({ userId: "4", chatId: "4" }))).toEqual({ allowed: false });
    expect(logged).toContain("pairing request refused: too many pending codes");
  });

  it("denies without throwing when state.db cannot be used", async () => {
    const { auth, state, logged } = setup();
    await state.close();
    expect(await auth.check(message())).toEqual({ allowed: false });
    expect(logged).toContain("authorization failed; message denied");
    expect(await auth.allows(message())).toBe(false);
  });
});
