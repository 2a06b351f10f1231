import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamAnthropic } from "../../src/llm/anthropic.js";
import { streamOpenAIChat } from "../../src/llm/openai-chat.js";
import { isNoProxy, normalizeProxyUrl, proxyForUrl, proxyTransportFor } from "../../src/llm/proxy.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { done, request, run } from "./helpers.js";

describe("proxyForUrl", () => {
  it.each([
    ["https://api.openai.com/v1", { HTTPS_PROXY: "http://proxy:3128" }, "http://proxy:3128"],
    [
      "https://api.openai.com/v1",
      { https_proxy: "http://lower:1", HTTPS_PROXY: "http://upper:2" },
      "http://lower:1",
    ],
    ["https://api.openai.com/v1", { HTTP_PROXY: "http://proxy:3128" }, undefined],
    ["http://10.0.0.5:8000/v1", { HTTP_PROXY: "http://proxy:3128" }, "http://proxy:3128"],
    ["https://openrouter.ai/api/v1", { ALL_PROXY: "proxy.corp:8080/" }, "http://proxy.corp:8080"],
    ["https://openrouter.ai/api/v1", { ALL_PROXY: "socks5://127.0.0.1:1080" }, undefined],
    ["https://openrouter.ai/api/v1", {}, undefined],
    ["https://api.anthropic.com", { HTTPS_PROXY: "http://p:1", NO_PROXY: "anthropic.com" }, undefined],
    ["https://api.anthropic.com", { HTTPS_PROXY: "http://p:1", no_proxy: "*" }, undefined],
    ["https://api.anthropic.com", { HTTPS_PROXY: "http://p:1", NO_PROXY: "openai.com" }, "http://p:1"],
  ] as const)("%s with %o → %s", (url, env, expected) => {
    expect(proxyForUrl(url, env)).toBe(expected);
  });
});

describe("isNoProxy", () => {
  it.each([
    ["localhost", "80", "localhost,127.0.0.1", true],
    ["api.example.com", "443", ".example.com", true],
    ["api.example.com", "443", "*.example.com", true],
    ["api.example.com", "443", "example.com", true],
    ["example.com", "443", ".example.com", true],
    ["badexample.com", "443", "example.com", false],
    ["host", "8080", "host:8080", true],
    ["host", "9090", "host:8080", false],
    ["::1", "80", "[::1]", true],
    ["[::1]", "80", "::1", true],
    ["10.1.2.3", "80", "10.1.2.3 , other", true],
    ["anything", "80", "", false],
  ] as const)("%s:%s against %j → %s", (host, port, noProxy, expected) => {
    expect(isNoProxy(host, port, noProxy)).toBe(expected);
  });

  it("normalises proxy URLs", () => {
    expect(normalizeProxyUrl("proxy:3128/")).toBe("http://proxy:3128");
    expect(normalizeProxyUrl("https://p:1")).toBe("https://p:1");
    expect(normalizeProxyUrl("socks5h://p:1")).toBeUndefined();
  });
});

describe("requests through a forward proxy", () => {
  let fake: FakeLlm;
  let proxy: Server;
  const seen: string[] = [];
  const saved: Record<string, string | undefined> = {};
  const vars = [
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
  ];

  beforeAll(async () => {
    fake = await startFakeLlm();
    // A plain forward proxy: absolute-URI requests for http:// targets, no CONNECT.
    proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const url = new URL(req.url ?? "");
      const upstream = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: req.method,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    for (const v of vars) {
      saved[v] = process.env[v];
      delete process.env[v];
    }
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const v of vars) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await fake.close();
  });

  it("routes both SDKs through the proxy", async () => {
    fake.enqueue({ text: "via proxy (openai)" }, { text: "via proxy (anthropic)" });
    const base = { provider: "custom", model: "m", apiKey: "k" };
    const a = done(
      await run(
        streamOpenAIChat,
        request({ ...base, apiMode: "chat_completions", baseUrl: fake.openaiBaseUrl }),
      ),
    );
    const b = done(
      await run(
        streamAnthropic,
        request({ ...base, apiMode: "anthropic_messages", baseUrl: fake.anthropicBaseUrl }),
      ),
    );
    expect(a.message.content).toBe("via proxy (openai)");
    expect(b.message.content).toBe("via proxy (anthropic)");
    expect(seen).toEqual([`POST ${fake.url}/v1/chat/completions`, `POST ${fake.url}/v1/messages`]);
  });

  it("bypasses the proxy for NO_PROXY hosts without loading a transport", async () => {
    process.env.NO_PROXY = "127.0.0.1";
    try {
      expect(await proxyTransportFor(fake.openaiBaseUrl)).toBeUndefined();
    } finally {
      delete process.env.NO_PROXY;
    }
    expect(await proxyTransportFor(fake.openaiBaseUrl)).toBeDefined();
  });
});
