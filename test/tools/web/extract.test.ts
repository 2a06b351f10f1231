import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { classifyAddress } from "../../../src/tools/builtin/web/ip-ranges.js";
import type { Resolver } from "../../../src/tools/builtin/web/url-guard.js";
import { makePdf } from "./pdf-fixture.js";
import { createWebHarness, pages, startServer, type TestServer, type WebHarness } from "./support.js";

const ARTICLE = readFileSync(join(import.meta.dirname, "../../fixtures/web/article.html"));

let server: TestServer;
/** Bytes the "huge" route managed to send before the client hung up. */
let hugeSent = 0;
let hugeDone: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/article":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(ARTICLE);
        return;
      case "/report.pdf":
        res.writeHead(200, {
          "content-type": url.searchParams.has("vague") ? "application/octet-stream" : "application/pdf",
        });
        res.end(
          makePdf(
            [
              ["Tidal Cost Report 2024", "Levelised cost fell by a third since the first array."],
              ["Appendix A", "Blade composites are recycled at end of life."],
            ],
            "Tidal Cost Report",
          ),
        );
        return;
      case "/hop": {
        const n = Number(url.searchParams.get("n") ?? "0");
        res.writeHead(n % 2 === 0 ? 302 : 301, { location: n >= 2 ? "/article" : `/hop?n=${n + 1}` });
        res.end();
        return;
      }
      case "/loop":
        res.writeHead(302, { location: "/loop" });
        res.end();
        return;
      case "/huge": {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        const chunk = Buffer.alloc(64 * 1024, "lorem ipsum dolor sit amet\n");
        const total = 40 * 1024 * 1024;
        hugeSent = 0;
        hugeDone = new Promise<void>((resolve) => {
          res.on("close", resolve);
          const pump = (): void => {
            while (hugeSent < total && !res.destroyed) {
              hugeSent += chunk.length;
              if (!res.write(chunk)) return void res.once("drain", pump);
            }
            res.end();
          };
          pump();
        });
        return;
      }
      case "/silent":
        return; // never answers
      case "/stall":
        res.writeHead(200, { "content-type": "text/html" });
        res.write("<html><body><p>first words, then nothing");
        return;
      case "/latin1":
        res.writeHead(200, { "content-type": "text/plain; charset=windows-1252" });
        res.end(Buffer.from("caf\xe9 na\xefve \x80 sign", "latin1"));
        return;
      case "/sjis":
        res.writeHead(200, { "content-type": "text/html" });
        res.end(
          Buffer.concat([
            Buffer.from('<html><head><meta charset="shift_jis"><title>t</title></head><body><p>'),
            Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]),
            Buffer.from("</p></body></html>"),
          ]),
        );
        return;
      case "/utf16":
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(Buffer.from("\ufeffhello w\u00f6rld from UTF-16", "utf16le"));
        return;
      case "/undeclared":
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(Buffer.from("r\xe9sum\xe9 without a charset", "latin1"));
        return;
      case "/long": {
        res.writeHead(200, { "content-type": "text/plain" });
        const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: ${"x".repeat(40)}`);
        res.end(lines.join("\n"));
        return;
      }
      case "/data.json":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"answer": 42}');
        return;
      case "/image.png":
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("no such page");
    }
  });
});

afterAll(async () => {
  await server.close();
});

let harness: WebHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

/** A harness whose guard lets loopback through, as `security.allow_private_urls: true` does. */
async function privateAllowed(edit?: (c: WebHarness["config"]) => void): Promise<WebHarness> {
  harness = await createWebHarness({
    config: (c) => {
      c.security.allow_private_urls = true;
      edit?.(c);
    },
  });
  return harness;
}

async function extractOne(h: WebHarness, url: string, extra: Record<string, unknown> = {}) {
  const [page] = pages(await h.call("web_extract", { urls: [url], ...extra }));
  return page as Record<string, unknown>;
}

describe("web_extract content", () => {
  it("returns only the article of a page with navigation, ads and a sidebar", async () => {
    const h = await privateAllowed();
    const page = await extractOne(h, `${server.origin}/article`);
    const content = String(page.content);
    expect(page).toMatchObject({
      type: "html",
      title: expect.stringContaining("Tidal Energy Finds Its Feet"),
      byline: "By Morwenna Tregear, Energy Correspondent",
    });
    expect(content).toContain("The turbines off Ramsey Sound have now run for eighteen months");
    expect(content).toContain("## The cost question");
    expect(content).toContain("learned to rest in the slack water");
    expect(content).toContain(`[full cost report](${server.origin}/reports/tidal-costs-2024.pdf)`);
    for (const chrome of [
      "MEGA SALE",
      "Miracle gutter",
      "Most read",
      "Subscribe today",
      "Copyright",
      "dataLayer",
    ]) {
      expect(content).not.toContain(chrome);
    }
    expect(page.truncated).toBeUndefined();
  });

  it("reads a PDF as text, page by page", async () => {
    const h = await privateAllowed();
    for (const path of ["/report.pdf", "/report.pdf?vague=1"]) {
      const page = await extractOne(h, `${server.origin}${path}`);
      expect(page).toMatchObject({ type: "pdf", pages: 2, title: "Tidal Cost Report" });
      expect(page.content).toContain("Levelised cost fell by a third");
      expect(page.content).toContain("Blade composites are recycled");
      expect(String(page.content).indexOf("Appendix A")).toBeGreaterThan(
        String(page.content).indexOf("Levelised"),
      );
    }
  });

  it("returns JSON and other text as it is", async () => {
    const h = await privateAllowed();
    expect(await extractOne(h, `${server.origin}/data.json`)).toMatchObject({
      type: "text",
      content: '{"answer": 42}',
    });
  });

  it.each([
    ["/latin1", "café naïve € sign"],
    ["/sjis", "日本語"],
    ["/utf16", "hello wörld from UTF-16"],
    ["/undeclared", "résumé without a charset"],
  ])("decodes %s by its declared or sniffed charset", async (path, text) => {
    const h = await privateAllowed();
    const page = await extractOne(h, `${server.origin}${path}`);
    expect(page.content).toBe(text);
  });

  it("refuses content that is not text", async () => {
    const h = await privateAllowed();
    const page = await extractOne(h, `${server.origin}/image.png`);
    expect(page.error).toContain("image/png");
    expect(page.content).toBeUndefined();
  });

  it("reports an HTTP error per URL and still returns the other pages", async () => {
    const h = await privateAllowed();
    const res = pages(
      await h.call("web_extract", { urls: [`${server.origin}/missing`, `${server.origin}/data.json`] }),
    );
    expect(res[0]).toMatchObject({ url: `${server.origin}/missing`, error: "the server answered HTTP 404" });
    expect(res[1]).toMatchObject({ content: '{"answer": 42}' });
  });

  it("rejects calls without URLs or with too many", async () => {
    const h = await privateAllowed();
    expect((await h.call("web_extract", { urls: [] })).error).toContain("at least one");
    const many = Array.from({ length: 6 }, (_, i) => `${server.origin}/p${i}`);
    expect((await h.call("web_extract", { urls: many })).error).toContain("at most 5");
  });
});

describe("web_extract transport", () => {
  it("follows a redirect chain and names the final URL", async () => {
    const h = await privateAllowed();
    const page = await extractOne(h, `${server.origin}/hop?n=0`);
    expect(page.final_url).toBe(`${server.origin}/article`);
    expect(page.content).toContain("Ramsey Sound");
  });

  it("stops after web.max_redirects", async () => {
    const h = await privateAllowed((c) => {
      c.web.max_redirects = 2;
    });
    expect((await extractOne(h, `${server.origin}/loop`)).error).toContain("too many redirects (3)");
  });

  it("caps a 40 MB page at web.extract_max_bytes and stops downloading", async () => {
    const h = await privateAllowed();
    const page = await extractOne(h, `${server.origin}/huge`);
    await hugeDone;
    expect(page.note).toContain("Only the first 10 MB of the page were read");
    expect(page.total_chars).toBe(10_000_000);
    expect(page.truncated).toBe(true);
    expect(hugeSent).toBeLessThan(30 * 1024 * 1024);
  });

  it("times out a server that never answers, and one that stalls mid-body", async () => {
    const h = await privateAllowed((c) => {
      c.web.extract_timeout = 0.5;
    });
    expect((await extractOne(h, `${server.origin}/silent`)).error).toBe("timed out after 0.5 s");
    expect((await extractOne(h, `${server.origin}/stall`)).error).toBe("timed out after 0.5 s");
  });

  it("cuts a long page to head and tail and saves the full text for read_file", async () => {
    const h = await privateAllowed();
    const page = await extractOne(h, `${server.origin}/long`, { char_limit: 4000 });
    const content = String(page.content);
    expect(page.truncated).toBe(true);
    expect(content.startsWith("line 1: ")).toBe(true);
    expect(content.endsWith(`line 3000: ${"x".repeat(40)}`)).toBe(true);
    expect(content).toMatch(/\[\.\.\. \d+ characters omitted; full text in .+ \.\.\.\]/);
    expect(content.length).toBeLessThan(4000 + 300);
    const path = String(page.full_text_path);
    expect(readFileSync(path, "utf8").split("\n")).toHaveLength(3000);
    const read = await h.call("read_file", { path, offset: 1500, limit: 2 });
    expect(String(read.content)).toContain(`1500|line 1500: ${"x".repeat(40)}`);
  });
});

describe("web_extract SSRF guard", () => {
  it("refuses the loopback test server under the default config and never contacts it", async () => {
    harness = await createWebHarness();
    const before = server.requests.length;
    const page = await extractOne(harness, `${server.origin}/article`);
    expect(page.error).toContain("127.0.0.1 is a loopback address; refused");
    expect(page.content).toBeUndefined();
    expect(server.requests.length).toBe(before);
  });

  it.each([
    ["http://10.20.30.40/", "private address"],
    ["http://169.254.169.254/latest/meta-data/iam/", "cloud metadata"],
    ["http://[::1]/", "loopback"],
  ])("refuses %s", async (url, words) => {
    harness = await createWebHarness();
    expect((await extractOne(harness, url)).error).toContain(words);
  });

  it("refuses a name whose DNS answer is loopback", async () => {
    const resolve: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    harness = await createWebHarness({ tools: { resolve } });
    const before = server.requests.length;
    const page = await extractOne(harness, `http://innocent.example:${server.port}/article`);
    expect(page.error).toContain("innocent.example resolves to 127.0.0.1");
    expect(server.requests.length).toBe(before);
  });

  it("refuses a redirect from an allowed host to a private one", async () => {
    const outside = await startServer((_req, res) => {
      res.writeHead(302, { location: `${server.origin}/article` });
      res.end();
    }, "127.0.0.2");
    try {
      const resolve: Resolver = async () => [{ address: "127.0.0.2", family: 4 }];
      const classify = (a: string) =>
        a === "127.0.0.2" ? ({ block: "never" } as const) : classifyAddress(a);
      harness = await createWebHarness({ tools: { resolve, classify } });
      const before = server.requests.length;
      const page = await extractOne(harness, `http://news.example:${outside.port}/story`);
      expect(outside.requests).toHaveLength(1);
      expect(page.error).toContain("127.0.0.1 is a loopback address");
      expect(server.requests.length).toBe(before);
    } finally {
      await outside.close();
    }
  });

  it("honours security.website_blocklist", async () => {
    const resolve: Resolver = async () => [{ address: "93.184.216.34", family: 4 }];
    harness = await createWebHarness({
      tools: { resolve },
      config: (c) => {
        c.security.website_blocklist.domains = ["https://www.tracker.example/path"];
      },
    });
    const page = await extractOne(harness, "https://cdn.tracker.example/x.js");
    expect(page.error).toContain("blocked by security.website_blocklist (rule 'tracker.example')");
  });
});
