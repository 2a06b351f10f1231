/**
 * The HTTP endpoint Telegram posts updates to in webhook mode. Every request must carry the secret
 * given to setWebhook in X-Telegram-Bot-Api-Secret-Token; an update is answered 200 only once the
 * gateway recorded it (503 with Retry-After when it could not), so Telegram redelivers anything
 * that was not.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Update } from "grammy/types";
import { BodyError, parseJsonBody, readBody } from "../../../core/http-body.js";
import type { InboundReceipt } from "../../types.js";

export interface WebhookServerOptions {
  host: string;
  port: number;
  /** The path Telegram posts to (the webhook URL's path). */
  path: string;
  secret: string;
  handle(update: Update): Promise<InboundReceipt>;
  log(level: "info" | "warn" | "error", message: string, fields?: Record<string, unknown>): void;
}

export interface WebhookServer {
  port: number;
  /** Stops accepting requests and waits for the ones in flight. */
  close(): Promise<void>;
}

/** Telegram's updates are small; anything bigger is not from Telegram. */
const MAX_BODY_BYTES = 1024 * 1024;

function secretMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startWebhookServer(o: WebhookServerOptions): Promise<WebhookServer> {
  const inFlight = new Set<Promise<void>>();
  const answer = (res: ServerResponse, status: number, text: string): void => {
    res.writeHead(status, { "content-type": "text/plain" });
    res.end(text);
  };

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== o.path) return answer(res, 404, "not found");
    if (req.method !== "POST") return answer(res, 405, "method not allowed");
    if (!secretMatches(req.headers["x-telegram-bot-api-secret-token"], o.secret)) {
      o.log("warn", "telegram webhook: request with a wrong secret token refused", {
        from: req.socket.remoteAddress,
      });
      req.resume();
      return answer(res, 401, "unauthorized");
    }
    let update: Update;
    try {
      update = (await parseJsonBody(await readBody(req, { maxBytes: MAX_BODY_BYTES }))) as Update;
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      if (error.problem === "aborted") return;
      return answer(res, error.status, error.message);
    }
    if (typeof update?.update_id !== "number") return answer(res, 400, "not an update");
    try {
      const receipt = await o.handle(update);
      if (receipt.status !== "unavailable") return answer(res, 200, "ok");
      o.log("warn", "telegram webhook: update not recorded; Telegram will resend it", {
        updateId: update.update_id,
        reason: receipt.reason,
      });
      res.writeHead(503, {
        "content-type": "text/plain",
        "retry-after": String(Math.max(1, Math.ceil(receipt.retryAfterSeconds))),
      });
      res.end("not recorded, try again later");
    } catch (error) {
      o.log("error", "telegram webhook: update not handled; Telegram will resend it", {
        updateId: update.update_id,
        error: error instanceof Error ? error.message : String(error),
      });
      answer(res, 500, "not handled");
    }
  }

  const server = createServer((req, res) => {
    const work = onRequest(req, res).catch(() => {
      if (!res.headersSent) answer(res, 500, "error");
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.all(inFlight);
      server.closeAllConnections();
      await closed;
    },
  };
}
