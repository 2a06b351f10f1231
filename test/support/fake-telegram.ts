/**
 * A local fake of Telegram's Bot API over real HTTP on 127.0.0.1: the code under test talks to it
 * through grammY (`client.apiRoot`), exactly as it talks to api.telegram.org or a self-hosted Bot API
 * server. It keeps the real shapes (`{ok, result}` / `{ok: false, error_code, description,
 * parameters}`), long polling with offsets and confirmation, webhooks with the secret header, uploads
 * in multipart/form-data, file downloads at /file/bot<token>/<path>, and the server's checks (4096
 * visible characters, HTML entity parsing, "message is not modified"). Tests drive the user's side
 * (`sendUserMessage`, `pressButton`) and read what a chat shows (`messagesIn`).
 *
 * Where it departs from the real server, for testability: webhooks may be plain http on loopback;
 * an update pushed again with an id already delivered is delivered again (a redelivery). As on the
 * real server, an update stays in every getUpdates answer until an offset past it confirms it.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  ApiError,
  type BotUser,
  badRequest,
  type ChatMessage,
  FakeChats,
  type Json,
  type UserMessageSpec,
} from "./fake-telegram-chats.js";
import { parseBody } from "./fake-telegram-wire.js";

export type { ChatMessage, FakeButton, TelegramChatType, UserMessageSpec } from "./fake-telegram-chats.js";

export interface FakeCall {
  method: string;
  params: Json;
  at: number;
  /** HTTP status of the answer (absent while in flight); `dropped`: the client went away first. */
  status?: number;
  dropped?: boolean;
}

export interface FaultSpec {
  /** How many calls it applies to (default 1). */
  times?: number;
  /** Answer with this error status (none: only delay, then answer normally). */
  status?: number;
  description?: string;
  /** Seconds, sent as parameters.retry_after (429). */
  retryAfter?: number;
  /** Hold the call this long first; a call whose client disconnects meanwhile is dropped unprocessed. */
  delayMs?: number;
  /** Only calls whose parameters match. */
  match?: (params: Json) => boolean;
}

export interface FakeTelegram {
  /** http://127.0.0.1:PORT (grammY's `client.apiRoot`). */
  apiRoot: string;
  token: string;
  botUser: BotUser;
  /** Every Bot API call, in arrival order. */
  calls: FakeCall[];
  /** Webhook POSTs and the status the receiver answered. */
  webhookDeliveries: Array<{ updateId: number; status: number }>;
  sendUserMessage(spec: UserMessageSpec): { updateId: number; messageId: number; update: Json };
  pressButton(spec: { chatId: number; userId: number; messageId: number; data: string }): {
    updateId: number;
    callbackQueryId: string;
  };
  /** Queues a raw update (its update_id kept when present: pushing one twice redelivers it). */
  pushUpdate(raw: Json): number;
  messagesIn(chatId: number | string): ChatMessage[];
  /** Resolves with the predicate's first truthy value; rejects after timeoutMs. */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  fail(method: string, spec: FaultSpec): void;
  /** Whether an answerCallbackQuery arrived for this id (and its text). */
  callbackAnswer(callbackQueryId: string): { answered: boolean; text?: string } | undefined;
  webhook(): { url: string; secret?: string } | undefined;
  close(): Promise<void>;
}

interface PendingPoll {
  res: ServerResponse;
  call: FakeCall;
  limit: number;
  timer: NodeJS.Timeout;
}

export async function startFakeTelegram(options: { token?: string } = {}): Promise<FakeTelegram> {
  const botId = 7_000_001;
  const token = options.token ?? `${botId}:AAFakeTelegramToken_${randomBytes(6).toString("hex")}`;
  const botUser: BotUser = { id: botId, is_bot: true, first_name: "Hermes", username: "hermes_test_bot" };
  const chats = new FakeChats(botUser);
  const calls: FakeCall[] = [];
  const webhookDeliveries: Array<{ updateId: number; status: number }> = [];
  const queue: Array<{ update: Json; delivered: boolean }> = [];
  const faults = new Map<string, Array<FaultSpec & { left: number }>>();
  const watchers = new Set<() => void>();
  const sockets = new Set<Socket>();
  let poll: PendingPoll | undefined;
  let webhook: { url: string; secret?: string } | undefined;
  let webhookPumping = false;
  let nextUpdateId = 500_000;
  let closed = false;

  const changed = (): void => {
    for (const w of [...watchers]) w();
  };

  function enqueue(update: Json): number {
    if (typeof update.update_id !== "number") update.update_id = nextUpdateId++;
    else nextUpdateId = Math.max(nextUpdateId, update.update_id + 1);
    queue.push({ update, delivered: false });
    if (webhook) void pumpWebhook();
    else answerPoll();
    changed();
    return update.update_id as number;
  }

  /** Answers the waiting long poll, if any, with what is queued. */
  function answerPoll(): void {
    if (!poll) return;
    const ready = queue.filter((e) => !e.delivered).slice(0, poll.limit);
    if (ready.length === 0) return;
    const { res, call, timer } = poll;
    poll = undefined;
    clearTimeout(timer);
    for (const e of ready) e.delivered = true;
    reply(res, call, 200, { ok: true, result: ready.map((e) => e.update) });
  }

  async function pumpWebhook(): Promise<void> {
    if (webhookPumping) return;
    webhookPumping = true;
    let backoff = 50;
    try {
      while (webhook && !closed && queue.length > 0) {
        const entry = queue[0]!;
        let status = 0;
        try {
          const response = await fetch(webhook.url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(webhook.secret ? { "x-telegram-bot-api-secret-token": webhook.secret } : {}),
            },
            body: JSON.stringify(entry.update),
          });
          status = response.status;
          await response.arrayBuffer();
        } catch {
          status = 0;
        }
        webhookDeliveries.push({ updateId: entry.update.update_id as number, status });
        changed();
        if (status >= 200 && status < 300) {
          queue.shift();
          backoff = 50;
        } else {
          await sleep(backoff);
          backoff = Math.min(backoff * 2, 1000);
        }
      }
    } finally {
      webhookPumping = false;
    }
  }

  /** The methods about updates; the rest are the chats'. */
  const methods: Record<string, (params: Json) => unknown> = {
    setwebhook: (p) => {
      const url = typeof p.url === "string" ? p.url : "";
      if (url === "") {
        webhook = undefined;
        return true;
      }
      const parsed = URL.canParse(url) ? new URL(url) : undefined;
      const loopback = parsed?.hostname === "127.0.0.1" || parsed?.hostname === "localhost";
      if (!parsed || (parsed.protocol !== "https:" && !(loopback && parsed.protocol === "http:")))
        throw badRequest("bad webhook: An HTTPS URL must be provided for webhook");
      const secret = p.secret_token;
      if (secret !== undefined && (typeof secret !== "string" || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)))
        throw badRequest("secret token contains unallowed characters");
      if (p.drop_pending_updates === true) queue.length = 0;
      webhook = { url, ...(typeof secret === "string" ? { secret } : {}) };
      preemptPoll("Conflict: terminated by setWebhook request");
      void pumpWebhook();
      return true;
    },
    deletewebhook: (p) => {
      webhook = undefined;
      if (p.drop_pending_updates === true) queue.length = 0;
      return true;
    },
    getwebhookinfo: () => ({
      url: webhook?.url ?? "",
      has_custom_certificate: false,
      pending_update_count: queue.length,
    }),
  };

  /** Ends the waiting long poll with a 409: another poller or a webhook took over. */
  function preemptPoll(description: string): void {
    if (!poll) return;
    const old = poll;
    poll = undefined;
    clearTimeout(old.timer);
    replyError(old.res, old.call, new ApiError(409, description));
  }

  function getUpdates(res: ServerResponse, call: FakeCall, p: Json): void {
    if (webhook)
      throw new ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    preemptPoll(
      "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    );
    if (typeof p.offset === "number") {
      const offset = p.offset;
      for (let i = queue.length - 1; i >= 0; i--)
        if (queue[i]!.delivered && (queue[i]!.update.update_id as number) < offset) queue.splice(i, 1);
    }
    // As Telegram does, every getUpdates returns what is not confirmed yet, delivered before or not.
    for (const e of queue) e.delivered = false;
    const limit = typeof p.limit === "number" && p.limit >= 1 && p.limit <= 100 ? p.limit : 100;
    const timeout = typeof p.timeout === "number" ? p.timeout : 0;
    const entry: PendingPoll = {
      res,
      call,
      limit,
      timer: setTimeout(() => {
        if (poll !== entry) return;
        poll = undefined;
        reply(res, call, 200, { ok: true, result: [] });
      }, timeout * 1000),
    };
    poll = entry;
    res.on("close", () => {
      if (poll === entry) {
        poll = undefined;
        clearTimeout(entry.timer);
      }
    });
    answerPoll();
  }

  function reply(res: ServerResponse, call: FakeCall, status: number, body: Json): void {
    call.status = status;
    if (!res.writableEnded && !res.destroyed) {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    }
    changed();
  }

  function replyError(res: ServerResponse, call: FakeCall, error: ApiError): void {
    reply(res, call, error.code, {
      ok: false,
      error_code: error.code,
      description: error.description,
      ...(error.parameters ? { parameters: error.parameters } : {}),
    });
  }

  function takeFault(method: string, params: Json): FaultSpec | undefined {
    const list = faults.get(method);
    const index = list?.findIndex((f) => f.left > 0 && (!f.match || f.match(params))) ?? -1;
    if (!list || index === -1) return undefined;
    const fault = list[index]!;
    fault.left--;
    if (fault.left <= 0) list.splice(index, 1);
    return fault;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const fileRoute = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileRoute) {
      const file = chats.fileAt(decodeURIComponent(fileRoute[2]!));
      if (fileRoute[1] !== token || !file) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: false, error_code: 404, description: "Not Found" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.bytes.length });
      res.end(file.bytes);
      return;
    }
    const route = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const method = route?.[2] ?? url.pathname;
    const call: FakeCall = { method, params: {}, at: Date.now() };
    calls.push(call);
    try {
      if (!route) throw new ApiError(404, "Not Found");
      if (route[1] !== token) throw new ApiError(401, "Unauthorized");
      const { params, files: uploads } = parseBody(req.headers["content-type"] ?? "", raw, url.searchParams);
      call.params = params;
      for (const [id, part] of uploads)
        params[`<upload ${id}>`] = { fileName: part.fileName, size: part.bytes.length };
      const name = method.toLowerCase();
      const fault = takeFault(method, params);
      if (fault?.delayMs) {
        // A client that goes away while the call is held never reached the server: nothing happens.
        const gone = new Promise<true>((resolve) => res.on("close", () => resolve(true)));
        const clientGone = await Promise.race([sleep(fault.delayMs).then(() => false), gone]);
        if (clientGone || res.destroyed || closed) {
          call.dropped = true;
          changed();
          return;
        }
      }
      if (fault?.status) throw faultError(fault);
      if (name === "getupdates") return getUpdates(res, call, params);
      const handler = methods[name] ?? chats.methods[name];
      if (!handler) throw new ApiError(404, "Not Found");
      const result = handler(params, uploads);
      reply(res, call, 200, { ok: true, result });
    } catch (error) {
      if (error instanceof ApiError) replyError(res, call, error);
      else replyError(res, call, badRequest(error instanceof Error ? error.message : String(error)));
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks)).catch(() => res.destroy());
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiRoot,
    token,
    botUser,
    calls,
    webhookDeliveries,
    sendUserMessage: (spec) => {
      const { messageId, update } = chats.userMessage(spec);
      const updateId = enqueue(update);
      return { updateId, messageId, update };
    },
    pressButton: (spec) => {
      const { callbackQueryId, update } = chats.buttonPress(spec);
      return { updateId: enqueue(update), callbackQueryId };
    },
    pushUpdate: (raw) => enqueue(structuredClone(raw)),
    messagesIn: (chatId) => chats.messagesIn(chatId),
    waitFor: <T>(predicate: () => T | undefined | null | false, timeoutMs = 5000) =>
      new Promise<T>((resolve, reject) => {
        const check = (): boolean => {
          const value = predicate();
          if (!value) return false;
          cleanup();
          resolve(value);
          return true;
        };
        const interval = setInterval(check, 25);
        const timer = setTimeout(() => {
          cleanup();
          const recent = calls.slice(-8).map((c) => `${c.method}→${c.status ?? "…"}`);
          reject(
            new Error(
              `fake-telegram: waitFor timed out after ${timeoutMs} ms (recent calls: ${recent.join(", ")})`,
            ),
          );
        }, timeoutMs);
        const cleanup = (): void => {
          clearInterval(interval);
          clearTimeout(timer);
          watchers.delete(watcher);
        };
        const watcher = (): void => {
          check();
        };
        watchers.add(watcher);
        check();
      }),
    fail: (method, spec) => {
      const list = faults.get(method) ?? [];
      list.push({ ...spec, left: spec.times ?? 1 });
      faults.set(method, list);
    },
    callbackAnswer: (id) => chats.callbackAnswer(id),
    webhook: () => (webhook ? { ...webhook } : undefined),
    close: async () => {
      closed = true;
      if (poll) {
        clearTimeout(poll.timer);
        poll = undefined;
      }
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function faultError(fault: FaultSpec): ApiError {
  const status = fault.status ?? 500;
  if (status === 429) {
    const after = fault.retryAfter ?? 1;
    return new ApiError(429, fault.description ?? `Too Many Requests: retry after ${after}`, {
      retry_after: after,
    });
  }
  const defaults: Record<number, string> = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden: bot was blocked by the user",
    409: "Conflict",
    500: "Internal Server Error",
    502: "Bad Gateway",
  };
  return new ApiError(status, fault.description ?? defaults[status] ?? "Error");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
