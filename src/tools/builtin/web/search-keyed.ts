/**
 * Search backends behind an API key read from the environment (HERMES_HOME/.env):
 * BRAVE_SEARCH_API_KEY, TAVILY_API_KEY, EXA_API_KEY, FIRECRAWL_API_KEY. TAVILY_API_URL and
 * FIRECRAWL_API_URL point at a proxy or a self-hosted Firecrawl instead of the public service.
 */
import { requestJson, rowsToResults, type SearchBackend, type SearchBackendOptions } from "./search-types.js";

const trimSlash = (url: string): string => url.replace(/\/+$/, "");
const key = (opts: SearchBackendOptions, name: string): string => opts.env[name]?.trim() ?? "";
const text = (v: unknown): string => (typeof v === "string" ? v : "");

export function createBraveBackend(opts: SearchBackendOptions): SearchBackend {
  const base = trimSlash(opts.endpoints?.brave ?? "https://api.search.brave.com");
  return {
    name: "brave",
    limits: "Brave (max 20 results; free plan: about 1 query/s)",
    maxResults: 20,
    async search(query, limit, signal) {
      const url = `${base}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(limit) })}`;
      const headers = { "x-subscription-token": key(opts, "BRAVE_SEARCH_API_KEY") };
      const data = await requestJson("Brave Search", url, { headers }, signal);
      const web = data.web as { results?: unknown } | undefined;
      return rowsToResults(web?.results, (r) => r.description, limit);
    },
  };
}

export function createTavilyBackend(opts: SearchBackendOptions): SearchBackend {
  const base = trimSlash(opts.endpoints?.tavily ?? (key(opts, "TAVILY_API_URL") || "https://api.tavily.com"));
  return {
    name: "tavily",
    limits: "Tavily (max 20 results; each query costs credits)",
    maxResults: 20,
    async search(query, limit, signal) {
      const data = await requestJson(
        "Tavily",
        `${base}/search`,
        {
          headers: { authorization: `Bearer ${key(opts, "TAVILY_API_KEY")}` },
          json: { query, max_results: limit, search_depth: "basic" },
        },
        signal,
      );
      return rowsToResults(data.results, (r) => r.content, limit);
    },
  };
}

export function createExaBackend(opts: SearchBackendOptions): SearchBackend {
  const base = trimSlash(opts.endpoints?.exa ?? "https://api.exa.ai");
  return {
    name: "exa",
    limits: "Exa (max 25 results; each query costs credits)",
    maxResults: 25,
    async search(query, limit, signal) {
      const data = await requestJson(
        "Exa",
        `${base}/search`,
        {
          headers: { "x-api-key": key(opts, "EXA_API_KEY") },
          json: { query, numResults: limit, contents: { highlights: { numSentences: 2 } } },
        },
        signal,
      );
      const snippet = (r: Record<string, unknown>): string =>
        (Array.isArray(r.highlights) ? r.highlights.filter((h) => typeof h === "string").join(" … ") : "") ||
        text(r.summary) ||
        text(r.text).slice(0, 300);
      return rowsToResults(data.results, snippet, limit);
    },
  };
}

/** Firecrawl's cloud service, or a self-hosted one at FIRECRAWL_API_URL (whose key is optional). */
export function createFirecrawlBackend(opts: SearchBackendOptions): SearchBackend {
  const base = trimSlash(
    opts.endpoints?.firecrawl ?? (key(opts, "FIRECRAWL_API_URL") || "https://api.firecrawl.dev"),
  );
  const apiKey = key(opts, "FIRECRAWL_API_KEY");
  return {
    name: "firecrawl",
    limits: "Firecrawl (max 20 results; each query costs credits)",
    maxResults: 20,
    async search(query, limit, signal) {
      const data = await requestJson(
        "Firecrawl",
        `${base}/v2/search`,
        { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, json: { query, limit } },
        signal,
      );
      // v2 nests web results under data.web; v1-compatible servers answer with a flat data list.
      const rows = Array.isArray(data.data) ? data.data : (data.data as { web?: unknown } | undefined)?.web;
      return rowsToResults(rows, (r) => r.description, limit);
    },
  };
}
