import { join } from "node:path";
import { afterEach } from "vitest";
import { GatewayAuth } from "../../../src/gateway/auth/authorize.js";
import { type DeliveryLedger, gatewayLedger } from "../../../src/gateway/ledger.js";
import { platformSettings } from "../../../src/gateway/platforms/index.js";
import { createTelegramAdapter } from "../../../src/gateway/platforms/telegram/adapter.js";
import { GatewayRunner } from "../../../src/gateway/runner.js";
import { type TestRuntime, useRuntime } from "../../runtime/support.js";
import type { FakeLlm } from "../../support/fake-llm.js";
import { type ChatMessage, type FakeTelegram, startFakeTelegram } from "../../support/fake-telegram.js";

export interface TelegramGateway {
  t: TestRuntime;
  tg: FakeTelegram;
  runner: GatewayRunner;
  ledger: DeliveryLedger;
  /** What the gateway logged, one "level: message {fields}" line each. */
  logs: string[];
}

export interface TelegramGatewayOptions {
  /** TELEGRAM_ALLOWED_USERS. */
  allowed?: string;
  /** More config.yaml (the telegram platform block is written already). */
  yaml?: string;
  /** More lines under `platforms.telegram` (indented by the caller, e.g. "    mode: webhook\n"). */
  telegramYaml?: string;
}

export interface TelegramGatewayHarness {
  readonly fake: FakeLlm;
  /** The real runtime, ledger, auth and runner with the Telegram adapter on grammY, against a fake Bot API. */
  start(options?: TelegramGatewayOptions): Promise<TelegramGateway>;
}

/** A Telegram gateway per test, drained after it. */
export function useTelegramGateway(): TelegramGatewayHarness {
  const h = useRuntime();
  let current: TelegramGateway | undefined;
  // Registered after useRuntime's hooks, so it runs first: the runner drains before the runtime goes.
  afterEach(async () => {
    if (!current) return;
    await current.runner.drain(5_000);
    await current.tg.close();
    current = undefined;
  });
  return {
    get fake() {
      return h.fake;
    },
    start: async (o = {}) => {
      const tg = await startFakeTelegram();
      const yaml = `streaming:\n  edit_interval: 0.05\n  buffer_threshold: 1\nplatforms:\n  telegram:\n    api_root: ${tg.apiRoot}\n${o.telegramYaml ?? ""}${o.yaml ?? ""}`;
      const t = h.start(yaml, { platform: "gateway" });
      const logs: string[] = [];
      const log = (level: string, message: string, fields?: Record<string, unknown>): void => {
        logs.push(`${level}: ${message} ${JSON.stringify(fields ?? {})}`);
      };
      const adapter = await createTelegramAdapter({
        settings: platformSettings(t.runtime.config, "telegram"),
        env: { TELEGRAM_BOT_TOKEN: tg.token },
        downloadDir: join(t.runtime.paths.cache, "telegram"),
        maxInboundBytes: t.runtime.config.gateway.max_inbound_media_bytes,
        log,
      });
      const ledger = gatewayLedger(t.runtime.sessions!);
      const auth = new GatewayAuth({
        pairing: t.runtime.sessions!.pairing,
        config: t.runtime.config,
        env: o.allowed !== undefined ? { TELEGRAM_ALLOWED_USERS: o.allowed } : {},
        log,
      });
      const runner = new GatewayRunner({
        runtime: t.runtime,
        adapters: [adapter],
        ledger,
        auth,
        log,
        workDir: t.box.work,
      });
      await runner.start();
      current = { t, tg, runner, ledger, logs };
      return current;
    },
  };
}

export const botMessages = (tg: FakeTelegram, chatId: number): ChatMessage[] =>
  tg.messagesIn(chatId).filter((m) => m.from === "bot");

/** Resolves once the chat shows a bot message containing `text` (after edits). */
export const shows = (
  tg: FakeTelegram,
  chatId: number,
  text: string,
  timeoutMs = 15_000,
): Promise<ChatMessage> =>
  tg.waitFor(() => botMessages(tg, chatId).find((m) => m.text.includes(text)), timeoutMs);
