/**
 * The HTTP client of provider calls: node:http / node:https with keep-alive agents, the proxy
 * proxy.ts picks from the environment, a connect timeout, 307/308 redirects and abort by signal.
 * Node's global fetch would load a second HTTP stack (undici: ~12 MB and tens of milliseconds
 * before the first request) that nothing else on the way to a model answer needs.
 */
import type { Agent, ClientRequest, IncomingHttpHeaders, IncomingMessage } from "node:http";
import * as http from "node:http";
import { proxyForUrl } from "./proxy.js";

export interface HttpRequestInit {
  method: "GET" | "POST";
  /** Sent as given; the caller merges names case-insensitively. */
  headers: Readonly<Record<string, string>>;
  body?: string;
  signal?: AbortSignal;
  /** Environment the proxy variables are read from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Response headers with the read side of fetch's `Headers` (what error classes and callers use). */
export class ResponseHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw)) yield [name, this.get(name) ?? ""];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) fn(value, name);
  }
}

export interface HttpResponse {
  status: number;
  statusText: string;
  ok: boolean;
  headers: ResponseHeaders;
  /** The body as UTF-8 text pieces as they arrive; leaving the loop early keeps the connection. */
  body: AsyncIterable<string>;
  /** The whole body. */
  text(): Promise<string>;
  /** Drops the rest of the body (the connection is reused when the response is complete). */
  discard(): void;
}

/** What Node's fetch waits for a TCP connection before giving up (undici's default). */
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

let https: typeof import("node:https") | undefined;
const agents = new Map<string, Agent>();

/** Keep-alive agent per scheme and proxy; https (TLS and crypto, ~7 MB) loads on first use. */
function agentFor(url: URL, proxyUrl: string | undefined): Agent {
  const key = `${url.protocol} ${proxyUrl ?? ""}`;
  let agent = agents.get(key);
  if (!agent) {
    const proxyEnv = proxyUrl ? { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl } : undefined;
    if (url.protocol === "https:") {
      https ??= process.getBuiltinModule("node:https");
      agent = new https.Agent({ keepAlive: true, ...(proxyEnv ? { proxyEnv } : {}) });
    } else agent = new http.Agent({ keepAlive: true, ...(proxyEnv ? { proxyEnv } : {}) });
    agents.set(key, agent);
  }
  return agent;
}

/** The signal's reason when it is an error (a timeout says so), else an AbortError. */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error("This operation was aborted"), { name: "AbortError", code: "ABORT_ERR" });
}

/**
 * Sends one request; resolves once the response headers are in. Rejects with the socket's error
 * (ECONNREFUSED, ETIMEDOUT for a connect timeout, ...) or an AbortError. An abort after the
 * response is complete leaves the connection to the agent for reuse.
 */
export async function send(target: string, init: HttpRequestInit): Promise<HttpResponse> {
  let url = new URL(target);
  let headers = { ...init.headers };
  for (let redirects = 0; ; redirects++) {
    const res = await sendOnce(url, { ...init, headers });
    const location = res.headers.location;
    if ((res.statusCode === 307 || res.statusCode === 308) && location && redirects < MAX_REDIRECTS) {
      res.resume();
      const next = new URL(location, url);
      // Credentials are not sent to another origin (as fetch does).
      if (next.origin !== url.origin) headers = withoutAuthorization(headers);
      url = next;
      continue;
    }
    return wrap(res, init.signal);
  }
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "authorization"));
}

async function sendOnce(url: URL, init: HttpRequestInit): Promise<IncomingMessage> {
  const { signal } = init;
  if (signal?.aborted) throw abortError(signal);
  const agent = agentFor(url, proxyForUrl(url.href, init.env ?? process.env));
  const request = url.protocol === "https:" ? https!.request : http.request;
  return new Promise<IncomingMessage>((resolve, reject) => {
    let req: ClientRequest;
    const onAbort = () => req.destroy(abortError(signal));
    try {
      req = request(url, { method: init.method, headers: init.headers, agent });
    } catch (err) {
      reject(err);
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    const release = () => signal?.removeEventListener("abort", onAbort);
    req.on("socket", (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => {
        const host = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
        req.destroy(Object.assign(new Error(`connect ETIMEDOUT ${host}`), { code: "ETIMEDOUT" }));
      }, CONNECT_TIMEOUT_MS);
      socket.once("connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    req.on("error", (err) => {
      release();
      reject(err);
    });
    req.on("response", (res) => {
      release();
      resolve(res);
    });
    req.end(init.body);
  });
}

function wrap(res: IncomingMessage, signal: AbortSignal | undefined): HttpResponse {
  res.setEncoding("utf8");
  const status = res.statusCode ?? 0;
  // A complete response is left alone: its connection goes back to the pool.
  const onAbort = () => {
    if (!res.complete) res.destroy(abortError(signal));
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  res.once("close", () => signal?.removeEventListener("abort", onAbort));
  if (signal?.aborted) onAbort();
  const body: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => res.iterator({ destroyOnReturn: false }) as AsyncIterator<string>,
  };
  return {
    status,
    statusText: res.statusMessage ?? "",
    ok: status >= 200 && status < 300,
    headers: new ResponseHeaders(res.headers),
    body,
    text: async () => {
      let text = "";
      for await (const piece of res) text += piece;
      return text;
    },
    discard: () => {
      if (res.complete) res.resume();
      else res.destroy();
    },
  };
}
