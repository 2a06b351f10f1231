import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { catalogEntries, lookupCatalog, normaliseModelId } from "../../src/llm/models/catalog.js";
import { endpointCacheFile, parseModelList } from "../../src/llm/models/endpoint.js";
import {
  getModelInfo,
  isLocalEndpoint,
  refreshModelInfo,
  refreshModelInfoInBackground,
} from "../../src/llm/models/index.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

describe("model catalog", () => {
  it("covers the major vendors with sane numbers", () => {
    const entries = catalogEntries();
    expect(entries.length).toBeGreaterThanOrEqual(40);
    const vendors = new Set(entries.map((e) => e.vendor));
    for (const v of [
      "openai",
      "anthropic",
      "google",
      "xai",
      "deepseek",
      "qwen",
      "meta",
      "mistral",
      "nous",
      "moonshot",
      "zhipu",
    ]) {
      expect(vendors).toContain(v);
    }
    const keys = new Set<string>();
    for (const e of entries) {
      expect(e.contextLength).toBeGreaterThan(8_000);
      expect(e.maxOutputTokens).toBeGreaterThan(1_000);
      if (e.pricing) expect(e.pricing.output).toBeGreaterThanOrEqual(e.pricing.input);
      // No two entries (or aliases) may claim the same normalised id.
      for (const name of [e.id, ...(e.aliases ?? [])]) {
        const key = normaliseModelId(name);
        expect(keys.has(key), `${name} is listed twice`).toBe(false);
        keys.add(key);
      }
    }
  });

  it.each([
    ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"],
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["Claude-Sonnet-4-5", "claude-sonnet-4-5"],
    ["openai/gpt-5", "gpt-5"],
    ["gpt-5-2025-08-07", "gpt-5"],
    ["gpt-5-mini", "gpt-5-mini"],
    ["openrouter/openai/gpt-5.1-codex", "gpt-5.1-codex"],
    ["google/gemini-2.5-pro", "gemini-2.5-pro"],
    ["deepseek-chat", "deepseek-v3.2"],
    ["moonshotai/kimi-k2-0905", "kimi-k2"],
    ["z-ai/glm-4.6", "glm-4.6"],
    ["nousresearch/hermes-4-405b", "hermes-4-405b"],
    ["Hermes-4-405B", "hermes-4-405b"],
    ["meta-llama/llama-3.3-70b-instruct:free", "llama-3.3-70b-instruct"],
    ["llama3.1", "llama-3.1-8b-instruct"],
    ["llama3.1:8b", "llama-3.1-8b-instruct"],
    ["qwen3:8b", "qwen3-8b"],
    ["qwen/qwen3-coder", "qwen3-coder"],
    ["x-ai/grok-code-fast-1", "grok-code-fast-1"],
    ["mistralai/mistral-large-2512", "mistral-large-2512"],
  ])("%s → %s", (id, expected) => {
    expect(lookupCatalog(id)?.id).toBe(expected);
  });

  it("does not guess for unknown models", () => {
    expect(lookupCatalog("my-finetune-7b")).toBeUndefined();
    expect(lookupCatalog("gpt-5-turbo-ultra")).toBeUndefined();
  });
});

describe("isLocalEndpoint", () => {
  it.each([
    ["http://localhost:11434/v1", true],
    ["http://127.0.0.1:8080/v1", true],
    ["http://192.168.1.20:8000/v1", true],
    ["http://10.0.0.5/v1", true],
    ["http://[::1]:8000/v1", true],
    ["http://gpu-box.local:8000/v1", true],
    ["https://openrouter.ai/api/v1", false],
    ["https://api.deepseek.com/v1", false],
  ] as const)("%s → %s", (url, local) => {
    expect(isLocalEndpoint(url)).toBe(local);
  });
});

describe("parseModelList", () => {
  it("reads OpenRouter, vLLM, llama.cpp and LM Studio fields", () => {
    const parsed = parseModelList({
      data: [
        {
          id: "anthropic/claude-sonnet-4.5",
          context_length: 1_000_000,
          pricing: { prompt: "0.000003", completion: "0.000015", input_cache_read: "0.0000003" },
          top_provider: { max_completion_tokens: 64_000 },
          architecture: { input_modalities: ["text", "image"] },
          supported_parameters: ["tools", "reasoning"],
        },
        { id: "Qwen/Qwen3-32B", object: "model", max_model_len: 32_768 },
        { id: "model.gguf", meta: { n_ctx_train: 131_072 } },
        { id: "lmstudio-model", max_context_length: 8_192 },
        { id: "openrouter/auto", context_length: 2_000_000, pricing: { prompt: "-1", completion: "-1" } },
        { object: "model" },
      ],
    });
    expect(parsed["anthropic/claude-sonnet-4.5"]).toEqual({
      contextLength: 1_000_000,
      maxOutputTokens: 64_000,
      pricing: { input: 3, output: 15, cacheRead: 0.3 },
      vision: true,
      toolCalls: true,
      reasoning: true,
    });
    expect(parsed["Qwen/Qwen3-32B"]).toEqual({ contextLength: 32_768 });
    expect(parsed["model.gguf"]).toEqual({ contextLength: 131_072 });
    expect(parsed["lmstudio-model"]).toEqual({ contextLength: 8_192 });
    expect(parsed["openrouter/auto"]?.pricing).toBeUndefined();
    expect(Object.keys(parsed)).toHaveLength(5);
    expect(parseModelList("nonsense")).toEqual({});
  });
});

describe("getModelInfo / refreshModelInfo against a server's /v1/models", () => {
  let fake: FakeLlm;
  let home: string;
  let target: ModelTarget;

  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    home = tempDir("hermes-models-");
    target = {
      provider: "custom",
      apiMode: "chat_completions",
      model: "served-model",
      baseUrl: fake.openaiBaseUrl,
      apiKey: "k",
    };
    fake.setModelList({
      object: "list",
      data: [
        { id: "served-model", object: "model", max_model_len: 32_768 },
        { id: "llama3.1:8b", context_length: 65_536 },
      ],
    });
  });

  const listCalls = (() => {
    let seen = 0;
    return () => {
      const now = fake.modelListRequests();
      const n = now - seen;
      seen = now;
      return n;
    };
  })();

  it("fetches once, caches under HERMES_HOME/cache/models/<host>.json, and serves lookups from it", async () => {
    listCalls();
    expect(getModelInfo(target, { home }).source).toBe("none");
    const info = await refreshModelInfo(target, { home });
    expect(listCalls()).toBe(1);
    expect(info).toMatchObject({ contextLength: 32_768, source: "endpoint" });
    const file = endpointCacheFile(home, target.baseUrl)!;
    expect(file.startsWith(join(home, "cache", "models"))).toBe(true);
    expect(file.endsWith(`${new URL(fake.url).host.replace(":", "_")}.json`)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).models["served-model"]).toEqual({ contextLength: 32_768 });
    // Synchronous lookups now come from the cache; a second refresh within the TTL does not fetch.
    expect(getModelInfo(target, { home }).contextLength).toBe(32_768);
    await refreshModelInfo(target, { home });
    expect(listCalls()).toBe(0);
  });

  it("re-fetches after the one-hour TTL", async () => {
    listCalls();
    const t0 = 1_000_000_000_000;
    await refreshModelInfo(target, { home, now: () => t0 });
    await refreshModelInfo(target, { home, now: () => t0 + 59 * 60_000 });
    expect(listCalls()).toBe(1);
    fake.setModelList({ data: [{ id: "served-model", max_model_len: 16_384 }] });
    const info = await refreshModelInfo(target, { home, now: () => t0 + 61 * 60_000 });
    expect(listCalls()).toBe(1);
    expect(info.contextLength).toBe(16_384);
  });

  it("lets model.context_length win, and falls back to the catalog with endpoint capabilities merged", async () => {
    await refreshModelInfo(target, { home });
    expect(getModelInfo({ ...target, contextLength: 4_096 }, { home })).toMatchObject({
      contextLength: 4_096,
      source: "config",
    });
    // llama3.1:8b: the server's context wins over the catalog's 131072; no price on a local server.
    const llama = getModelInfo({ ...target, model: "llama3.1:8b" }, { home });
    expect(llama).toMatchObject({
      contextLength: 65_536,
      source: "endpoint",
      catalogId: "llama-3.1-8b-instruct",
    });
    expect(llama.pricing).toBeUndefined();
    const hosted = getModelInfo(
      { ...target, baseUrl: "https://api.example.com/v1", model: "gpt-5" },
      { home },
    );
    expect(hosted).toMatchObject({ contextLength: 400_000, source: "catalog", pricing: { input: 1.25 } });
  });

  it("caches a server without a model list as empty, and leaves the cache alone on failures", async () => {
    listCalls();
    fake.setModelList({ error: { message: "no" } }, 404);
    await refreshModelInfo(target, { home });
    const file = endpointCacheFile(home, target.baseUrl)!;
    expect(JSON.parse(readFileSync(file, "utf8")).models).toEqual({});
    await refreshModelInfo(target, { home });
    expect(listCalls()).toBe(1);

    const other = tempDir("hermes-models-");
    fake.setModelList({ error: { message: "down" } }, 500);
    await refreshModelInfo(target, { home: other });
    expect(existsSync(endpointCacheFile(other, target.baseUrl)!)).toBe(false);
  });

  it("never fetches for OpenAI or Anthropic, and refreshes in the background once per endpoint", async () => {
    listCalls();
    await refreshModelInfo({ ...target, provider: "anthropic", apiMode: "anthropic_messages" }, { home });
    expect(listCalls()).toBe(0);
    const first = refreshModelInfoInBackground(target, { home });
    const second = refreshModelInfoInBackground(target, { home });
    expect(await second).toBeUndefined();
    expect((await first)?.contextLength).toBe(32_768);
    expect(listCalls()).toBe(1);
  });

  it("sees a cache file rewritten by another process", async () => {
    await refreshModelInfo(target, { home });
    const file = endpointCacheFile(home, target.baseUrl)!;
    expect(getModelInfo(target, { home }).contextLength).toBe(32_768);
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        fetchedAt: Date.now(),
        baseUrl: target.baseUrl,
        models: { "served-model": { contextLength: 8_000 } },
      }),
    );
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    expect(getModelInfo(target, { home }).contextLength).toBe(8_000);
  });
});
