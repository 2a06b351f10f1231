/**
 * Strangers cost nothing: through Telegram, a message from someone not let in is neither downloaded
 * nor recorded nor shown to the model; only the pairing store remembers it (rate-limited).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PairingStore } from "../../src/gateway/auth/pairing-store.js";
import { lastUser } from "../runtime/support.js";
import { shows, useTelegramGateway } from "./support/telegram-gateway.js";

const h = useTelegramGateway();
const ALICE = 42;
const STRANGER = 99;

const filesIn = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

describe("telegram strangers", () => {
  it("leave no download, no ledger row and no model call; an allowed user's photo is downloaded", async () => {
    h.fake.setResponder((req) => ({ text: `seen: ${lastUser(req).split("\n")[0]}` }));
    const { tg, t, ledger } = await h.start({ allowed: String(ALICE) });
    const downloads = join(t.runtime.paths.cache, "telegram");
    const photo = Buffer.from("P".repeat(3000));

    const dm = tg.sendUserMessage({ chatId: STRANGER, userId: STRANGER, text: "look", photo });
    await shows(tg, STRANGER, "Pairing code");
    const group = tg.sendUserMessage({
      chatId: -500,
      chatType: "group",
      userId: STRANGER,
      text: "@hermes_test_bot read this",
      document: { bytes: Buffer.from("%PDF-1.4"), fileName: "plan.pdf" },
    });
    // Updates are handled in order: once Alice is answered, the stranger's were handled too.
    const mine = tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "my photo", photo });
    await shows(tg, ALICE, "seen: my photo");

    expect(h.fake.requests.map((r) => lastUser(r).split("\n")[0])).toEqual(["my photo"]);
    expect(tg.calls.filter((c) => c.method === "getFile")).toHaveLength(1);
    expect(filesIn(downloads)).toEqual([expect.stringMatching(new RegExp(`^${mine.updateId}-0-`))]);
    for (const { updateId } of [dm, group]) {
      expect(ledger.inboundStatus("telegram", String(updateId))).toBeUndefined();
      expect(ledger.outbound(`telegram:${updateId}:auth`)).toBeUndefined();
    }
    await tg.waitFor(() => ledger.inboundStatus("telegram", String(mine.updateId)) === "done");
    // What is kept of the stranger: one pending pairing request.
    expect(
      new PairingStore(t.runtime.sessions!.pairing).list("telegram").pending.map((p) => p.userId),
    ).toEqual([String(STRANGER)]);
  });
});
