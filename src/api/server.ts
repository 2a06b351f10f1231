/**
 * The OpenAI-compatible HTTP server (node:http, no framework): bearer-key auth, CORS for the
 * configured origins only, a 10 MB body limit, the route table, and a shutdown that drains runs.
 * It serves one runtime's agents; `hermes api serve` and the gateway both start it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Runtime } from "../runtime/runtime.js";
import { StateStoreError } from "../state/store.js";
import { type ApiPrincipal, callerIdOf, namedPrincipal, ownerPrincipal } from "./caller.js";
import type { ApiLog, RouteContext } from "./context.js";
import { ConversationCache } from "./conversation-cache.js";
import { ApiError, readJsonBody, sendError, sendJson } from "./http.js";
import { IdempotencyGate } from "./idempotency.js";
import { matchRoute } from "./routes.js";
import { RunPool } from "./runs.js";
import type { ApiServerOptions } from "./settings.js";
import { TurnGate } from "./turn-gate.js";

export interface ApiServer {
  /** Listens; resolves with the address (port 0 picks one). Rejects when the address is taken. */
  start(): Promise<{ host: string; port: number; url: string }>;
  /** Stops accepting, lets runs finish for up to `drainMs`, interrupts the rest, closes. Idempotent. */
  stop(drainMs: number): Promise<void>;
  /** Address, runs in flight, runs served, last error. */
  status(): Record<string, unknown>;
}

export interface ApiServerDeps {
  runtime: Runtime;
  options: ApiServerOptions;
  log?: ApiLog;
}

const NO_BODY = Buffer.alloc(0);
/** How long requests whose runs were stopped get to send their answer before connections close. */
const ANSWER_AFTER_STOP_MS = 2_000;

const digest = (s: string): Buffer => createHash("sha256").update(s).digest();

/** A key the server accepts, as its digest (compared in constant time), and who it stands for. */
interface KnownKey {
  digest: Buffer;
  principal: ApiPrincipal;
}

/** Who `Authorization: Bearer <key>` authenticates, or undefined. Every known key is compared. */
function authenticate(req: IncomingMessage, keys: readonly KnownKey[]): ApiPrincipal | undefined {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (m === null) return undefined;
  const sent = digest(m[1]!.trim());
  let found: ApiPrincipal | undefined;
  for (const k of keys) if (timingSafeEqual(sent, k.digest)) found ??= k.principal;
  return found;
}

/** Adds CORS headers for an allowed origin; false when the request's origin is not allowed. */
function applyCors(req: IncomingMessage, res: ServerResponse, origins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  if (!origins.includes("*") && !origins.includes(origin)) return false;
  res.setHeader("access-control-allow-origin", origin);
  res.setHeader("vary", "Origin");
  res.setHeader("access-control-expose-headers", "x-hermes-session-id, retry-after");
  return true;
}

export function createApiServer(deps: ApiServerDeps): ApiServer {
  const { runtime, options } = deps;
  const log: ApiLog = deps.log ?? ((level, message, fields) => runtime.logger[level](message, fields));
  const runs = new RunPool(runtime, options);
  const gate = new TurnGate();
  const keys: KnownKey[] = [
    { digest: digest(options.key), principal: ownerPrincipal(options.key) },
    ...options.keys.map((k) => ({ digest: digest(k.key), principal: namedPrincipal(k.name) })),
  ];
  let lastError: string | undefined;
  let address: { host: string; port: number; url: string } | undefined;
  let stopping: Promise<void> | undefined;
  const ctx: RouteContext = {
    runtime,
    options,
    runs,
    idempotency: new IdempotencyGate({ runtime, log }),
    responses: undefined,
    storeProblem: undefined,
    conversations: new ConversationCache(),
    log,
    startedAt: Math.floor(Date.now() / 1000),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const corsOk = applyCors(req, res, options.corsOrigins);
    if (req.method === "OPTIONS") {
      if (!corsOk || !req.headers.origin)
        throw new ApiError(
          403,
          "This origin is not allowed (platforms.api_server.cors_origins)",
          "invalid_request_error",
        );
      res.writeHead(204, {
        "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers":
          req.headers["access-control-request-headers"] ?? "authorization, content-type",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    const found = matchRoute(url.pathname);
    const principal = authenticate(req, keys);
    if (!found?.route.open && !principal)
      throw new ApiError(
        401,
        "Missing or wrong API key: send it as 'Authorization: Bearer <API_SERVER_KEY>'",
        "authentication_error",
        "invalid_api_key",
        null,
        { "www-authenticate": "Bearer" },
      );
    if (!found) throw new ApiError(404, `No route ${url.pathname}`, "not_found_error", "unknown_route");
    const method = req.method as keyof typeof found.route.methods;
    const handler = found.route.methods[method];
    if (!handler) {
      const allow = Object.keys(found.route.methods).join(", ");
      throw new ApiError(
        405,
        `${req.method} is not allowed on ${url.pathname} (allowed: ${allow})`,
        "invalid_request_error",
        "method_not_allowed",
        null,
        { allow },
      );
    }
    const { value: body, raw } =
      method === "POST" ? await readJsonBody(req, options.maxBodyBytes) : { value: {}, raw: NO_BODY };
    // Runs start one per event-loop turn (see TurnGate).
    if (method === "POST") await gate.enter();
    const who = principal ?? ownerPrincipal(options.key);
    const caller = callerIdOf(who, body);
    await handler(ctx, { req, res, url, params: found.params, body, raw, caller, keyName: who.keyName });
  }

  /** Requests being handled: a stop lets them send what their stopped runs end in. */
  const handling = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    const work = handle(req, res).catch((err: unknown) => {
      if (err instanceof ApiError) {
        // A body refused unread (413, 408) carries `connection: close` among its headers.
        sendError(res, err);
        return;
      }
      if (err instanceof StateStoreError && err.kind === "locked" && !res.headersSent) {
        // Another process kept state.db's write lock: nothing was changed, a retry may succeed.
        const busy = new ApiError(503, err.message, "service_unavailable", "store_locked", null, {
          "retry-after": "2",
        });
        sendError(res, busy);
        return;
      }
      lastError = (err as Error)?.message ?? String(err);
      log("error", "api request failed", { path: req.url, message: lastError });
      if (res.headersSent) res.end();
      else sendJson(res, 500, new ApiError(500, `Internal error: ${lastError}`, "server_error").body());
    });
    handling.add(work);
    void work.finally(() => handling.delete(work));
  });
  // requestTimeout bounds receiving the request only: a streamed answer may run for minutes.

  return {
    start: async () => {
      ctx.responses = runtime.sessions?.responses;
      if (!ctx.responses) {
        ctx.storeProblem = runtime.storeProblem ?? "state.db could not be opened";
        log("warn", "api responses store unavailable", { message: ctx.storeProblem });
      }
      await new Promise<void>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException): void => {
          reject(
            new Error(
              err.code === "EADDRINUSE"
                ? `${options.host}:${options.port} is already in use (set platforms.api_server.port or --port)`
                : `cannot listen on ${options.host}:${options.port}: ${err.message}`,
            ),
          );
        };
        server.once("error", onError);
        server.listen(options.port, options.host, () => {
          server.off("error", onError);
          resolve();
        });
      });
      const a = server.address() as AddressInfo;
      const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
      address = { host: a.address, port: a.port, url: `http://${host}:${a.port}` };
      log("info", "api server listening", { url: address.url });
      return address;
    },
    stop: (drainMs) => {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await runs.drain(drainMs);
        // The stopped runs' requests answer (503) before their connections go.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...handling]),
          new Promise((resolve) => {
            timer = setTimeout(resolve, ANSWER_AFTER_STOP_MS);
          }),
        ]);
        clearTimeout(timer);
        server.closeAllConnections();
        await closed;
        ctx.responses = undefined;
        log("info", "api server stopped", { runs: runs.total });
      })();
      return stopping;
    },
    status: () => ({
      url: address?.url,
      runsInFlight: runs.inFlight,
      runsQueued: runs.queued,
      runsServed: runs.total,
      maxConcurrentRuns: options.maxConcurrentRuns,
      ...(lastError ? { lastError } : {}),
      ...(ctx.storeProblem ? { storeProblem: ctx.storeProblem } : {}),
    }),
  };
}
