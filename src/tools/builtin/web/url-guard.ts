/**
 * SSRF guard for every tool that fetches a URL the model chose (web_extract, the browser).
 * `checkUrl` judges one URL: scheme, `security.website_blocklist`, then every address its host
 * resolves to. `guardedFetch` re-runs that check on every redirect hop and dials only the
 * addresses the check approved, so a DNS answer that changes between check and connect
 * (rebinding) never reaches the socket.
 */
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import type { Agent, Dispatcher } from "undici";
import { type AddressVerdict, classifyAddress } from "./ip-ranges.js";
import { matchBlocklist } from "./website-policy.js";

export { type AddressVerdict, classifyAddress } from "./ip-ranges.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses. The default asks the system resolver; tests inject their own. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface UrlGuardOptions {
  /** `security.allow_private_urls`: let loopback, private and CGNAT addresses through (metadata stays refused). */
  allowPrivate?: boolean;
  /** `security.website_blocklist` rules, already normalised (`example.com`, `*.example.com`). */
  blocklist?: readonly string[];
  resolve?: Resolver;
  /** Address classification (default `classifyAddress`); an embedder with its own network map replaces it. */
  classify?: (address: string) => AddressVerdict;
}

export type UrlCheck = { ok: true; url: URL; addresses: ResolvedAddress[] } | { ok: false; reason: string };

// Metadata services reachable by name on some clouds; refused even with allowPrivate.
const ALWAYS_BLOCKED_HOSTS = new Set(["metadata.google.internal", "metadata.goog"]);

const systemResolver: Resolver = async (hostname) => {
  // node:dns/promises loads with the first lookup, not at start-up.
  const { lookup } = process.getBuiltinModule("node:dns/promises");
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Host of a URL as compared and resolved: lower case, no brackets, no trailing dot. */
export function normalizeHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** Judges one URL. Never throws: a bad URL or a failed lookup is a refusal with a reason. */
export async function checkUrl(input: string | URL, opts: UrlGuardOptions = {}): Promise<UrlCheck> {
  let url: URL;
  try {
    url = typeof input === "string" ? new URL(input.trim()) : input;
  } catch {
    return { ok: false, reason: `not a valid URL: ${String(input).slice(0, 200)}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, reason: `only http and https URLs can be fetched (got ${url.protocol})` };
  const host = normalizeHost(url.hostname);
  if (!host) return { ok: false, reason: "the URL has no host" };
  if (ALWAYS_BLOCKED_HOSTS.has(host))
    return { ok: false, reason: `${host} is a cloud metadata service and is never fetched` };
  const rule = matchBlocklist(host, opts.blocklist ?? []);
  if (rule) return { ok: false, reason: `${host} is blocked by security.website_blocklist (rule '${rule}')` };

  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { ok: false, reason: `could not resolve ${host} (${code})` };
    }
    if (addresses.length === 0) return { ok: false, reason: `could not resolve ${host} (no addresses)` };
  }
  // One bad answer refuses the whole name: a resolver mixing public and private answers is an attack shape.
  for (const { address } of addresses) {
    const verdict = (opts.classify ?? classifyAddress)(address);
    if (verdict.block === "never") continue;
    if (verdict.block === "private" && opts.allowPrivate) continue;
    const via = family === 0 ? `${host} resolves to ${address}, ` : `${address} is `;
    const hint = verdict.block === "private" ? " (set security.allow_private_urls: true to allow it)" : "";
    return { ok: false, reason: `${via}${verdict.label}; refused${hint}` };
  }
  return { ok: true, url, addresses };
}

/** A guard refusal (first URL or a redirect hop); the message is written for the model. */
export class UrlRefusedError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`refused ${url}: ${reason}`);
    this.name = "UrlRefusedError";
  }
}

export class TooManyRedirectsError extends Error {
  constructor(readonly chain: readonly string[]) {
    super(`too many redirects (${chain.length - 1}): ${chain.slice(-3).join(" -> ")}`);
    this.name = "TooManyRedirectsError";
  }
}

export interface GuardedFetchOptions extends UrlGuardOptions {
  method?: "GET" | "HEAD" | "POST";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** Milliseconds to wait for response headers and between body chunks (default 30 000). */
  timeoutMs?: number;
}

export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  /** Every URL requested, the first one included. */
  chain: string[];
  /** Drops what is left of the body and frees the connection; call once done with the response. */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not follow a redirect to another.
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * Fetches a URL with the guard applied to the first request and to every redirect hop.
 * Throws `UrlRefusedError`, `TooManyRedirectsError`, or the transport's error (timeouts, resets).
 */
export async function guardedFetch(input: string, opts: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const { Agent } = await import("undici");
  const pinned = new Map<string, ResolvedAddress[]>();
  const timeout = opts.timeoutMs ?? 30_000;
  const agent: Agent = new Agent({
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connectTimeout: Math.min(timeout, 15_000),
    connect: { lookup: pinnedLookup(pinned) },
  });
  const maxRedirects = opts.maxRedirects ?? 5;
  const chain: string[] = [];
  let method = opts.method ?? "GET";
  let body = opts.body;
  let headers = { ...opts.headers };
  let current = input;
  try {
    for (;;) {
      const check = await checkUrl(current, opts);
      if (!check.ok) throw new UrlRefusedError(current, check.reason);
      const url = check.url;
      pinned.set(normalizeHost(url.hostname), check.addresses);
      chain.push(url.href);
      const res: Dispatcher.ResponseData = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        body,
        signal: opts.signal,
      });
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode) || typeof location !== "string") {
        return {
          url: url.href,
          status: res.statusCode,
          headers: res.headers,
          body: res.body,
          chain,
          close: async () => {
            discard(res.body);
            await agent.close();
          },
        };
      }
      discard(res.body);
      if (chain.length > maxRedirects) throw new TooManyRedirectsError([...chain, location]);
      const next = new URL(location, url);
      if (res.statusCode === 303 || (method === "POST" && res.statusCode !== 307 && res.statusCode !== 308)) {
        method = "GET";
        body = undefined;
      }
      if (next.origin !== url.origin)
        headers = Object.fromEntries(
          Object.entries(headers).filter(([k]) => !ORIGIN_BOUND_HEADERS.includes(k.toLowerCase())),
        );
      current = next.href;
    }
  } catch (err) {
    await agent.destroy().catch(() => undefined);
    throw err;
  }
}

/** Stops a body without an unhandled 'error' (undici reports its own destroy as an abort). */
function discard(body: Readable): void {
  if (body.destroyed) return;
  body.on("error", () => undefined);
  body.destroy();
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `net.connect` lookup that answers only with addresses the guard approved for that host. */
function pinnedLookup(pinned: Map<string, ResolvedAddress[]>) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    cb: LookupCallback,
  ): void => {
    const approved = pinned.get(normalizeHost(hostname));
    if (!approved || approved.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no approved address for ${hostname}`);
      err.code = "ENOTFOUND";
      cb(err, "", 0);
      return;
    }
    if (options.all) {
      cb(
        null,
        approved.map((a) => ({ address: a.address, family: a.family })),
      );
      return;
    }
    const wanted = options.family === 6 || options.family === "IPv6" ? 6 : options.family ? 4 : 0;
    const pick = approved.find((a) => wanted === 0 || a.family === wanted) ?? approved[0];
    cb(null, pick?.address ?? "", pick?.family ?? 4);
  };
}
