/**
 * An `@handle` allowlist entry through Telegram: it lets in the first account that carries the handle
 * and is pinned to that account's id from then on; another account that later carries the handle is
 * a stranger.
 */
import { describe, expect, it } from "vitest";
import { PairingStore } from "../../src/gateway/auth/pairing-store.js";
import { lastUser } from "../runtime/support.js";
import { cleanEnv, runHermes } from "../support/cli.js";
import { botMessages, shows, useTelegramGateway } from "./support/telegram-gateway.js";

const h = useTelegramGateway();
const FIRST = 100;
const SECOND = 200;

describe("telegram @handle allowlist entries", () => {
  it("pin the handle to the first account; a second account with the handle later is not answered", async () => {
    h.fake.setResponder((req) => ({ text: `answer to ${lastUser(req)}` }));
    const { tg, t, logs } = await h.start({ allowed: "@Alice" });

    tg.sendUserMessage({ chatId: FIRST, userId: FIRST, userHandle: "alice", text: "hi from the first" });
    await shows(tg, FIRST, "answer to hi from the first");
    expect(
      logs.some((l) => l.startsWith("info: allowlist handle pinned") && l.includes('"user":"100"')),
    ).toBe(true);

    // The first account gives the handle up and another one takes it.
    tg.sendUserMessage({ chatId: SECOND, userId: SECOND, userHandle: "alice", text: "hi from the second" });
    await shows(tg, SECOND, "Pairing code");
    expect(logs.some((l) => l.startsWith("warn: allowlist handle @alice is pinned to another user"))).toBe(
      true,
    );
    // The first account, under its new handle, is still the one let in.
    tg.sendUserMessage({ chatId: FIRST, userId: FIRST, userHandle: "alice_renamed", text: "still me" });
    await shows(tg, FIRST, "answer to still me");

    expect(h.fake.requests.map(lastUser)).toEqual(["hi from the first", "still me"]);
    expect(botMessages(tg, SECOND).map((m) => m.text)).toEqual([expect.stringContaining("Pairing code")]);
    expect(new PairingStore(t.runtime.sessions!.pairing).list("telegram").pins).toEqual([
      { platform: "telegram", handle: "alice", userId: "100", pinnedAt: expect.any(Number) },
    ]);

    // The owner releases the pin: the handle matches again, and pins to whoever carries it next.
    const released = await runHermes(["pairing", "revoke", "telegram", "@alice"], {
      env: cleanEnv({ HERMES_HOME: t.box.home }),
      cwd: t.box.work,
    });
    expect([released.code, released.stderr]).toEqual([0, ""]);
    expect(released.stdout).toContain("Released @alice on telegram (it was pinned to 100)");
    tg.sendUserMessage({ chatId: SECOND, userId: SECOND, userHandle: "alice", text: "second try" });
    await shows(tg, SECOND, "answer to second try");
  });
});
