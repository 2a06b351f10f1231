/**
 * The one interface every web_search backend implements, and the HTTP helper they share.
 */

export type SearchBackendName = "searxng" | "duckduckgo" | "brave" | "tavily" | "exa" | "firecrawl";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchBackend {
  name: SearchBackendName;
  /** One phrase for the tool description: the service and its limits. */
  limits: string;
  /** Most results one query can return. */
  maxResults: number;
  /** Throws `SearchError` with a message for the model. */
  search(query: string, limit: number, signal: AbortSignal): Promise<SearchResult[]>;
}

/** Where a backend reads its key and endpoint. `endpoints` replaces a service's base URL. */
export interface SearchBackendOptions {
  env: Readonly<Record<string, string | undefined>>;
  searxngUrl: string;
  endpoints?: Partial<Record<SearchBackendName, string>>;
}

export class SearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SearchError";
  }
}

const REQUEST_TIMEOUT_MS = 20_000;

/**
 * One request to a search service; the response text on 2xx, else a `SearchError` that says what
 * to do (bad key, rate limit, service down).
 */
export async function searchRequest(
  label: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  signal: AbortSignal,
  deniedHint = "check its API key",
): Promise<{ status: number; text: string }> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      redirect: "follow",
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
  } catch (err) {
    if (signal.aborted) throw new SearchError(`${label} search was interrupted`);
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === "TimeoutError" ? "no answer within 20 s" : (e.cause?.code ?? e.cause?.message ?? e.message);
    throw new SearchError(`${label} could not be reached (${why})`);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403)
    throw new SearchError(`${label} refused the request (HTTP ${res.status}): ${deniedHint}`);
  if (res.status === 429)
    throw new SearchError(`${label} is rate limiting this client (HTTP 429): wait before searching again`);
  if (res.status >= 400) throw new SearchError(`${label} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  return { status: res.status, text };
}

/** A GET (or, with `json`, a POST of that body) to a JSON API; the parsed answer. */
export async function requestJson(
  label: string,
  url: string,
  init: { headers?: Record<string, string>; json?: unknown },
  signal: AbortSignal,
  deniedHint?: string,
): Promise<Record<string, unknown>> {
  const post = init.json !== undefined;
  const { text } = await searchRequest(
    label,
    url,
    {
      method: post ? "POST" : "GET",
      headers: {
        accept: "application/json",
        ...(post ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
      ...(post ? { body: JSON.stringify(init.json) } : {}),
    },
    signal,
    deniedHint,
  );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new SearchError(`${label} answered with something other than JSON: ${text.slice(0, 120)}`);
  }
  return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
}

type Row = Record<string, unknown>;

/** An API's result rows (`url`, `title`, a snippet picked by `snippet`) as results. */
export function rowsToResults(rows: unknown, snippet: (row: Row) => unknown, limit: number): SearchResult[] {
  const list = Array.isArray(rows) ? (rows as Row[]) : [];
  return cleanResults(
    list.map((r) => ({ url: r.url, title: r.title, snippet: snippet(r) })),
    limit,
  );
}

/** Snippets from APIs carry highlight tags and entities; the model needs plain text. */
export function plainText(html: unknown): string {
  if (typeof html !== "string") return "";
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_m, e: string) => ENTITIES[e] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  "#39": "'",
  "#x27": "'",
  nbsp: " ",
};

/** Keeps well-formed results (an http(s) URL), at most `limit`. */
export function cleanResults(
  raw: readonly { url?: unknown; title?: unknown; snippet?: unknown }[],
  limit: number,
): SearchResult[] {
  const out: SearchResult[] = [];
  for (const r of raw) {
    if (typeof r.url !== "string" || !/^https?:\/\//i.test(r.url)) continue;
    out.push({ title: plainText(r.title) || r.url, url: r.url, snippet: plainText(r.snippet) });
    if (out.length >= limit) break;
  }
  return out;
}
