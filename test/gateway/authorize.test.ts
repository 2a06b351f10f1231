import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, deepMerge, type HermesConfig } from "../../src/core/config.js";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { PairingStore } from "../../src/gateway/auth/pairing-store.js";
import type { InboundMessage } from "../../src/gateway/types.js";
import { tempDir } from "../support/temp.js";

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
  const home = tempDir("hermes-auth-");
  const config = deepMerge(structuredClone(DEFAULT_CONFIG), overrides) as HermesConfig;
  const logged: string[] = [];
  const auth = new GatewayAuth({ home, config, env, log: (_level, msg) => logged.push(msg) });
  return { home, auth, logged };
}

const codeIn = (decision: ReturnType<GatewayAuth["check"]>): string | undefined =>
  decision.allowed ? undefined : /Pairing code: ([A-Z2-9]{8})\b/.exec(decision.reply ?? "")?.[1];

describe("GatewayAuth", () => {
  it("denies strangers by default and answers a DM with a pairing code", () => {
    const { auth } = setup();
    const decision = auth.check(message());
    expect(decision.allowed).toBe(false);
    const code = codeIn(decision);
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    expect(decision).toEqual({
      allowed: false,
      reply: `Hi! I don't know you yet. Pairing code: ${code} — ask the owner to run: hermes pairing approve telegram ${code}`,
    });
    // The next DM within 10 minutes gets no reply at all.
    expect(auth.check(message())).toEqual({ allowed: false });
  });

  it("never answers strangers in groups or channels, nor their button presses", () => {
    const { auth, home } = setup();
    expect(auth.check(message({ chatType: "group", chatId: "-5", addressed: true }))).toEqual({
      allowed: false,
    });
    expect(auth.check(message({ chatType: "channel", chatId: "-6" }))).toEqual({ allowed: false });
    expect(auth.check(message({ text: "", action: { data: "approve:1" } }))).toEqual({ allowed: false });
    // ... and none of them created a pairing request.
    expect(new PairingStore({ home }).list().pending).toEqual([]);
  });

  it("stays silent with unauthorized_dm_behavior: ignore", () => {
    const { auth, home } = setup({ unauthorized_dm_behavior: "ignore" });
    expect(auth.check(message())).toEqual({ allowed: false });
    expect(new PairingStore({ home }).list().pending).toEqual([]);
  });

  it("lets everyone in with the platform's allow_all_users, on that platform only", () => {
    const { auth } = setup({ platforms: { telegram: { allow_all_users: true } } });
    expect(auth.check(message())).toEqual({ allowed: true });
    expect(auth.check(message({ chatType: "group", chatId: "-5" }))).toEqual({ allowed: true });
    expect(auth.check(message({ platform: "discord" })).allowed).toBe(false);
  });

  it("reads allow_all_users from the platform's extra block too", () => {
    const { auth } = setup({ platforms: { telegram: { extra: { allow_all_users: true } } } });
    expect(auth.check(message())).toEqual({ allowed: true });
  });

  it("admits allowlisted ids and @handles from config, in DMs and groups", () => {
    const { auth } = setup({ platforms: { telegram: { allowed_users: ["100", "@Bob_H"] } } });
    expect(auth.check(message({ userId: "100" }))).toEqual({ allowed: true });
    expect(
      auth.check(message({ userId: "200", userHandle: "bob_h", chatType: "group", chatId: "-5" })),
    ).toEqual({
      allowed: true,
    });
    // A handle entry does not match an id, nor an id entry a handle.
    expect(auth.check(message({ userId: "bob_h", userHandle: "someone" })).allowed).toBe(false);
    expect(auth.check(message({ userId: "300", userHandle: "100", chatType: "group" }))).toEqual({
      allowed: false,
    });
  });

  it("pins an @handle entry to the first account that carries it, for every later gateway too", () => {
    const { auth, home, logged } = setup({ platforms: { telegram: { allowed_users: ["@Alice"] } } });
    expect(auth.check(message({ userId: "100", userHandle: "ALICE" }))).toEqual({ allowed: true });
    expect(logged).toContain("allowlist handle pinned");
    // Another account with the handle is a stranger, in a group too; the first one is in under any handle.
    expect(
      auth.check(message({ userId: "200", userHandle: "alice", chatType: "group", chatId: "-5" })),
    ).toEqual({ allowed: false });
    expect(logged.filter((l) => l.startsWith("allowlist handle @alice is pinned"))).toHaveLength(1);
    expect(auth.check(message({ userId: "100", userHandle: "someone_else" }))).toEqual({ allowed: true });
    expect(auth.check(message({ userId: "100", userHandle: undefined }))).toEqual({ allowed: true });

    // A restarted gateway reads the pin from the pairing folder.
    const config = structuredClone(DEFAULT_CONFIG) as HermesConfig;
    const again = new GatewayAuth({ home, config, env: { TELEGRAM_ALLOWED_USERS: "@alice" } });
    expect(again.allows(message({ userId: "200", userHandle: "alice" }))).toBe(false);
    expect(again.allows(message({ userId: "100", userHandle: "x" }))).toBe(true);

    const store = new PairingStore({ home });
    expect(store.list().pins).toEqual([
      { platform: "telegram", handle: "alice", userId: "100", pinnedAt: expect.any(Number) },
    ]);
    expect(store.unpinHandle("telegram", "@ALICE")).toBe("100");
    expect(() => store.unpinHandle("telegram", "@alice")).toThrow(/@alice is not pinned on telegram/);
    expect(again.allows(message({ userId: "200", userHandle: "alice" }))).toBe(true);
    expect(again.allows(message({ userId: "100", userHandle: "x" }))).toBe(false);
  });

  it("admits users from <PLATFORM>_ALLOWED_USERS (comma separated, spaces ignored)", () => {
    const { auth } = setup({}, { TELEGRAM_ALLOWED_USERS: " 100 , @carol ,", DISCORD_ALLOWED_USERS: "555" });
    expect(auth.check(message({ userId: "100" }))).toEqual({ allowed: true });
    expect(auth.check(message({ userId: "700", userHandle: "@Carol" }))).toEqual({ allowed: true });
    expect(auth.check(message({ userId: "555", userHandle: "x" })).allowed).toBe(false);
    expect(auth.check(message({ platform: "discord", userId: "555" }))).toEqual({ allowed: true });
  });

  it("admits users approved by pairing, and only on their platform", () => {
    const { auth, home } = setup();
    const code = codeIn(auth.check(message({ userId: "100" })));
    new PairingStore({ home }).approve("telegram", code!);
    expect(auth.check(message({ userId: "100" }))).toEqual({ allowed: true });
    expect(auth.check(message({ userId: "100", chatType: "group", chatId: "-5" }))).toEqual({
      allowed: true,
    });
    expect(auth.check(message({ platform: "discord", userId: "100" })).allowed).toBe(false);
  });

  it("lets everyone in with GATEWAY_ALLOW_ALL_USERS, and only for true/1/yes", () => {
    for (const value of ["true", "1", "yes", "YES"]) {
      expect(setup({}, { GATEWAY_ALLOW_ALL_USERS: value }).auth.check(message())).toEqual({ allowed: true });
    }
    for (const value of ["false", "0", "no", ""]) {
      expect(setup({}, { GATEWAY_ALLOW_ALL_USERS: value }).auth.check(message()).allowed).toBe(false);
    }
  });

  it("lets webhook messages through: their signature was checked by the adapter", () => {
    const { auth } = setup();
    expect(
      auth.check(
        message({ platform: "webhook", chatId: "github", userId: "webhook:github", userHandle: undefined }),
      ),
    ).toEqual({ allowed: true });
  });

  it("tells a stranger to try later when 3 codes already wait, once per 10 minutes", () => {
    const { auth, logged } = setup();
    for (const id of ["1", "2", "3"])
      expect(codeIn(auth.check(message({ userId: id, chatId: id })))).toBeDefined();
    const full = auth.check(message({ userId: "4", chatId: "4" }));
    expect(full).toEqual({ allowed: false, reply: expect.stringMatching(/try again later/) });
    expect(auth.check(message({ userId: "4", chatId: "4" }))).toEqual({ allowed: false });
    expect(logged).toContain("pairing request refused: too many pending codes");
  });

  it("denies without throwing when the pairing folder cannot be used", () => {
    // HERMES_HOME is a file: the pairing folder cannot be created.
    const { auth, logged } = setup();
    const broken = new GatewayAuth({
      home: "/dev/null/not-a-dir",
      config: structuredClone(DEFAULT_CONFIG),
      env: {},
      log: (_l, msg) => logged.push(msg),
    });
    expect(broken.check(message())).toEqual({ allowed: false });
    expect(logged).toContain("authorization failed; message denied");
    expect(auth.check(message()).allowed).toBe(false);
  });
});
