import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { WebToolOptions } from "../../../src/tools/builtin/web/index.js";
import {
  createWebHarness,
  type SeenRequest,
  startServer,
  type TestServer,
  type WebHarness,
} from "./support.js";

const DDG_PAGE = readFileSync(join(import.meta.dirname, "../../fixtures/web/duckduckgo.html"));

/** What the stand-in answers next, per route; tests set a status to exercise failures. */
let status: Record<string, number> = {};
let server: TestServer;

const row = (n: number) => ({ url: `https://site${n}.example/page`, title: `Result <b>${n}</b>`, n });

beforeAll(async () => {
  server = await startServer((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    const forced = status[url.pathname];
    if (forced) {
      res.writeHead(forced, { "content-type": "text/plain" });
      res.end(forced === 202 ? "<html><body>Please complete the following challenge</body></html>" : "nope");
      return;
    }
    const json = (value: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    const many = (count: number) => Array.from({ length: count }, (_, i) => row(i + 1));
    switch (`${req.method} ${url.pathname}`) {
      case "GET /searx/search":
        return json({
          query: url.searchParams.get("q"),
          results: many(30).map((r) => ({
            url: r.url,
            title: r.title,
            content: `snippet ${r.n} &amp; more`,
            engine: "x",
          })),
        });
      case "POST /html/":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(DDG_PAGE);
        return;
      case "GET /res/v1/web/search":
        return json({
          type: "search",
          web: {
            results: many(Number(url.searchParams.get("count"))).map((r) => ({
              ...r,
              description: `brave ${r.n}`,
            })),
          },
        });
      case "POST /tavily/search": {
        const n = (JSON.parse(body) as { max_results: number }).max_results;
        return json({
          query: "q",
          results: many(n).map((r) => ({ ...r, content: `tavily ${r.n}`, score: 0.9 })),
        });
      }
      case "POST /exa/search": {
        const n = (JSON.parse(body) as { numResults: number }).numResults;
        return json({ results: many(n).map((r) => ({ ...r, highlights: [`exa ${r.n}a`, `exa ${r.n}b`] })) });
      }
      case "POST /firecrawl/v2/search": {
        const n = (JSON.parse(body) as { limit: number }).limit;
        return json({
          success: true,
          data: { web: many(n).map((r) => ({ ...r, description: `fc ${r.n}` })) },
        });
      }
      default:
        res.writeHead(404);
        res.end();
    }
  });
});

afterAll(async () => {
  await server.close();
});

let harness: WebHarness | undefined;
afterEach(async () => {
  status = {};
  await harness?.dispose();
  harness = undefined;
});

function endpoints(): WebToolOptions["endpoints"] {
  return {
    duckduckgo: `${server.origin}/html/`,
    brave: server.origin,
    tavily: `${server.origin}/tavily`,
    exa: `${server.origin}/exa`,
    firecrawl: `${server.origin}/firecrawl`,
  };
}

async function withBackend(
  backend: string,
  env: Record<string, string> = {},
  searxng = "",
): Promise<WebHarness> {
  harness = await createWebHarness({
    tools: { env, endpoints: endpoints() },
    config: (c) => {
      c.web.search_backend = backend;
      c.web.searxng_url = searxng;
    },
  });
  return harness;
}

const last = (path: string): SeenRequest => {
  const seen = server.requests.filter((r) => r.url.startsWith(path));
  return seen[seen.length - 1] as SeenRequest;
};

async function description(h: WebHarness): Promise<string | undefined> {
  const defs = await h.registry.getDefinitions(["web_search", "web_extract"]);
  return defs.find((d) => d.function.name === "web_search")?.function.description;
}

describe("web_search backends", () => {
  it("SearXNG: queries the JSON API and keeps title, URL and snippet", async () => {
    const h = await withBackend("searxng", {}, `${server.origin}/searx/`);
    const res = await h.call("web_search", { query: "tidal power", limit: 3 });
    expect(res).toEqual({
      backend: "searxng",
      query: "tidal power",
      results: [1, 2, 3].map((n) => ({
        title: `Result ${n}`,
        url: `https://site${n}.example/page`,
        snippet: `snippet ${n} & more`,
      })),
    });
    expect(last("/searx/").url).toBe("/searx/search?q=tidal+power&format=json");
  });

  it("SearXNG: SEARXNG_URL from the environment is enough", async () => {
    const h = await withBackend("", { SEARXNG_URL: `${server.origin}/searx` });
    expect((await h.call("web_search", { query: "x" })).backend).toBe("searxng");
  });

  it("DuckDuckGo: posts the HTML form and unwraps result links, ads left out", async () => {
    const h = await withBackend("duckduckgo");
    const res = await h.call("web_search", { query: "tidal power" });
    expect(res.results).toEqual([
      {
        title: "Tidal power - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Tidal_power",
        snippet:
          "Tidal power or tidal energy is harnessed by converting energy from tides into useful forms of power.",
      },
      {
        title: "How tidal energy works & what it costs",
        url: "https://www.energy.example/tidal?section=costs&lang=en",
        snippet: "Turbines placed in tidal streams turn as the tide floods and ebbs.",
      },
      {
        title: "A result linked directly",
        url: "https://plain.example/direct",
        snippet: "No redirect wrapper on this one.",
      },
    ]);
    const req = last("/html/");
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(req.body).get("q")).toBe("tidal power");
  });

  it("Brave: sends the subscription token and caps the count at 20", async () => {
    const h = await withBackend("brave", { BRAVE_SEARCH_API_KEY: "brave-key-1" });
    const res = await h.call("web_search", { query: "tidal", limit: 50 });
    expect(res.results).toHaveLength(20);
    expect((res.results as Array<{ snippet: string }>)[0]).toEqual({
      title: "Result 1",
      url: "https://site1.example/page",
      snippet: "brave 1",
    });
    const req = last("/res/v1/web/search");
    expect(req.headers["x-subscription-token"]).toBe("brave-key-1");
    expect(new URL(req.url, "http://x").searchParams.get("count")).toBe("20");
  });

  it("Tavily: bearer key and max_results in the JSON body", async () => {
    const h = await withBackend("tavily", { TAVILY_API_KEY: "tvly-test" });
    const res = await h.call("web_search", { query: "tidal" });
    expect(res.results).toHaveLength(5);
    const req = last("/tavily/search");
    expect(req.headers.authorization).toBe("Bearer tvly-test");
    expect(JSON.parse(req.body)).toMatchObject({ query: "tidal", max_results: 5 });
  });

  it("Exa: x-api-key and highlights as the snippet", async () => {
    const h = await withBackend("exa", { EXA_API_KEY: "exa-test" });
    const res = await h.call("web_search", { query: "tidal", limit: 2 });
    expect((res.results as Array<{ snippet: string }>).map((r) => r.snippet)).toEqual([
      "exa 1a … exa 1b",
      "exa 2a … exa 2b",
    ]);
    expect(last("/exa/search").headers["x-api-key"]).toBe("exa-test");
  });

  it("Firecrawl: v2 search with a bearer key", async () => {
    const h = await withBackend("firecrawl", { FIRECRAWL_API_KEY: "fc-test" });
    const res = await h.call("web_search", { query: "tidal", limit: 4 });
    expect((res.results as Array<{ snippet: string }>).map((r) => r.snippet)).toEqual([
      "fc 1",
      "fc 2",
      "fc 3",
      "fc 4",
    ]);
    expect(last("/firecrawl/v2/search").headers.authorization).toBe("Bearer fc-test");
  });

  it("accepts other configurations' backend names (brave-free, ddgs)", async () => {
    expect(
      (
        await (
          await withBackend("brave-free", { BRAVE_SEARCH_API_KEY: "k" })
        ).call("web_search", { query: "a" })
      ).backend,
    ).toBe("brave");
    await harness?.dispose();
    expect((await (await withBackend("ddgs")).call("web_search", { query: "a" })).backend).toBe("duckduckgo");
  });
});

describe("web_search failures", () => {
  it.each([
    [
      "brave",
      { BRAVE_SEARCH_API_KEY: "bad" },
      "/res/v1/web/search",
      401,
      "Brave Search refused the request (HTTP 401): check its API key",
    ],
    [
      "tavily",
      { TAVILY_API_KEY: "k" },
      "/tavily/search",
      429,
      "Tavily is rate limiting this client (HTTP 429)",
    ],
    ["duckduckgo", {}, "/html/", 202, "DuckDuckGo is throttling this client"],
    ["exa", { EXA_API_KEY: "k" }, "/exa/search", 500, "Exa answered HTTP 500"],
  ])("%s: HTTP %s becomes an error the model can act on", async (backend, env, path, code, message) => {
    status = { [path]: code as number };
    const h = await withBackend(backend as string, env as Record<string, string>);
    const res = await h.call("web_search", { query: "tidal" });
    expect(res.error).toContain(message);
    expect(res.backend).toBe(backend === "duckduckgo" ? "duckduckgo" : backend);
  });

  it("SearXNG without the JSON format enabled says how to enable it", async () => {
    status = { "/searx/search": 403 };
    const h = await withBackend("searxng", {}, `${server.origin}/searx`);
    expect((await h.call("web_search", { query: "x" })).error).toContain("add `json` to search.formats");
  });

  it("a service that cannot be reached is reported, not thrown", async () => {
    const closed = await startServer((_req, res) => res.end());
    await closed.close();
    const h = await withBackend("searxng", {}, closed.origin);
    expect((await h.call("web_search", { query: "x" })).error).toMatch(
      /SearXNG could not be reached \(ECONNREFUSED/,
    );
  });

  it("rejects an empty query", async () => {
    const h = await withBackend("duckduckgo");
    expect((await h.call("web_search", { query: "  " })).error).toContain("query");
  });
});

describe("web_search availability and description", () => {
  it("is offered without keys: DuckDuckGo is the keyless fallback", async () => {
    const h = await withBackend("");
    expect(await h.registry.isAvailable("web_search")).toBe(true);
    expect(await description(h)).toContain("Backend: DuckDuckGo (max 10 results");
  });

  it("prefers a keyed service when its key is set", async () => {
    const h = await withBackend("", { TAVILY_API_KEY: "k", BRAVE_SEARCH_API_KEY: "k" });
    expect(await description(h)).toContain("Backend: Tavily (max 20 results; each query costs credits)");
  });

  it.each([
    ["brave", {}],
    ["tavily", { BRAVE_SEARCH_API_KEY: "k" }],
    ["searxng", {}],
    ["bing", {}],
  ])("is hidden when %s is configured but unusable", async (backend, env) => {
    const h = await withBackend(backend, env as Record<string, string>);
    expect(await h.registry.isAvailable("web_search")).toBe(false);
    expect(await description(h)).toBeUndefined();
    expect(await h.registry.isAvailable("web_extract")).toBe(true);
  });

  it("names the backend's limits and points at web_extract", async () => {
    const h = await withBackend("brave", { BRAVE_SEARCH_API_KEY: "k" });
    const text = await description(h);
    expect(text).toContain("Brave (max 20 results; free plan: about 1 query/s)");
    expect(text).toContain("web_extract");
  });
});
