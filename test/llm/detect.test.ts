import { describe, expect, it } from "vitest";
import { detectApiMode, type ProviderSettings, resolveProvider } from "../../src/llm/detect.js";
import type { ApiMode } from "../../src/llm/types.js";

describe("detectApiMode", () => {
  it.each([
    ["anthropic", "", "claude-sonnet-4-6", "anthropic_messages"],
    ["custom", "https://api.anthropic.com", "claude", "anthropic_messages"],
    ["custom", "https://api.minimax.io/anthropic", "MiniMax-M2", "anthropic_messages"],
    ["custom", "https://api.minimax.io/anthropic/", "MiniMax-M2", "anthropic_messages"],
    ["bedrock", "", "anthropic.claude", "bedrock_converse"],
    ["custom", "https://bedrock-runtime.us-east-1.amazonaws.com", "x", "bedrock_converse"],
    ["openai-codex", "", "gpt-5-codex", "codex_responses"],
    ["custom", "https://chatgpt.com/backend-api/codex", "gpt-5", "codex_responses"],
    // GPT-5.x, o-series and Codex models on the direct OpenAI URL upgrade to the Responses API.
    ["openai", "https://api.openai.com/v1", "gpt-5", "codex_responses"],
    ["openai", "https://api.openai.com/v1", "gpt-5.4-mini", "codex_responses"],
    ["custom", "https://api.openai.com/v1/", "openai/gpt-5.1-codex", "codex_responses"],
    ["openai", "https://api.openai.com/v1", "o3", "codex_responses"],
    ["openai", "https://api.openai.com/v1", "o4-mini-2025-04-16", "codex_responses"],
    ["openai", "", "gpt-5-mini", "codex_responses"],
    ["openai", "https://api.openai.com/v1", "gpt-4.1", "chat_completions"],
    ["openai", "https://api.openai.com/v1", "gpt-4o", "chat_completions"],
    // The same models elsewhere stay on chat completions: proxies rarely speak Responses.
    ["openrouter", "https://openrouter.ai/api/v1", "openai/gpt-5", "chat_completions"],
    ["custom", "http://localhost:8000/v1", "gpt-5", "chat_completions"],
    ["custom", "https://api.openai.com.evil.example/v1", "gpt-5", "chat_completions"],
    ["openrouter", "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5", "chat_completions"],
    ["custom", "http://localhost:11434/v1", "llama3", "chat_completions"],
    ["custom", "https://evil.example/api.anthropic.com", "x", "chat_completions"],
  ] as const)("%s %s %s → %s", (provider, baseUrl, model, mode) => {
    expect(detectApiMode(provider, baseUrl, model)).toBe(mode as ApiMode);
  });
});

describe("resolveProvider", () => {
  const none = {};
  const resolve = (settings: ProviderSettings, env: Record<string, string> = none) =>
    resolveProvider(settings, env);
  const target = (settings: ProviderSettings, env: Record<string, string> = none) => {
    const r = resolve(settings, env);
    if (!r.ok) throw new Error(`expected a target, got ${r.problem.kind}: ${r.problem.summary}`);
    return r.target;
  };

  it("auto prefers model.base_url, then OPENAI_BASE_URL, then keys in order", () => {
    const allKeys = {
      OPENROUTER_API_KEY: "or",
      ANTHROPIC_API_KEY: "ant",
      OPENAI_API_KEY: "oa",
      NOUS_API_KEY: "nous",
    };
    expect(target({ base_url: "http://127.0.0.1:8080/v1", default: "m" }, allKeys)).toMatchObject({
      provider: "custom",
      baseUrl: "http://127.0.0.1:8080/v1",
      apiKey: "not-needed",
    });
    expect(
      target({ default: "llama3" }, { ...allKeys, OPENAI_BASE_URL: "http://localhost:11434/v1/" }),
    ).toMatchObject({
      provider: "custom",
      baseUrl: "http://localhost:11434/v1",
      apiKey: "oa",
      apiMode: "chat_completions",
    });
    expect(target({}, allKeys)).toMatchObject({
      provider: "openrouter",
      apiKey: "or",
      baseUrl: "https://openrouter.ai/api/v1",
    });
    const { OPENROUTER_API_KEY: _a, ...noOr } = allKeys;
    expect(target({}, noOr)).toMatchObject({
      provider: "anthropic",
      apiMode: "anthropic_messages",
      baseUrl: "https://api.anthropic.com",
      model: "claude-sonnet-4-6",
    });
    expect(target({}, { OPENAI_API_KEY: "oa", NOUS_API_KEY: "n" })).toMatchObject({
      provider: "openai",
      model: "gpt-5",
    });
    expect(target({}, { NOUS_API_KEY: "n" })).toMatchObject({
      provider: "nous",
      baseUrl: "https://inference-api.nousresearch.com/v1",
      model: "Hermes-4-405B",
    });
  });

  it("uses OpenRouter's default model and headers", () => {
    const t = target({ provider: "openrouter" }, { OPENROUTER_API_KEY: "or" });
    expect(t.model).toBe("anthropic/claude-sonnet-4.5");
    expect(t.headers).toEqual({
      "HTTP-Referer": expect.stringContaining("hermes-agent"),
      "X-Title": "Hermes Agent",
    });
    expect(target({ provider: "openai" }, { OPENAI_API_KEY: "k" }).headers).toBeUndefined();
  });

  it("lets an explicit provider win over other keys, and model.api_key over env", () => {
    const env = { OPENROUTER_API_KEY: "or", OPENAI_API_KEY: "oa" };
    expect(target({ provider: "openai" }, env)).toMatchObject({ provider: "openai", apiKey: "oa" });
    expect(target({ provider: "openai", api_key: "cfg" }, env)).toMatchObject({ apiKey: "cfg" });
  });

  it("reports a missing key for an explicit provider", () => {
    const r = resolve({ provider: "anthropic" }, { OPENAI_API_KEY: "oa" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem.kind).toBe("missing_api_key");
      expect(r.problem.summary).toContain("ANTHROPIC_API_KEY");
    }
  });

  it("returns the no-provider data listing every variable and config key", () => {
    const r = resolve({ provider: "auto" }, {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem.kind).toBe("no_provider");
    expect(r.problem.envVars.map((v) => v.name)).toEqual([
      "OPENROUTER_API_KEY",
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "NOUS_API_KEY",
      "OPENAI_BASE_URL",
    ]);
    expect(r.problem.configKeys.map((k) => k.key)).toContain("model.base_url");
  });

  it("requires a base URL and a model for custom", () => {
    const noUrl = resolve({ provider: "custom", default: "m" });
    expect(!noUrl.ok && noUrl.problem.kind).toBe("missing_base_url");
    const noModel = resolve({ provider: "custom", base_url: "http://localhost:8000/v1" });
    expect(!noModel.ok && noModel.problem.kind).toBe("missing_model");
    expect(!noModel.ok && noModel.problem.summary).toContain("model.default");
  });

  it("honours model.api_mode and rejects unknown values", () => {
    expect(
      target({ provider: "custom", base_url: "http://h/v1", default: "m", api_mode: "anthropic_messages" })
        .apiMode,
    ).toBe("anthropic_messages");
    const bad = resolve({ provider: "custom", base_url: "http://h/v1", default: "m", api_mode: "grpc" });
    expect(!bad.ok && bad.problem.kind).toBe("invalid_setting");
    const unknown = resolve({ provider: "mystery" });
    expect(!unknown.ok && unknown.problem.kind).toBe("invalid_setting");
  });

  it("maps limits (0 = unset) and options onto the target", () => {
    const t = resolveProvider(
      { provider: "openai", max_tokens: 4096, context_length: 0 },
      { OPENAI_API_KEY: "k" },
      { cacheTtl: "1h", timeoutMs: 90_000 },
    );
    expect(t.ok && t.target).toMatchObject({ maxTokens: 4096, cacheTtl: "1h", timeoutMs: 90_000 });
    expect(t.ok && t.target.contextLength).toBeUndefined();
  });

  it("picks a provider from a lone model.api_key by its prefix", () => {
    expect(target({ api_key: "sk-or-v1-abc" }).provider).toBe("openrouter");
    expect(target({ api_key: "sk-ant-abc" }).provider).toBe("anthropic");
    expect(target({ api_key: "sk-proj-abc" }).provider).toBe("openai");
  });

  it("uses a vendor's key variable for a custom URL on that vendor's host", () => {
    const t = target(
      { base_url: "https://openrouter.ai/api/v1", default: "x/y" },
      { OPENROUTER_API_KEY: "or" },
    );
    expect(t).toMatchObject({ provider: "custom", apiKey: "or" });
    expect(t.headers?.["X-Title"]).toBe("Hermes Agent");
  });
});
