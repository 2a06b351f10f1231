/**
 * Search backends that need no key: a SearXNG instance's JSON API, and DuckDuckGo's HTML form
 * (the page its no-JavaScript site serves, parsed with linkedom).
 */
import { parseDocument } from "./dom.js";
import {
  cleanResults,
  requestJson,
  rowsToResults,
  type SearchBackend,
  type SearchBackendOptions,
  SearchError,
  type SearchResult,
  searchRequest,
} from "./search-types.js";

const DUCKDUCKGO_HTML = "https://html.duckduckgo.com/html/";

/** The SearXNG base URL from config or SEARXNG_URL, or undefined when neither is set. */
export function searxngBase(opts: SearchBackendOptions): string | undefined {
  const url = opts.endpoints?.searxng ?? (opts.searxngUrl.trim() || opts.env.SEARXNG_URL?.trim());
  return url ? url.replace(/\/+$/, "") : undefined;
}

export function createSearxngBackend(opts: SearchBackendOptions): SearchBackend {
  const base = searxngBase(opts) ?? "";
  return {
    name: "searxng",
    limits: `SearXNG at ${base} (max 20 results)`,
    maxResults: 20,
    async search(query, limit, signal) {
      const url = `${base}/search?${new URLSearchParams({ q: query, format: "json" })}`;
      const data = await requestJson(
        "SearXNG",
        url,
        {},
        signal,
        "add `json` to search.formats in its settings.yml",
      );
      return rowsToResults(data.results, (r) => r.content, limit);
    },
  };
}

export function createDuckDuckGoBackend(opts: SearchBackendOptions): SearchBackend {
  const endpoint = opts.endpoints?.duckduckgo ?? DUCKDUCKGO_HTML;
  return {
    name: "duckduckgo",
    limits: "DuckDuckGo (max 10 results; throttles frequent searches)",
    maxResults: 10,
    async search(query, limit, signal) {
      const { status, text } = await searchRequest(
        "DuckDuckGo",
        endpoint,
        {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)",
            accept: "text/html",
          },
          body: new URLSearchParams({ q: query, b: "", kl: "" }).toString(),
        },
        signal,
      );
      const results = await parseDuckDuckGoHtml(text);
      // DuckDuckGo answers a throttled client with 202 and a challenge page instead of results.
      if (results.length === 0 && (status === 202 || /anomaly|captcha|challenge/i.test(text)))
        throw new SearchError(
          "DuckDuckGo is throttling this client (challenge page); wait before searching again",
        );
      return cleanResults(results, limit);
    },
  };
}

/** Result rows of DuckDuckGo's HTML page, ads left out. */
export async function parseDuckDuckGoHtml(html: string): Promise<Partial<SearchResult>[]> {
  const document = await parseDocument(html);
  const out: Partial<SearchResult>[] = [];
  for (const row of document.querySelectorAll(".result")) {
    if (row.classList.contains("result--ad")) continue;
    const link = row.querySelector("a.result__a");
    if (!link) continue;
    out.push({
      title: link.textContent ?? "",
      url: resultUrl(link.getAttribute("href") ?? ""),
      snippet: row.querySelector(".result__snippet")?.textContent ?? "",
    });
  }
  return out;
}

/** DuckDuckGo wraps result links in its own redirect (`/l/?uddg=<target>`); the target is what counts. */
function resultUrl(href: string): string {
  try {
    const url = new URL(href, "https://duckduckgo.com/");
    const target = url.searchParams.get("uddg");
    if (url.pathname.startsWith("/l/") && target) return target;
    return url.href;
  } catch {
    return "";
  }
}
