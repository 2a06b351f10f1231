/**
 * `hermes send TARGET "text"`: one message through a platform's adapter from this process (no
 * running gateway needed). It goes through the delivery ledger like any gateway message: recorded
 * before it is sent, each chunk marked as it goes out, so nothing is ever sent twice and what could
 * not be sent is finished by the gateway's next start.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { loadConfig } from "../core/config.js";
import { loadDotEnv } from "../core/env.js";
import { ensureHermesHome, getHermesHome } from "../core/home.js";
import { outboundLedger } from "../runtime/delivery/ledger.js";
import { DeliveryError, OutboundDelivery } from "../runtime/delivery/outbound.js";
import { openProfileStore, persistenceRedactor } from "../runtime/state-store.js";
import type { StateStore } from "../state/store.js";
import { detectPlatforms, loadAdapterFactory, PLATFORM_NAMES } from "./platforms/index.js";
import { errorText } from "./process/describe.js";
import { createGatewayLogger } from "./process/gateway-log.js";
import type { OutboundTarget, PlatformAdapter } from "./types.js";

export interface SendTarget {
  platform: string;
  target: OutboundTarget;
}

const TARGET_HELP =
  "TARGET is <platform>:<chat_id>[:<thread_id>], e.g. telegram:123456789 or telegram:-1001234567890:42";

/** Parses `platform:chat_id[:thread_id]`; throws an Error with the expected form. */
export function parseSendTarget(text: string): SendTarget {
  const parts = text.trim().split(":");
  const [platform, chatId, threadId, ...rest] = parts;
  if (!platform || !chatId?.trim() || rest.length > 0 || (threadId !== undefined && !threadId.trim())) {
    throw new Error(`Invalid target '${text}'. ${TARGET_HELP}`);
  }
  return {
    platform: platform.trim(),
    target: { chatId: chatId.trim(), ...(threadId !== undefined ? { threadId: threadId.trim() } : {}) },
  };
}

export interface SendIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Sends `text` to `targetText`; prints the platform message id(s). Resolves to the exit code. */
export async function sendMessage(
  targetText: string,
  text: string,
  io: SendIo = {
    env: process.env,
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  let parsed: SendTarget;
  try {
    parsed = parseSendTarget(targetText);
  } catch (err) {
    io.err(errorText(err));
    return 2;
  }
  if (!text.trim()) {
    io.err("Nothing to send: the message text is empty.");
    return 2;
  }
  const paths = ensureHermesHome(getHermesHome(io.env));
  loadDotEnv(paths.env, io.env);
  const { config } = loadConfig(paths.config);
  const state = detectPlatforms(config, io.env).find((s) => s.name === parsed.platform);
  if (!state) {
    io.err(
      `Unknown platform '${parsed.platform}' (chat platforms: ${PLATFORM_NAMES.filter((n) => n !== "api_server").join(", ")}).`,
    );
    return 2;
  }
  if (state.kind !== "chat") {
    io.err(`'${parsed.platform}' is not a chat platform: messages cannot be sent to it.`);
    return 2;
  }
  if (!state.on) {
    io.err(
      `${parsed.platform} is not configured${state.reason ? ` (${state.reason})` : ""}. See docs/gateway.md for how to turn it on.`,
    );
    return 1;
  }
  const logger = createGatewayLogger(paths.home, persistenceRedactor(config, paths.home));
  const log = logger.log;
  let adapter: PlatformAdapter | undefined;
  let store: StateStore | undefined;
  try {
    const factory = await loadAdapterFactory(state.name);
    adapter = await factory({
      settings: state.settings,
      env: io.env,
      downloadDir: join(paths.cache, state.name),
      maxInboundBytes: config.gateway.max_inbound_media_bytes,
      log,
    });
    const opened = openProfileStore(paths.stateDb, config, paths.home);
    if ("error" in opened) throw opened.error;
    store = opened.store;
    const delivery = new OutboundDelivery(adapter, outboundLedger(store), { log, maxAttempts: 3 });
    const key = `send:${randomUUID()}`;
    log("info", "hermes send", { platform: state.name, chat: parsed.target.chatId, key });
    const ids = await delivery.deliver(key, parsed.target, text, { format: "markdown" });
    io.out(ids.filter(Boolean).join(" ") || "(sent)");
    return 0;
  } catch (err) {
    if (err instanceof DeliveryError && err.state === "pending") {
      io.err(`Not sent yet: ${err.message}. It is recorded and will be sent when the gateway starts next.`);
    } else {
      io.err(`Send failed: ${errorText(err)}`);
    }
    return 1;
  } finally {
    await adapter?.stop().catch(() => undefined);
    await store?.close();
    logger.close();
  }
}
