import { afterEach, describe, expect, it } from "vitest";
import { classifyAddress } from "../../../src/tools/builtin/web/ip-ranges.js";
import {
  type AddressVerdict,
  checkUrl,
  guardedFetch,
  type Resolver,
  TooManyRedirectsError,
  UrlRefusedError,
} from "../../../src/tools/builtin/web/url-guard.js";
import { startServer, type TestServer } from "./support.js";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A resolver that answers from a table and counts its calls. */
function tableResolver(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve: Resolver = async (host) => {
    calls.push(host);
    const entry = table[host];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    const list = typeof entry === "function" ? entry() : entry;
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const);
  };
  return { resolve, calls };
}

/** The real classification, except that 127.0.0.2 counts as a public address (a stand-in "internet" host). */
const loopback2IsPublic = (address: string): AddressVerdict =>
  address === "127.0.0.2" ? { block: "never" } : classifyAddress(address);

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "private"],
    ["127.255.1.2", "private"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["0.0.0.0", "private"],
    ["224.0.0.1", "private"],
    ["255.255.255.255", "private"],
    ["169.254.169.254", "always"],
    ["169.254.1.1", "always"],
    ["100.100.100.200", "always"],
    ["::1", "private"],
    ["::", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "private"],
    ["fd00:ec2::254", "always"],
    ["::ffff:127.0.0.1", "private"],
    ["::ffff:7f00:1", "private"],
    ["::ffff:169.254.169.254", "always"],
    ["64:ff9b::a00:1", "private"],
    ["2002:7f00:1::", "private"],
    ["[::1]", "private"],
  ])("%s is blocked (%s)", (address, block) => {
    expect(classifyAddress(address).block).toBe(block);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
  ])("%s is public", (address) => {
    expect(classifyAddress(address)).toEqual({ block: "never" });
  });

  it("refuses what is not an IP address", () => {
    expect(classifyAddress("example.com").block).toBe("always");
  });
});

describe("checkUrl", () => {
  it.each([
    ["http://127.0.0.1/", "loopback"],
    ["http://10.0.0.5:8080/admin", "private"],
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://[::1]:9000/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "IPv4 inside IPv6"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f.1/", "loopback"],
  ])("refuses %s by default", async (url, words) => {
    const res = await checkUrl(url);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.reason).toContain(words);
  });

  it("refuses a name that resolves to loopback", async () => {
    const { resolve } = tableResolver({ "sneaky.example": ["127.0.0.1"] });
    const res = await checkUrl("http://sneaky.example/", { resolve });
    expect(res).toEqual({
      ok: false,
      reason: expect.stringContaining("sneaky.example resolves to 127.0.0.1, a loopback address"),
    });
  });

  it("refuses a name when any one of its addresses is private", async () => {
    const { resolve } = tableResolver({ "mixed.example": ["93.184.216.34", "10.0.0.1"] });
    expect((await checkUrl("https://mixed.example/", { resolve })).ok).toBe(false);
  });

  it("accepts a public name and returns the addresses it checked", async () => {
    const { resolve } = tableResolver({ "public.example": ["93.184.216.34", "2606:2800:220:1::1"] });
    const res = await checkUrl("https://public.example/page", { resolve });
    expect(res.ok && res.addresses.map((a) => a.address)).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);
  });

  it("lets private addresses through with allowPrivate, but never cloud metadata", async () => {
    expect((await checkUrl("http://127.0.0.1:3000/", { allowPrivate: true })).ok).toBe(true);
    expect((await checkUrl("http://[::1]/", { allowPrivate: true })).ok).toBe(true);
    expect((await checkUrl("http://169.254.169.254/", { allowPrivate: true })).ok).toBe(false);
    expect((await checkUrl("http://metadata.google.internal/", { allowPrivate: true })).ok).toBe(false);
  });

  it("refuses other schemes and malformed URLs", async () => {
    for (const url of ["file:///etc/passwd", "ftp://example.com/", "javascript:alert(1)", "not a url"]) {
      expect((await checkUrl(url)).ok).toBe(false);
    }
  });

  it("honours the blocklist for a host and its subdomains", async () => {
    const { resolve } = tableResolver({
      "example.com": ["93.184.216.34"],
      "docs.example.com": ["93.184.216.34"],
      "notexample.com": ["93.184.216.34"],
    });
    const blocklist = ["example.com"];
    const blocked = await checkUrl("https://docs.example.com/x", { resolve, blocklist });
    expect(blocked.ok).toBe(false);
    if (!blocked.ok) expect(blocked.reason).toContain("security.website_blocklist");
    expect((await checkUrl("https://example.com/", { resolve, blocklist })).ok).toBe(false);
    expect((await checkUrl("https://notexample.com/", { resolve, blocklist })).ok).toBe(true);
  });

  it("reports a name that does not resolve", async () => {
    const { resolve } = tableResolver({});
    const res = await checkUrl("https://nowhere.invalid/", { resolve });
    expect(res).toEqual({ ok: false, reason: expect.stringContaining("could not resolve nowhere.invalid") });
  });
});

describe("guardedFetch", () => {
  it("refuses a loopback server by default and never contacts it", async () => {
    const server = await startServer((_req, res) => res.end("secret"));
    servers.push(server);
    await expect(guardedFetch(`${server.origin}/`)).rejects.toBeInstanceOf(UrlRefusedError);
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a redirect from an allowed host to a private one", async () => {
    const internal = await startServer((_req, res) => res.end("internal secret"), "127.0.0.1");
    servers.push(internal);
    const outside = await startServer((_req, res) => {
      res.writeHead(302, { location: `${internal.origin}/secret` });
      res.end();
    }, "127.0.0.2");
    servers.push(outside);
    const { resolve } = tableResolver({ "public.example": ["127.0.0.2"] });
    const err = await guardedFetch(`http://public.example:${outside.port}/start`, {
      resolve,
      classify: loopback2IsPublic,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UrlRefusedError);
    expect((err as UrlRefusedError).url).toBe(`${internal.origin}/secret`);
    expect((err as UrlRefusedError).reason).toContain("loopback");
    expect(outside.requests.map((r) => r.url)).toEqual(["/start"]);
    expect(internal.requests).toHaveLength(0);
  });

  it("connects to the address it checked even when DNS answers differently later", async () => {
    // Same port on two loopback addresses: the "public" one the check saw, the internal one a rebinding DNS would give.
    const outside = await startServer((_req, res) => res.end("public page"), "127.0.0.2");
    servers.push(outside);
    const internal = await startServer((_req, res) => res.end("internal secret"), "127.0.0.1", outside.port);
    servers.push(internal);
    let answers = 0;
    const { resolve, calls } = tableResolver({
      "rebind.example": () => (answers++ === 0 ? ["127.0.0.2"] : ["127.0.0.1"]),
    });
    const res = await guardedFetch(`http://rebind.example:${outside.port}/`, {
      resolve,
      classify: loopback2IsPublic,
    });
    const text = await new Response(res.body as unknown as ReadableStream).text();
    await res.close();
    expect(text).toBe("public page");
    expect(calls).toEqual(["rebind.example"]);
    expect(internal.requests).toHaveLength(0);
  });

  it("follows a redirect chain, checking each hop, and reports it", async () => {
    const server = await startServer((req, res) => {
      const n = Number(req.url?.slice(1) || "0");
      if (n < 3) {
        res.writeHead(n === 1 ? 301 : 307, { location: `/${n + 1}` });
        res.end();
      } else res.end(`landed at ${n}`);
    });
    servers.push(server);
    const res = await guardedFetch(`${server.origin}/0`, { allowPrivate: true });
    const text = await new Response(res.body as unknown as ReadableStream).text();
    await res.close();
    expect(text).toBe("landed at 3");
    expect(res.url).toBe(`${server.origin}/3`);
    expect(res.chain).toEqual([0, 1, 2, 3].map((n) => `${server.origin}/${n}`));
  });

  it("gives up after the redirect limit", async () => {
    const server = await startServer((req, res) => {
      res.writeHead(302, { location: `${req.url}x` });
      res.end();
    });
    servers.push(server);
    await expect(
      guardedFetch(`${server.origin}/`, { allowPrivate: true, maxRedirects: 3 }),
    ).rejects.toBeInstanceOf(TooManyRedirectsError);
    expect(server.requests).toHaveLength(4);
  });

  it("drops credentials when a redirect leaves the origin", async () => {
    const second = await startServer((_req, res) => res.end("ok"));
    servers.push(second);
    const first = await startServer((_req, res) => {
      res.writeHead(302, { location: `${second.origin}/landing` });
      res.end();
    });
    servers.push(first);
    const res = await guardedFetch(`${first.origin}/`, {
      allowPrivate: true,
      headers: { authorization: "Bearer abc", "x-keep": "yes" },
    });
    await res.close();
    expect(first.requests[0]?.headers.authorization).toBe("Bearer abc");
    expect(second.requests[0]?.headers.authorization).toBeUndefined();
    expect(second.requests[0]?.headers["x-keep"]).toBe("yes");
  });
});
