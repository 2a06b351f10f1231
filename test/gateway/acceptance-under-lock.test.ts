/**
 * Honest acceptance: while another process holds state.db's write lock, nothing is acknowledged
 * that was not recorded. A signed webhook gets 503 with Retry-After (and its retry is taken later);
 * a Telegram update is not confirmed, so it comes again and is answered once when the lock frees.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GatewayAuth } from "../../src/gateway/auth/authorize.js";
import { gatewayLedger } from "../../src/gateway/ledger.js";
import { platformSettings } from "../../src/gateway/platforms/index.js";
import { createTelegramAdapter } from "../../src/gateway/platforms/telegram/adapter.js";
import { createWebhookAdapter } from "../../src/gateway/platforms/webhook/index.js";
import { GatewayRunner } from "../../src/gateway/runner.js";
import { lastUser, useRuntime } from "../runtime/support.js";
import { startTsChild } from "../support/child.js";
import { startFakeTelegram } from "../support/fake-telegram.js";
import { botMessages, shows } from "./support/telegram-gateway.js";
import { githubSigned, WEBHOOK_SECRET } from "./support/webhook-gateway.js";

const h = useRuntime();
const ALICE = 42;

describe("acceptance while state.db is locked by another process", () => {
  it("answers the webhook 503 + Retry-After and its retry 202; the Telegram update is answered once after the lock frees", async () => {
    const tg = await startFakeTelegram();
    const t = h.start(`platforms:\n  telegram:\n    api_root: ${tg.apiRoot}\n`, { platform: "gateway" });
    const log = (): void => undefined;
    const telegram = await createTelegramAdapter({
      settings: platformSettings(t.runtime.config, "telegram"),
      env: { TELEGRAM_BOT_TOKEN: tg.token },
      downloadDir: join(t.runtime.paths.cache, "telegram"),
      maxInboundBytes: 1024 * 1024,
      log,
    });
    const webhook = await createWebhookAdapter({
      settings: {
        host: "127.0.0.1",
        port: 0,
        routes: { alerts: { secret: WEBHOOK_SECRET, prompt: "Alert: {{title}}" } },
      },
      env: {},
      downloadDir: join(t.runtime.paths.cache, "webhook"),
      maxInboundBytes: 1024,
      log,
    });
    const runner = new GatewayRunner({
      runtime: t.runtime,
      adapters: [telegram, webhook],
      ledger: gatewayLedger(t.runtime.sessions!),
      auth: new GatewayAuth({
        pairing: t.runtime.sessions!.pairing,
        config: t.runtime.config,
        env: { TELEGRAM_ALLOWED_USERS: String(ALICE) },
      }),
      workDir: t.box.work,
    });
    h.fake.setResponder((req) => ({ text: `answered: ${lastUser(req)}` }));
    await runner.start();
    try {
      let locked = false;
      let released = false;
      const holder = startTsChild(
        "state-writer.mjs",
        ["hold-until-told", t.runtime.paths.stateDb],
        (line) => {
          if (line === "locked") locked = true;
          if (line === "released") released = true;
        },
      );
      await tg.waitFor(() => locked, 10_000);

      tg.sendUserMessage({ chatId: ALICE, userId: ALICE, text: "hello while locked" });
      const body = JSON.stringify({ title: "disk full" });
      const headers = { "content-type": "application/json", ...githubSigned(body), "x-request-id": "r-1" };
      const url = `http://127.0.0.1:${webhook.port}/webhooks/alerts`;
      const refused = await fetch(url, { method: "POST", headers, body });
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ request_id: "r-1" });
      // Nothing ran and nothing was said while nothing could be recorded.
      expect(h.fake.requests).toHaveLength(0);
      expect(botMessages(tg, ALICE)).toEqual([]);

      holder.child.stdin!.end("go\n");
      expect((await holder.done).code).toBe(0);
      expect(released).toBe(true);

      await shows(tg, ALICE, "answered: hello while locked", 30_000);
      const retried = await fetch(url, { method: "POST", headers, body });
      expect(retried.status).toBe(202);
      await tg.waitFor(() => h.fake.requests.some((r) => lastUser(r) === "Alert: disk full"), 15_000);
      await runner.drain(5_000);

      expect(h.fake.requests.map(lastUser).sort()).toEqual(["Alert: disk full", "hello while locked"]);
      expect(botMessages(tg, ALICE).map((m) => m.text)).toEqual(["answered: hello while locked"]);
    } finally {
      await runner.drain(5_000);
      await tg.close();
    }
  }, 90_000);
});
