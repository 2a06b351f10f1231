import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/core/config.js";
import { decodeBody } from "../../../src/tools/builtin/web/decode.js";
import { pageKind } from "../../../src/tools/builtin/web/page-content.js";
import {
  guardOptionsFromSecurity,
  matchBlocklist,
  normalizeRule,
} from "../../../src/tools/builtin/web/website-policy.js";

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-web-policy-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("website blocklist rules", () => {
  it.each([
    ["Example.COM", "example.com"],
    ["www.example.com", "example.com"],
    ["https://www.example.com/some/path?q=1", "example.com"],
    ["example.com:8443", "example.com"],
    ["user@example.com", "example.com"],
    ["*.ads.example", "*.ads.example"],
    ["example.com.", "example.com"],
    ["   ", undefined],
    ["# a comment", undefined],
  ])("normalises %j to %j", (rule, expected) => {
    expect(normalizeRule(rule)).toBe(expected);
  });

  it("matches hosts, subdomains and wildcard patterns", () => {
    const rules = ["example.com", "*.ads.example"];
    expect(matchBlocklist("example.com", rules)).toBe("example.com");
    expect(matchBlocklist("a.b.example.com", rules)).toBe("example.com");
    expect(matchBlocklist("badexample.com", rules)).toBeUndefined();
    expect(matchBlocklist("x.ads.example", rules)).toBe("*.ads.example");
    expect(matchBlocklist("ads.example", rules)).toBeUndefined();
  });

  it("reads shared files relative to HERMES_HOME, skipping missing ones", () => {
    const home = tempDir();
    writeFileSync(
      join(home, "blocked.txt"),
      "# team list\nsocial.example\n\nhttps://www.video.example/watch\n",
    );
    const opts = guardOptionsFromSecurity(
      {
        allow_private_urls: false,
        website_blocklist: {
          enabled: true,
          domains: ["news.example"],
          shared_files: ["blocked.txt", "missing.txt"],
        },
      },
      home,
    );
    expect(opts).toEqual({
      allowPrivate: false,
      blocklist: ["news.example", "social.example", "video.example"],
    });
  });

  it("applies no rules when the blocklist is disabled", () => {
    const opts = guardOptionsFromSecurity({
      allow_private_urls: true,
      website_blocklist: { enabled: false, domains: ["news.example"], shared_files: [] },
    });
    expect(opts).toEqual({ allowPrivate: true, blocklist: [] });
  });
});

describe("config keys", () => {
  it("accepts the web and security keys without warnings", () => {
    const dir = tempDir();
    const path = join(dir, "config.yaml");
    writeFileSync(
      path,
      [
        "web:",
        "  search_backend: searxng",
        "  searxng_url: http://searx.lan:8080",
        "  extract_char_limit: 20000",
        "  extract_timeout: 12.5",
        "security:",
        "  allow_private_urls: true",
        "  website_blocklist:",
        "    domains: [tracker.example]",
        "",
      ].join("\n"),
    );
    const loaded = loadConfig(path);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.web).toMatchObject({
      search_backend: "searxng",
      extract_timeout: 12.5,
      max_redirects: 5,
    });
    expect(loaded.config.security.website_blocklist).toEqual({
      enabled: true,
      domains: ["tracker.example"],
      shared_files: [],
    });
  });
});

describe("page decoding", () => {
  it("lets a byte-order mark win over a wrong declared charset", () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("naïve", "utf8")]);
    expect(decodeBody(body, "text/plain; charset=iso-8859-1")).toEqual({ text: "naïve", encoding: "utf-8" });
  });

  it("falls back when the declared charset is unknown", () => {
    expect(decodeBody(Buffer.from("plain ascii"), "text/plain; charset=x-made-up").text).toBe("plain ascii");
  });

  it.each([
    ["text/html; charset=utf-8", "<p>x</p>", "html"],
    ["", "<!DOCTYPE html><html></html>", "html"],
    ["text/plain", "  <html><body>hi</body></html>", "html"],
    ["application/pdf", "%PDF-1.4", "pdf"],
    ["application/octet-stream", "%PDF-1.7 ...", "pdf"],
    ["application/ld+json", "{}", "text"],
    ["application/vnd.api+json", "{}", "text"],
    ["text/csv", "a,b", "text"],
    ["image/png", "\x89PNG", undefined],
    ["application/zip", "PK\x03\x04", undefined],
    ["application/octet-stream", "\x00\x01\x02binary", undefined],
  ])("%s %j is read as %s", (type, body, kind) => {
    expect(pageKind(type, Buffer.from(body, "latin1"))).toBe(kind);
  });
});
