/**
 * Downloads one page for web_extract through the SSRF guard: redirects followed within a limit,
 * the body streamed and cut at a byte cap (the rest is never downloaded), one deadline for the
 * whole exchange.
 */
import { type GuardedFetchOptions, guardedFetch } from "./url-guard.js";

export interface FetchPageOptions
  extends Pick<GuardedFetchOptions, "allowPrivate" | "blocklist" | "resolve" | "classify"> {
  /** Bytes kept at most; reading stops there. */
  maxBytes: number;
  /** Milliseconds for the whole exchange, redirects and body included. */
  timeoutMs: number;
  maxRedirects: number;
  signal?: AbortSignal;
}

export interface FetchedPage {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** True when the page was longer than maxBytes and reading stopped. */
  capped: boolean;
  redirects: number;
}

// Sites answer bots with stubs or refusals; a browser-like Accept gets the real page.
const REQUEST_HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; HermesAgent/1.0; +https://github.com/NousResearch/hermes-agent)",
  accept: "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5",
  "accept-language": "en;q=0.9,*;q=0.5",
};

export class PageTimeoutError extends Error {
  constructor(readonly seconds: number) {
    super(`timed out after ${seconds} s`);
    this.name = "PageTimeoutError";
  }
}

/** Throws the guard's errors, `PageTimeoutError`, or the transport's error. */
export async function fetchPage(url: string, opts: FetchPageOptions): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const timedOut = (): boolean => deadline.aborted && !opts.signal?.aborted;
  let res: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    res = await guardedFetch(url, {
      allowPrivate: opts.allowPrivate,
      blocklist: opts.blocklist,
      resolve: opts.resolve,
      classify: opts.classify,
      maxRedirects: opts.maxRedirects,
      timeoutMs: opts.timeoutMs,
      headers: REQUEST_HEADERS,
      signal,
    });
  } catch (err) {
    if (timedOut()) throw new PageTimeoutError(opts.timeoutMs / 1000);
    throw err;
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    let capped = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      // A body filling the cap exactly is capped only if another byte follows.
      if (size >= opts.maxBytes) {
        if (chunk.length === 0) continue;
        capped = true;
        break;
      }
      const room = opts.maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = opts.maxBytes;
        capped = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    const type = res.headers["content-type"];
    return {
      url: res.url,
      status: res.status,
      contentType: (Array.isArray(type) ? type[0] : type) ?? "",
      body: Buffer.concat(chunks, size),
      capped,
      redirects: res.chain.length - 1,
    };
  } catch (err) {
    if (timedOut()) throw new PageTimeoutError(opts.timeoutMs / 1000);
    throw err;
  } finally {
    await res.close().catch(() => undefined);
  }
}
