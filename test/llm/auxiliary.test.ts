import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AuxiliaryContext,
  AuxiliaryCooldowns,
  callAuxiliary,
  resolveAuxiliaryChain,
} from "../../src/llm/auxiliary.js";
import type { ChatMessage, ModelTarget } from "../../src/llm/types.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { tempDir } from "../support/temp.js";

const home = tempDir("hermes-aux-");
const ask: ChatMessage[] = [{ role: "user", content: "Summarise: a b c" }];

const chain = (task: Parameters<typeof resolveAuxiliaryChain>[0], ctx: AuxiliaryContext) =>
  resolveAuxiliaryChain(task, { home, ...ctx }).map(
    (c) => `${c.source}:${c.target.provider}:${c.target.model}`,
  );

describe("resolveAuxiliaryChain", () => {
  const main: ModelTarget = {
    provider: "custom",
    apiMode: "chat_completions",
    model: "my-local-model",
    baseUrl: "http://localhost:8080/v1",
    apiKey: "not-needed",
  };
  const allKeys = {
    OPENROUTER_API_KEY: "or",
    NOUS_API_KEY: "nous",
    ANTHROPIC_API_KEY: "ant",
    OPENAI_API_KEY: "oa",
  };

  it("auto, text tasks: main, OpenRouter, Nous, custom endpoint, Anthropic", () => {
    expect(
      chain("compression", {
        main: { ...main, provider: "openai", model: "gpt-5", baseUrl: "https://api.openai.com/v1" },
        env: allKeys,
        customBaseUrl: "http://gpu-box:8000/v1",
        customModel: "qwen3-32b",
      }),
    ).toEqual([
      "main:openai:gpt-5",
      "openrouter:openrouter:google/gemini-3-flash-preview",
      "nous:nous:Hermes-4-70B",
      "custom:custom:qwen3-32b",
      "anthropic:anthropic:claude-haiku-4-5",
    ]);
  });

  it("auto, vision: the main model only when it sees, then OpenRouter, Anthropic, custom; Nous's text model is skipped", () => {
    expect(chain("vision", { main, env: allKeys })).toEqual([
      "openrouter:openrouter:google/gemini-3-flash-preview",
      "anthropic:anthropic:claude-haiku-4-5",
      "custom:custom:my-local-model",
    ]);
    const sighted = {
      ...main,
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      baseUrl: "https://api.anthropic.com",
    };
    expect(chain("vision", { main: sighted, env: {} })).toEqual(["main:anthropic:claude-sonnet-4-6"]);
  });

  it("uses the main provider's own model when it is also the chain's provider", () => {
    const or = {
      ...main,
      provider: "openrouter",
      model: "anthropic/claude-sonnet-4.5",
      baseUrl: "https://openrouter.ai/api/v1",
    };
    expect(chain("title_generation", { main: or, env: { OPENROUTER_API_KEY: "or" } })).toEqual([
      "main:openrouter:anthropic/claude-sonnet-4.5",
    ]);
  });

  it("puts a configured provider first, with the main model as its fallback", () => {
    expect(
      chain("compression", {
        main,
        env: allKeys,
        settings: { compression: { provider: "openrouter", model: "google/gemini-2.5-flash" } },
      }),
    ).toEqual(["config:openrouter:google/gemini-2.5-flash", "main:custom:my-local-model"]);
    expect(
      chain("web_extract", {
        main,
        env: {},
        settings: { web_extract: { base_url: "http://aux:9000/v1", model: "small" } },
      }),
    ).toEqual(["config:custom:small", "main:custom:my-local-model"]);
    expect(
      chain("approval", { main, env: {}, settings: { approval: { provider: "main", model: "tiny" } } }),
    ).toEqual(["config:custom:tiny", "main:custom:my-local-model"]);
    // A configured provider without its key falls back to the main model alone.
    expect(
      chain("session_search", { main, env: {}, settings: { session_search: { provider: "anthropic" } } }),
    ).toEqual(["main:custom:my-local-model"]);
  });

  it("gives side calls their own timeout and output cap", () => {
    const [c] = resolveAuxiliaryChain(
      "compression",
      { main, env: {}, home, settings: { compression: { timeout: 12, max_tokens: 900 } } },
      undefined,
    );
    expect(c?.target).toMatchObject({ timeoutMs: 12_000, maxTokens: 900 });
    expect(resolveAuxiliaryChain("compression", { main, env: {}, home }, 300)[0]?.target).toMatchObject({
      timeoutMs: 60_000,
      maxTokens: 300,
    });
  });
});

describe("callAuxiliary against the fake server", () => {
  let fake: FakeLlm;
  let main: ModelTarget;
  beforeAll(async () => {
    fake = await startFakeLlm();
    main = {
      provider: "custom",
      apiMode: "chat_completions",
      model: "main-model",
      baseUrl: fake.openaiBaseUrl,
      apiKey: "k",
    };
  });
  afterAll(() => fake.close());
  afterEach(() => {
    expect(fake.pending()).toBe(0);
    fake.requests.length = 0;
  });

  it("returns the collected answer of a non-streaming-looking call", async () => {
    fake.enqueue({ text: "a, b and c", usage: { input: 20, output: 5 } });
    const r = await callAuxiliary("compression", ask, { main, env: {}, home });
    expect(r).toMatchObject({ ok: true, text: "a, b and c", model: "main-model", provider: "custom" });
    if (r.ok) expect(r.usage).toMatchObject({ inputTokens: 20, outputTokens: 5 });
    expect(fake.requests[0]!.body.model).toBe("main-model");
  });

  it("works the same over the Responses and Anthropic protocols", async () => {
    fake.enqueue({ text: "via responses" }, { text: "via anthropic" });
    const responses = await callAuxiliary("title_generation", ask, {
      main: { ...main, apiMode: "codex_responses" },
      env: {},
      home,
    });
    const anthropic = await callAuxiliary("title_generation", ask, {
      main: { ...main, provider: "anthropic", apiMode: "anthropic_messages", baseUrl: fake.anthropicBaseUrl },
      env: {},
      home,
    });
    expect(responses).toMatchObject({ ok: true, text: "via responses" });
    expect(anthropic).toMatchObject({ ok: true, text: "via anthropic" });
    expect(fake.requests.map((q) => q.protocol)).toEqual(["responses", "anthropic"]);
  });

  it("omits the temperature for Kimi models and passes it otherwise", async () => {
    fake.enqueue({ text: "x" }, { text: "y" });
    await callAuxiliary("compression", ask, {
      main: { ...main, model: "kimi-k2" },
      env: {},
      home,
      temperature: 0.3,
    });
    await callAuxiliary("compression", ask, { main, env: {}, home, temperature: 0.3 });
    expect(fake.requests[0]!.body.temperature).toBeUndefined();
    expect(fake.requests[1]!.body.temperature).toBe(0.3);
  });

  it("falls back to the main model, and skips a provider that keeps failing for 600 s", async () => {
    let now = 1_000_000;
    const cooldowns = new AuxiliaryCooldowns(600_000, 2, () => now);
    const opts = {
      main,
      env: {},
      home,
      cooldowns,
      settings: { compression: { base_url: fake.openaiBaseUrl, model: "cheap-model" } },
    };
    const models = () => fake.requests.splice(0).map((q) => q.body.model);

    fake.enqueue({ fault: { kind: "http", status: 500 } }, { text: "from main" });
    const first = await callAuxiliary("compression", ask, opts);
    expect(first).toMatchObject({ ok: true, text: "from main", model: "main-model" });
    expect(first.attempts.map((a) => [a.model, a.error?.reason])).toEqual([
      ["cheap-model", "server_error"],
      ["main-model", undefined],
    ]);
    expect(models()).toEqual(["cheap-model", "main-model"]);

    fake.enqueue({ fault: { kind: "http", status: 503 } }, { text: "from main again" });
    await callAuxiliary("compression", ask, opts);
    expect(models()).toEqual(["cheap-model", "main-model"]);

    // Two failures in a row: the cheap model cools down and the main model answers directly.
    fake.enqueue({ text: "main only" });
    const cooled = await callAuxiliary("compression", ask, opts);
    expect(cooled).toMatchObject({ ok: true, text: "main only" });
    expect(cooled.attempts[0]).toEqual({ provider: "custom", model: "cheap-model", skipped: "cooldown" });
    expect(models()).toEqual(["main-model"]);

    now += 601_000;
    fake.enqueue({ text: "cheap is back" });
    expect(await callAuxiliary("compression", ask, opts)).toMatchObject({ ok: true, model: "cheap-model" });
    expect(models()).toEqual(["cheap-model"]);
  });

  it("does not cool a provider down for a request it rejected, and reports the last error", async () => {
    const cooldowns = new AuxiliaryCooldowns();
    fake.enqueue({ fault: { kind: "http", status: 400 } }, { fault: { kind: "http", status: 400 } });
    fake.enqueue({ fault: { kind: "http", status: 400 } }, { fault: { kind: "http", status: 400 } });
    const opts = {
      main,
      env: {},
      home,
      cooldowns,
      settings: { vision: { base_url: fake.openaiBaseUrl, model: "v" } },
    };
    const r = await callAuxiliary("vision", ask, opts);
    expect(r).toMatchObject({ ok: false, error: { reason: "format_error" } });
    await callAuxiliary("vision", ask, opts);
    expect(fake.requests.map((q) => q.body.model)).toEqual(["v", "main-model", "v", "main-model"]);
  });

  it("never throws", async () => {
    const r = await callAuxiliary("compression", ask, {
      main,
      env: {},
      home,
      cooldowns: new AuxiliaryCooldowns(),
      streamFor: () => {
        throw new Error("broken stream factory");
      },
    });
    expect(r).toMatchObject({ ok: false, error: { reason: "unknown" } });
    if (!r.ok) expect(r.error.message).toContain("broken stream factory");
  });

  it("stops at once when the caller aborts", async () => {
    fake.enqueue({ fault: { kind: "hang" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const r = await callAuxiliary("compression", ask, {
      main,
      env: {},
      home,
      signal: controller.signal,
      cooldowns: new AuxiliaryCooldowns(),
      settings: { compression: { base_url: fake.openaiBaseUrl, model: "slow" } },
    });
    expect(r).toMatchObject({ ok: false, error: { reason: "aborted" } });
    expect(r.attempts).toHaveLength(1);
  });
});
