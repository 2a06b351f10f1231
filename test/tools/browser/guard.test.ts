import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserHarness, createBrowserHarness, noChromium, refOf } from "./setup.js";
import { startTestSite, type TestSite } from "./site.js";

// The guard believes public.test is a public host; Chromium is told to find it on loopback, where
// the test site runs. So pages "from the internet" can point the browser at private addresses.
const PUBLIC_IP = "93.184.216.34";

let h: BrowserHarness;
let site: TestSite;
let pub: string;

describe.skipIf(noChromium())("the browser's SSRF guard", () => {
  beforeAll(async () => {
    site = await startTestSite();
    pub = `http://public.test:${site.port}`;
    h = await createBrowserHarness({
      allowPrivate: false,
      extraArgs: ["--host-resolver-rules=MAP public.test 127.0.0.1, MAP blocked.test 127.0.0.1"],
      resolve: async (host) => {
        if (host === "public.test" || host === "blocked.test") return [{ address: PUBLIC_IP, family: 4 }];
        throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      },
      config: (c) => {
        c.security.website_blocklist.domains = ["blocked.test"];
      },
    });
  });
  afterAll(async () => {
    await h?.dispose();
    await site?.close();
  });

  it.each([
    ["loopback", () => `${site.url}/secret`, /127\.0\.0\.1 is .*loopback.*allow_private_urls/],
    ["a private network", () => "http://10.1.2.3/", /10\.1\.2\.3 is .*private/],
    [
      "the cloud metadata address",
      () => "http://169.254.169.254/latest/meta-data/",
      /169\.254\.169\.254 is /,
    ],
    ["IPv6 loopback", () => `http://[::1]:${site.port}/secret`, /::1 is /],
  ])("refuses to open %s before any request is made", async (_what, url, reason) => {
    const before = site.hits.length;
    const r = await h.call("browser_navigate", { url: url() });
    expect(String(r.error)).toMatch(/^Refused to open /);
    expect(String(r.error)).toMatch(reason);
    expect(site.hits.length).toBe(before);
  });

  it("refuses hosts on security.website_blocklist", async () => {
    const r = await h.call("browser_navigate", { url: `http://blocked.test:${site.port}/` });
    expect(String(r.error)).toContain("security.website_blocklist");
  });

  it("opens public pages and follows redirects that stay public", async () => {
    const r = await h.call("browser_navigate", { url: `${pub}/redirect-chain` });
    expect(r).toMatchObject({ success: true, url: `${pub}/articles`, title: "Articles" });
  });

  it("refuses a redirect from a public host to a private address, without requesting it", async () => {
    const r = await h.call("browser_navigate", { url: `${pub}/redirect-private` });
    expect(String(r.error)).toMatch(
      new RegExp(
        `^Refused to open http://127\\.0\\.0\\.1:${site.port}/secret: 127\\.0\\.0\\.1 is .*loopback`,
      ),
    );
    expect(r.requested).toBe(`${pub}/redirect-private`);
    expect(site.hits).toContain("/redirect-private");
    expect(site.hits).not.toContain("/secret");
  });

  it("blocks private iframes and links on a public page, and says so", async () => {
    const page = await h.call("browser_navigate", { url: `${pub}/leaky` });
    expect(page.success).toBe(true);
    expect(String(page.snapshot)).not.toContain("TOP SECRET");
    expect(String(page.snapshot)).toContain("Blocked by Hermes");
    expect(page.blocked).toEqual([{ url: `${site.url}/secret`, reason: expect.stringMatching(/loopback/) }]);
    const click = await h.call("browser_click", { ref: refOf(page.snapshot, 'link "Internal link"') });
    expect(click.blocked).toEqual([{ url: `${site.url}/secret`, reason: expect.stringMatching(/loopback/) }]);
    const after = await h.call("browser_snapshot", {});
    expect(String(after.snapshot)).toContain("Blocked by Hermes");
    expect(String(after.snapshot)).not.toContain("TOP SECRET");
    expect(site.hits).not.toContain("/secret");
  });
});
