/**
 * HTTP(S) proxy support for provider calls (seed 004 §3.4): HTTPS_PROXY / HTTP_PROXY / ALL_PROXY
 * (either case) with NO_PROXY exclusions, decided per base URL. http.ts routes OpenAI-compatible
 * calls through the proxy this picks. For the Anthropic SDK, undici is loaded only when a proxy
 * applies: Node's built-in fetch cannot drive a dispatcher from the undici package (different major
 * version), so the transport hands the SDK undici's own `fetch` together with the dispatcher.
 */
import type { Dispatcher } from "undici";

export type EnvLike = Readonly<Record<string, string | undefined>>;

/** What an SDK client needs to route through the proxy: `fetch` and `fetchOptions` client options. */
export interface ProxyTransport {
  proxyUrl: string;
  fetch: typeof globalThis.fetch;
  fetchOptions: { dispatcher: Dispatcher };
}

function firstSet(env: EnvLike, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** Lowercase first: curl and Python prefer it when both spellings are set. */
const PROXY_VARS = {
  "https:": ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"],
  "http:": ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"],
} as const;

/**
 * The proxy URL to use for `targetUrl`, or undefined when no proxy variable is set, the host is
 * excluded by NO_PROXY, or the proxy is not an http(s) proxy (SOCKS is not supported here). Pure.
 */
export function proxyForUrl(targetUrl: string, env: EnvLike): string | undefined {
  let target: URL;
  try {
    target = new URL(targetUrl);
  } catch {
    return undefined;
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") return undefined;
  const raw = firstSet(env, PROXY_VARS[target.protocol]);
  const proxy = raw ? normalizeProxyUrl(raw) : undefined;
  if (!proxy) return undefined;
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  if (isNoProxy(target.hostname, port, firstSet(env, ["no_proxy", "NO_PROXY"]) ?? "")) return undefined;
  return proxy;
}

/** Adds a missing scheme, drops trailing slashes; undefined for non-http(s) schemes. */
export function normalizeProxyUrl(raw: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return withScheme.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/**
 * NO_PROXY matching with curl's rules: `*` matches everything; `example.com`, `.example.com` and
 * `*.example.com` match the domain and its subdomains; an entry with `:port` matches only that
 * port; IPs match exactly. Pure.
 */
export function isNoProxy(hostname: string, port: string, noProxy: string): boolean {
  const host = stripBrackets(hostname.toLowerCase()).replace(/\.$/, "");
  for (const rawEntry of noProxy.split(/[\s,]+/)) {
    let entry = rawEntry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return true;
    let entryPort: string | undefined;
    const portMatch = /^(.*[^:]):(\d+)$/.exec(entry);
    if (portMatch && !isBareIpv6(entry)) {
      entry = portMatch[1]!;
      entryPort = portMatch[2];
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    entry = stripBrackets(entry).replace(/^\*?\./, "");
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function isBareIpv6(entry: string): boolean {
  return !entry.startsWith("[") && (entry.match(/:/g)?.length ?? 0) > 1;
}

const transports = new Map<string, Promise<ProxyTransport>>();

/**
 * The proxy transport for calls to `baseUrl`, or undefined when no proxy applies (the common case,
 * which costs no import). Agents are cached per proxy so connections are reused. Never throws:
 * an undici load failure means a direct connection.
 */
export async function proxyTransportFor(
  baseUrl: string,
  env: EnvLike = process.env,
): Promise<ProxyTransport | undefined> {
  const proxyUrl = proxyForUrl(baseUrl, env);
  if (!proxyUrl) return undefined;
  let transport = transports.get(proxyUrl);
  if (!transport) {
    transport = createTransport(proxyUrl, firstSet(env, ["no_proxy", "NO_PROXY"]) ?? "");
    transports.set(proxyUrl, transport);
  }
  try {
    return await transport;
  } catch {
    transports.delete(proxyUrl);
    return undefined;
  }
}

async function createTransport(proxyUrl: string, noProxy: string): Promise<ProxyTransport> {
  const undici = await import("undici");
  const dispatcher = new undici.EnvHttpProxyAgent({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy });
  return {
    proxyUrl,
    // undici's fetch is the WHATWG fetch with its own Request/Response classes; the SDKs only use
    // the standard surface, so the cast is sound in practice.
    fetch: undici.fetch as unknown as typeof globalThis.fetch,
    fetchOptions: { dispatcher },
  };
}
