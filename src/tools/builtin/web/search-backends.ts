/**
 * Which web_search backend runs: `web.search_backend` (else `web.backend`) when set, otherwise
 * the first usable one in the order keyed services, SearXNG, DuckDuckGo.
 */
import {
  createBraveBackend,
  createExaBackend,
  createFirecrawlBackend,
  createTavilyBackend,
} from "./search-keyed.js";
import { createDuckDuckGoBackend, createSearxngBackend, searxngBase } from "./search-keyless.js";
import type { SearchBackend, SearchBackendName, SearchBackendOptions } from "./search-types.js";

interface BackendSpec {
  /** What is missing before this backend can run, or undefined when it can. */
  missing(opts: SearchBackendOptions): string | undefined;
  create(opts: SearchBackendOptions): SearchBackend;
}

const needsKey =
  (...names: string[]) =>
  (opts: SearchBackendOptions): string | undefined =>
    names.some((n) => opts.env[n]?.trim()) ? undefined : `${names.join(" or ")} is not set`;

const BACKENDS: Readonly<Record<SearchBackendName, BackendSpec>> = {
  firecrawl: { missing: needsKey("FIRECRAWL_API_KEY", "FIRECRAWL_API_URL"), create: createFirecrawlBackend },
  tavily: { missing: needsKey("TAVILY_API_KEY"), create: createTavilyBackend },
  exa: { missing: needsKey("EXA_API_KEY"), create: createExaBackend },
  brave: { missing: needsKey("BRAVE_SEARCH_API_KEY"), create: createBraveBackend },
  searxng: {
    missing: (opts) => (searxngBase(opts) ? undefined : "web.searxng_url (or SEARXNG_URL) is not set"),
    create: createSearxngBackend,
  },
  duckduckgo: { missing: () => undefined, create: createDuckDuckGoBackend },
};

/** Order tried when no backend is configured: a service the user pays for beats a free one. */
const AUTO_ORDER: readonly SearchBackendName[] = [
  "firecrawl",
  "tavily",
  "exa",
  "brave",
  "searxng",
  "duckduckgo",
];

// Names used by other configurations of the same tools.
const ALIASES: Readonly<Record<string, SearchBackendName>> = {
  "brave-free": "brave",
  ddgs: "duckduckgo",
  ddg: "duckduckgo",
  "ddg-html": "duckduckgo",
};

export const SEARCH_BACKEND_NAMES = Object.keys(BACKENDS) as SearchBackendName[];

export type BackendChoice = { ok: true; backend: SearchBackend } | { ok: false; reason: string };

/** Never throws: an unknown name or a missing key is a reason. */
export function chooseSearchBackend(configured: string, opts: SearchBackendOptions): BackendChoice {
  const wanted = configured.trim().toLowerCase();
  if (wanted && wanted !== "auto") {
    const name = ALIASES[wanted] ?? wanted;
    const spec = BACKENDS[name as SearchBackendName] as BackendSpec | undefined;
    if (!spec)
      return {
        ok: false,
        reason: `unknown web.search_backend '${configured}' (one of ${SEARCH_BACKEND_NAMES.join(", ")})`,
      };
    const missing = spec.missing(opts);
    return missing ? { ok: false, reason: `${name}: ${missing}` } : { ok: true, backend: spec.create(opts) };
  }
  for (const name of AUTO_ORDER) {
    const spec = BACKENDS[name];
    if (!spec.missing(opts)) return { ok: true, backend: spec.create(opts) };
  }
  return { ok: false, reason: "no search backend is usable" };
}
