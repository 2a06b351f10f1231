import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusalLog, type UrlVerdict } from "../../../src/tools/builtin/browser/guard.js";
import { cachedChecker } from "../../../src/tools/builtin/browser/verdict-cache.js";
import { type BrowserHarness, createBrowserHarness, eventually, noChromium } from "./setup.js";

// public.test and other.test are public hosts to the guard (the resolver says so) and loopback to
// Chromium (--host-resolver-rules), where the site below runs. The "internal" server is a separate
// loopback server that must never be reached unless security.allow_private_urls is on.
const PUBLIC_IP = "93.184.216.34";
const METADATA = "http://169.254.169.254/latest/meta-data/";

interface Served {
  port: number;
  hits: string[];
  server: Server;
}

async function serve(
  route: (path: string, port: number) => { status?: number; headers?: Record<string, string>; body?: string },
): Promise<Served> {
  const hits: string[] = [];
  let port = 0;
  const server = createServer((req, res) => {
    hits.push(`${req.headers.host?.split(":")[0]}${req.url}`);
    const r = route((req.url ?? "/").split("?")[0] ?? "/", port);
    res.writeHead(r.status ?? 200, { "content-type": "text/html; charset=utf-8", ...r.headers });
    res.end(r.body ?? "");
  });
  server.on("upgrade", (req, socket) => {
    hits.push(`upgrade ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return { port, hits, server };
}

const close = (s: Served | undefined) =>
  new Promise<void>((resolve) => {
    if (!s) return resolve();
    s.server.closeAllConnections();
    s.server.close(() => resolve());
  });

let internal: Served;
let site: Served;
let lookups: string[];

/** Pages of the public site; `inner` is the internal server's origin. */
function sitePages(
  path: string,
  port: number,
): { status?: number; headers?: Record<string, string>; body?: string } {
  const inner = `http://127.0.0.1:${internal.port}`;
  const result = (id: string, p: string) =>
    `fetch(${JSON.stringify(p)}).then(() => "loaded", () => "failed").then((r) => { document.getElementById(${JSON.stringify(id)}).textContent = "${id} " + r; })`;
  switch (path) {
    case "/embeds":
      return {
        body: `<h1>Embeds</h1><p id="fetch">fetch pending</p><p id="meta">meta pending</p>
          <img src="${inner}/pixel.png" alt="internal"><img src="${inner}/pixel.png" alt="again">
          <img src="${METADATA}" alt="metadata">
          <script>${result("fetch", `${inner}/api`)}; ${result("meta", METADATA)};</script>`,
      };
    case "/hop":
      return { status: 302, headers: { location: `${inner}/hopped` } };
    case "/hop-late":
      return { status: 302, headers: { location: `${inner}/late` } };
    case "/redirecting":
      return {
        body: `<h1>Redirecting</h1><p id="hop">hop pending</p><img src="/hop" alt="hop">
          <script>${result("hop", "/hop?f")}; setTimeout(() => fetch("/hop-late"), 300);</script>`,
      };
    case "/framed":
      return {
        body: `<h1>Outer</h1><iframe src="http://other.test:${port}/redirecting" title="cross-site"></iframe>`,
      };
    case "/socket":
      return {
        body: `<h1>Socket</h1><p id="ws">ws pending</p><script>
          const ws = new WebSocket("ws://127.0.0.1:${internal.port}/ws");
          ws.onclose = () => { document.getElementById("ws").textContent = "ws closed"; };</script>`,
      };
    case "/many":
      return {
        body: `<h1>Many</h1>${Array.from({ length: 12 }, (_, i) => `<img src="/pic${i}.png">`).join("")}`,
      };
    default:
      return { body: "<h1>ok</h1>" };
  }
}

async function harness(allowPrivate: boolean): Promise<BrowserHarness> {
  return createBrowserHarness({
    allowPrivate,
    extraArgs: ["--host-resolver-rules=MAP public.test 127.0.0.1, MAP other.test 127.0.0.1"],
    resolve: async (host) => {
      lookups.push(host);
      if (host === "public.test" || host === "other.test") return [{ address: PUBLIC_IP, family: 4 }];
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    },
  });
}

const text = async (h: BrowserHarness, selector: string) =>
  String(
    (
      await h.call("browser_console", {
        expression: `document.querySelector(${JSON.stringify(selector)}).textContent`,
      })
    ).result,
  );

describe.skipIf(noChromium())("the browser's SSRF guard on sub-resources", () => {
  let h: BrowserHarness;
  let open: BrowserHarness;
  let pub: string;

  beforeAll(async () => {
    lookups = [];
    internal = await serve(() => ({ body: "internal" }));
    site = await serve(sitePages);
    pub = `http://public.test:${site.port}`;
    h = await harness(false);
    open = await harness(true);
  });
  afterAll(async () => {
    await h?.dispose();
    await open?.dispose();
    await close(site);
    await close(internal);
  });

  it("fails images and fetches aimed at private and metadata addresses, once per URL in blocked", async () => {
    const r = await h.call("browser_navigate", { url: `${pub}/embeds` });
    expect(r.success).toBe(true);
    expect(await text(h, "#fetch")).toBe("fetch failed");
    expect(await text(h, "#meta")).toBe("meta failed");
    expect(internal.hits).toEqual([]);
    const blocked = r.blocked as Array<{ url: string; reason: string }>;
    const urls = blocked.map((b) => b.url);
    expect(urls).toContain(`http://127.0.0.1:${internal.port}/pixel.png`);
    expect(urls).toContain(METADATA);
    // Two <img> of the same URL are one line.
    expect(urls.filter((u) => u.endsWith("/pixel.png"))).toHaveLength(1);
    expect(blocked.find((b) => b.url === METADATA)?.reason).toMatch(/169\.254\.169\.254 is /);
    // The fetch() may settle after the navigation's result; it is reported by the next call.
    const later = await h.call("browser_snapshot", {});
    const all = [...urls, ...((later.blocked as Array<{ url: string }> | undefined) ?? []).map((b) => b.url)];
    expect(all).toContain(`http://127.0.0.1:${internal.port}/api`);
    expect(internal.hits).toEqual([]);
  });

  it("refuses a sub-resource redirect from a public host to a private one", async () => {
    const r = await h.call("browser_navigate", { url: `${pub}/redirecting` });
    expect(r.success).toBe(true);
    expect(await eventually(() => site.hits.includes("public.test/hop?f"))).toBe(true);
    expect(await text(h, "#hop")).toBe("hop failed");
    expect(site.hits).toContain("public.test/hop");
    expect(internal.hits).toEqual([]);
  });

  it("refuses the same redirect from a cross-site iframe (its own process) once its page runs", async () => {
    // The iframe's first requests start before its interceptor is on (see guard.ts); later ones are judged.
    const r = await h.call("browser_navigate", { url: `${pub}/framed` });
    expect(r.success).toBe(true);
    expect(await eventually(() => site.hits.includes("other.test/hop-late"))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(internal.hits).not.toContain("127.0.0.1/late");
  });

  it("refuses a page's WebSocket to a private address", async () => {
    const nav = await h.call("browser_navigate", { url: `${pub}/socket` });
    const closed = await h.call("browser_console", {
      expression: `new Promise((r) => { const t = () => document.getElementById("ws").textContent === "ws closed" ? r(true) : setTimeout(t, 50); t(); })`,
    });
    expect(closed.result).toBe(true);
    const next = await h.call("browser_snapshot", {});
    expect([...((nav.blocked as unknown[]) ?? []), ...((next.blocked as unknown[]) ?? [])]).toEqual([
      { url: `ws://127.0.0.1:${internal.port}/ws`, reason: expect.stringMatching(/loopback/) },
    ]);
    expect(internal.hits).not.toContain("upgrade /ws");
  });

  it("looks a host up once for all the requests its page makes", async () => {
    await h.call("browser_navigate", { url: `${pub}/ok-first` });
    const before = lookups.length;
    const r = await h.call("browser_navigate", { url: `${pub}/many` });
    expect(r.success).toBe(true);
    expect(
      await eventually(() => site.hits.filter((p) => p.startsWith("public.test/pic")).length >= 12),
    ).toBe(true);
    expect(lookups.slice(before)).toEqual([]);
  });

  it("loads all of it with security.allow_private_urls on (metadata stays refused)", async () => {
    const r = await open.call("browser_navigate", { url: `${pub}/embeds` });
    expect(r.success).toBe(true);
    expect(await eventually(() => internal.hits.includes("127.0.0.1/api"))).toBe(true);
    expect(internal.hits).toContain("127.0.0.1/pixel.png");
    expect(await text(open, "#meta")).toBe("meta failed");
    await open.call("browser_navigate", { url: `${pub}/framed` });
    expect(await eventually(() => internal.hits.includes("127.0.0.1/late"))).toBe(true);
    await open.call("browser_navigate", { url: `${pub}/redirecting` });
    expect(await eventually(() => internal.hits.includes("127.0.0.1/hopped"))).toBe(true);
    await open.call("browser_navigate", { url: `${pub}/socket` });
    expect(await eventually(() => internal.hits.includes("upgrade /ws"))).toBe(true);
  });
});

describe("the guard's verdict cache and refusal log", () => {
  it("asks once per scheme and host while a verdict stands, then again", async () => {
    const asked: string[] = [];
    let t = 0;
    const check = cachedChecker(
      async (url): Promise<UrlVerdict> => {
        asked.push(url);
        return { ok: true };
      },
      1000,
      () => t,
    );
    await Promise.all([
      check("https://a.example/1"),
      check("https://a.example/2"),
      check("https://a.example:8443/3"),
    ]);
    await check("http://a.example/4");
    await check("https://b.example/");
    expect(asked).toEqual(["https://a.example/1", "http://a.example/4", "https://b.example/"]);
    t = 1000;
    await check("https://a.example/5");
    expect(asked.at(-1)).toBe("https://a.example/5");
  });

  it("reports each refused URL once until taken, and at most its limit", () => {
    const log = new RefusalLog(3);
    for (const u of ["a", "a", "b", "c", "d"]) log.note(`http://10.0.0.1/${u}`, "private");
    expect(log.take().map((r) => r.url)).toEqual([
      "http://10.0.0.1/a",
      "http://10.0.0.1/b",
      "http://10.0.0.1/c",
    ]);
    log.note("http://10.0.0.1/a", "private");
    expect(log.take()).toEqual([{ url: "http://10.0.0.1/a", reason: "private" }]);
  });
});
