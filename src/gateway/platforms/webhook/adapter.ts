/**
 * Inbound webhooks as a gateway platform: `POST /webhooks/<route>` with a signed JSON payload
 * becomes one message to the agent (one session per route), and the answer is POSTed to the route's
 * `deliver.url` or sent to a chat of another platform. A `deliver_only` route runs no agent: the
 * rendered template is delivered while the request waits. Nothing happens unless the HMAC
 * signature checks out.
 *
 * A webhook answer is one callback, so there is nothing to stream into: `edit()` refuses and
 * `minEditIntervalMs` is Infinity, which tells the gateway not to stream to this platform.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BodyError, parseJsonBody, readBody } from "../../../core/http-body.js";
import { DeliveryError } from "../../../runtime/delivery/outbound.js";
import {
  type AdapterContext,
  type ChatAddress,
  chatTarget,
  type GatewayLink,
  type InboundMessage,
  type InboundReceipt,
  type InboundSink,
  type OutboundTarget,
  type PlatformAdapter,
  PlatformSendError,
} from "../../types.js";
import {
  parseWebhookSettings,
  renderPrompt,
  routeProblem,
  type WebhookRoute,
  type WebhookSettings,
} from "./routes.js";
import { sign, verifyRequest } from "./signature.js";

const PATH = /^\/webhooks\/([^/?#]+)\/?$/;
/**
 * Delivery ids and content hashes remembered to answer a quick retry without a second turn. The
 * ledger keeps the content hash (the message's update id) for good, across restarts.
 */
const RECENT_KEYS = 2048;
/** A sender has this long to send its whole body. */
const BODY_TIMEOUT_MS = 30_000;
/** What a sender is asked to wait when the gateway cannot record its request now. */
const RETRY_AFTER_S = 5;

export interface WebhookAdapter extends PlatformAdapter {
  /** The port the server listens on (after start; useful with port 0). */
  readonly port: number;
}

type Reply = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

const firstHeader = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() ? s.trim() : undefined;
};

class PerMinuteLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly limit: number) {}

  /** Seconds to wait when `key` is over its limit, else undefined (and the hit is counted). */
  take(key: string, now: number): number | undefined {
    if (this.limit <= 0) return undefined;
    const recent = (this.hits.get(key) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      return Math.max(1, Math.ceil((recent[0]! + 60_000 - now) / 1000));
    }
    recent.push(now);
    this.hits.set(key, recent);
    return undefined;
  }
}

class WebhookPlatform implements WebhookAdapter {
  readonly name = "webhook";
  /** One answer is one callback; the ledger splits only beyond this. */
  readonly maxMessageLength = 1_000_000;
  /** Streaming by edits is impossible here; a day keeps any throttle from ever firing. */
  readonly minEditIntervalMs = Number.POSITIVE_INFINITY;

  private server: Server | undefined;
  private sink: InboundSink | undefined;
  private link: GatewayLink | undefined;
  /** Routes that cannot run in this gateway, and why (logged at start). */
  private readonly refused = new Map<string, string>();
  private readonly limiter: PerMinuteLimiter;
  private readonly recent = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly settings: WebhookSettings,
    private readonly log: AdapterContext["log"],
  ) {
    this.limiter = new PerMinuteLimiter(settings.rateLimitPerMinute);
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? this.settings.port;
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.link = sink.gateway;
    this.refused.clear();
    for (const route of this.settings.routes.values()) {
      const problem = routeProblem(route, this.link);
      if (problem) {
        this.refused.set(route.name, problem);
        this.log("error", `webhook route '${route.name}' is refused: ${problem}`, { route: route.name });
      }
      if (!route.secret) {
        this.log(
          "error",
          `webhook route '${route.name}' has no secret; it refuses every request until one is set`,
          {
            route: route.name,
          },
        );
      }
    }
    const server = createServer((req, res) => {
      const work = this.handle(req, res).catch((err: unknown) => {
        this.log("error", "webhook request failed", { error: (err as Error).message });
        if (!res.headersSent) respond(res, { status: 500, body: { error: "internal error" } });
      });
      this.inFlight.add(work);
      void work.finally(() => this.inFlight.delete(work));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) =>
        reject(
          new Error(
            `webhook server cannot listen on ${this.settings.host}:${this.settings.port}: ${err.message}`,
          ),
        ),
      );
      server.listen(this.settings.port, this.settings.host, () => resolve());
    });
    this.server = server;
    this.log("info", "webhook server listening", { host: this.settings.host, port: this.port });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.allSettled([...this.inFlight]);
    server.closeAllConnections();
    await closed;
  }

  async send(target: OutboundTarget, text: string): Promise<{ messageId: string }> {
    const route = this.settings.routes.get(target.chatId);
    const messageId = randomUUID();
    if (!route) throw new PlatformSendError(`no webhook route named '${target.chatId}'`, false);
    if (route.deliverChat) return this.forward(route.deliverChat, text, messageId);
    if (!route.deliver) {
      this.log(
        "warn",
        `webhook route '${route.name}' has no deliver.url; the answer stays in the session only`,
        {
          route: route.name,
        },
      );
      return { messageId };
    }
    const body = JSON.stringify({
      route: route.name,
      text,
      session_key: `agent:main:webhook:dm:${route.name}`,
      request_id: target.replyTo ?? null,
    });
    const headers: Record<string, string> = { ...route.deliver.headers, "content-type": "application/json" };
    if (route.secret) headers["x-hermes-signature"] = sign(route.secret, body);
    let response: Response;
    try {
      response = await fetch(route.deliver.url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(route.deliver.timeoutMs),
      });
    } catch (err) {
      throw new PlatformSendError(
        `webhook callback to ${route.deliver.url} failed: ${(err as Error).message}`,
        true,
      );
    }
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) {
      const retryAfter = Number(response.headers.get("retry-after"));
      throw new PlatformSendError(
        `webhook callback to ${route.deliver.url} answered HTTP ${response.status}`,
        response.status >= 500 || response.status === 429,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      );
    }
    return { messageId };
  }

  /** A message of a route whose answers go to another platform's chat (background notices). */
  private async forward(to: ChatAddress, text: string, messageId: string): Promise<{ messageId: string }> {
    if (!this.link) {
      throw new PlatformSendError(
        `this webhook route delivers to ${to.platform}:${to.chatId}; send there instead`,
        false,
      );
    }
    try {
      await this.link.deliverNow(to.platform, chatTarget(to), text, `webhook:forward:${messageId}`);
    } catch (err) {
      const refused = err instanceof DeliveryError && err.state === "failed";
      throw new PlatformSendError(`${to.platform}:${to.chatId}: ${(err as Error).message}`, !refused);
    }
    return { messageId };
  }

  async edit(): Promise<void> {
    throw new PlatformSendError("webhook answers are delivered once and cannot be edited", false);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "GET" && path === "/health")
      return respond(res, { status: 200, body: { status: "ok" } });
    const match = PATH.exec(path);
    const route = match ? this.settings.routes.get(decodeURIComponent(match[1]!)) : undefined;
    if (!route) return respond(res, { status: 404, body: { error: "no such webhook route" } }, req);
    if (req.method !== "POST") {
      return respond(res, { status: 405, body: { error: "use POST" }, headers: { allow: "POST" } }, req);
    }
    if (!route.secret) {
      this.log("error", `webhook route '${route.name}' has no secret configured; request refused`, {
        route: route.name,
      });
      return respond(res, { status: 403, body: { error: "this route has no secret configured" } }, req);
    }
    if (this.refused.has(route.name)) {
      this.log("error", `webhook route '${route.name}' is refused: ${this.refused.get(route.name)}`, {
        route: route.name,
      });
      const error = "this route is refused by a configuration error (see the gateway log)";
      return respond(res, { status: 503, body: { error } }, req);
    }
    let body: Buffer;
    try {
      body = await readBody(req, { maxBytes: this.settings.maxBodyBytes, timeoutMs: BODY_TIMEOUT_MS });
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      if (err.problem === "aborted") return; // nobody is left to answer
      return respond(res, { status: err.status, body: { error: err.message } }, req);
    }
    const check = verifyRequest(route.secret, body, req.headers, {
      nowMs: Date.now(),
      requireTimestamp: route.requireTimestamp,
    });
    if (!check.ok) {
      this.log("warn", "webhook request refused", { route: route.name, reason: check.error });
      return respond(res, { status: 401, body: { error: check.error } });
    }
    const wait = this.limiter.take(route.name, Date.now());
    if (wait !== undefined) {
      return respond(res, {
        status: 429,
        body: { error: "rate limit exceeded" },
        headers: { "retry-after": String(wait) },
      });
    }
    let payload: unknown;
    try {
      payload = await parseJsonBody(body);
    } catch (err) {
      return respond(res, { status: 400, body: { error: (err as Error).message } });
    }
    const event = firstHeader(req, "x-github-event") ?? firstHeader(req, "x-event-type");
    if (route.events && !(event && route.events.includes(event))) {
      return respond(res, { status: 200, body: { status: "ignored", event: event ?? null } });
    }
    const contentId = `sha256-${check.contentHash.slice(0, 32)}`;
    const deliveryId = firstHeader(req, "x-github-delivery") ?? firstHeader(req, "x-request-id") ?? contentId;
    // The signed content is what a replay cannot change: it is the message's key in the ledger.
    const updateId = `${route.name}:${contentId}`;
    const keys = [`content:${updateId}`, `delivery:${route.name}:${deliveryId}`];
    if (route.deliverOnly) return respond(res, await this.deliverOnly(route, updateId, deliveryId, payload));
    if (keys.some((k) => this.recent.has(k))) {
      return respond(res, { status: 200, body: { status: "duplicate", request_id: deliveryId } });
    }
    const receipt = await this.accept(route, updateId, deliveryId, payload, event);
    if (receipt.status === "accepted" || receipt.status === "duplicate") this.remember(keys);
    return respond(res, receiptReply(receipt, deliveryId));
  }

  /** Keys of a request the gateway took, oldest forgotten first. */
  private remember(keys: readonly string[]): void {
    for (const key of keys) {
      this.recent.delete(key);
      this.recent.add(key);
    }
    while (this.recent.size > RECENT_KEYS) this.recent.delete(this.recent.values().next().value!);
  }

  /**
   * `deliver_only`: the rendered template goes to the route's target while the sender waits; 200
   * once delivered, 502 with the reason when not. The ledger key is the hash of the signed content,
   * so a retried (or replayed) delivery is sent once; a failed one may be retried by the sender.
   */
  private async deliverOnly(
    route: WebhookRoute,
    updateId: string,
    deliveryId: string,
    payload: unknown,
  ): Promise<Reply> {
    const text = renderPrompt(route.prompt, payload);
    const chat = route.deliverChat;
    const [platform, target] = chat
      ? [chat.platform, chatTarget(chat)]
      : ["webhook", { chatId: route.name, replyTo: deliveryId }];
    if (!this.link) {
      return { status: 503, body: { error: "deliver_only needs the gateway", request_id: deliveryId } };
    }
    try {
      const { repeated } = await this.link.deliverNow(platform, target, text, `webhook:${updateId}:deliver`);
      this.log("info", "webhook payload delivered", { route: route.name, platform, repeated });
      return {
        status: 200,
        body: { status: "delivered", request_id: deliveryId, ...(repeated ? { duplicate: true } : {}) },
      };
    } catch (err) {
      const error = (err as Error).message;
      this.log("warn", "webhook payload not delivered", { route: route.name, platform, error });
      return { status: 502, body: { error, request_id: deliveryId } };
    }
  }

  /** Hands the message to the gateway; resolves once it is recorded (or why it is not). */
  private async accept(
    route: WebhookRoute,
    updateId: string,
    deliveryId: string,
    payload: unknown,
    event: string | undefined,
  ): Promise<InboundReceipt> {
    if (!this.sink) return { status: "unavailable", retryAfterSeconds: RETRY_AFTER_S, reason: "not started" };
    const message: InboundMessage = {
      platform: "webhook",
      updateId,
      chatId: route.name,
      chatType: "dm",
      userId: `webhook:${route.name}`,
      userName: event ? `webhook ${route.name} (${event})` : `webhook ${route.name}`,
      messageId: deliveryId,
      text: asPrompt(renderPrompt(route.prompt, payload)),
      receivedAt: Date.now(),
      ...(route.deliverChat ? { deliverTo: route.deliverChat } : {}),
      ...(route.skills?.length ? { skills: route.skills } : {}),
    };
    // Resolves once the gateway recorded the message: a 202 means it will not be lost.
    return this.sink(message);
  }
}

/**
 * The answer to a request the gateway took: 202 once recorded, 200 for a duplicate, 503 with
 * Retry-After when it could not be recorded (the request is not remembered: its retry is taken).
 */
function receiptReply(receipt: InboundReceipt, deliveryId: string): Reply {
  switch (receipt.status) {
    case "accepted":
      return { status: 202, body: { status: "accepted", request_id: deliveryId } };
    case "duplicate":
      return { status: 200, body: { status: "duplicate", request_id: deliveryId } };
    case "ignored":
      return { status: 200, body: { status: "ignored", request_id: deliveryId } };
    case "unavailable":
      return {
        status: 503,
        body: { error: `not recorded, try again later: ${receipt.reason}`, request_id: deliveryId },
        headers: { "retry-after": String(Math.max(1, Math.ceil(receipt.retryAfterSeconds))) },
      };
  }
}

/** Payload text is third-party data: it must never act as a gateway command (`/new`, `/stop`, ...). */
function asPrompt(text: string): string {
  return /^\s*\//.test(text) ? `Webhook payload:\n${text}` : text;
}

/** Sends a JSON reply; with `req` (an unread or partly read body) the connection closes after it. */
function respond(res: ServerResponse, reply: Reply, req?: IncomingMessage): void {
  const text = JSON.stringify(reply.body);
  const headers: Record<string, string> = { "content-type": "application/json", ...reply.headers };
  if (req && !req.complete) headers.connection = "close";
  res.writeHead(reply.status, headers);
  res.end(text);
  // Discard what is left of an unread body so the client can read the answer before the close.
  if (req && !req.complete) req.resume();
}

/** The webhook platform (an AdapterFactory). Throws on malformed route settings. */
export async function createWebhookAdapter(context: AdapterContext): Promise<WebhookAdapter> {
  return new WebhookPlatform(parseWebhookSettings(context.settings, context.env), context.log);
}
