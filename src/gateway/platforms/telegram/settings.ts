/**
 * The Telegram adapter's settings from `platforms.telegram` (merged with its `extra` block) and the
 * environment, checked once so a typo fails at start-up with a message that names the key.
 */
import { randomBytes } from "node:crypto";
import type { AdapterContext } from "../../types.js";

export interface TelegramAdapterSettings {
  token: string;
  /** Bot API root without a trailing slash; undefined = api.telegram.org. */
  apiRoot: string | undefined;
  mode: "polling" | "webhook";
  webhook?: { url: string; path: string; host: string; port: number; secret: string };
}

const text = (v: unknown): string => (typeof v === "string" ? v.trim() : "");

export function readTelegramSettings(context: AdapterContext): TelegramAdapterSettings {
  const s = context.settings;
  const token = text(context.env.TELEGRAM_BOT_TOKEN) || text(s.token);
  if (!token)
    throw new Error(
      "Telegram needs a bot token: set TELEGRAM_BOT_TOKEN (from @BotFather) in the environment or HERMES_HOME/.env",
    );
  if (!/^\d+:[\w-]+$/.test(token))
    throw new Error(
      "TELEGRAM_BOT_TOKEN does not look like a bot token (expected <digits>:<secret> as @BotFather gives it)",
    );
  const root = text(s.api_root).replace(/\/+$/, "");
  if (root && !URL.canParse(root)) throw new Error(`platforms.telegram.api_root is not a URL: ${root}`);
  const mode = text(s.mode) || "polling";
  if (mode !== "polling" && mode !== "webhook")
    throw new Error(`platforms.telegram.mode must be polling or webhook, not '${mode}'`);
  const settings: TelegramAdapterSettings = { token, apiRoot: root || undefined, mode };
  if (mode === "webhook") {
    const url = text(s.webhook_url);
    if (!url || !URL.canParse(url))
      throw new Error("platforms.telegram.mode is webhook but platforms.telegram.webhook_url is not a URL");
    const port = Number(s.webhook_port ?? 8443);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`platforms.telegram.webhook_port is not a port: ${String(s.webhook_port)}`);
    const secret = text(s.webhook_secret) || text(context.env.TELEGRAM_WEBHOOK_SECRET);
    if (secret && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
      throw new Error(
        "platforms.telegram.webhook_secret may hold only A-Z, a-z, 0-9, _ and - (1-256 characters)",
      );
    settings.webhook = {
      url,
      path: new URL(url).pathname || "/",
      host: text(s.webhook_host) || "127.0.0.1",
      port,
      // Without a configured secret, a fresh one per start still proves each request came from Telegram.
      secret: secret || randomBytes(24).toString("hex"),
    };
  }
  return settings;
}
