import { describe, expect, it } from "vitest";
import { buildAnthropicParams } from "../../src/llm/anthropic-convert.js";
import { resolveProvider } from "../../src/llm/detect.js";
import { buildChatParams } from "../../src/llm/openai-chat.js";
import { temperatureFor } from "../../src/llm/quirks.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { request } from "./helpers.js";

describe("temperatureFor", () => {
  it.each([
    ["kimi-k2", 0.7, undefined],
    ["moonshotai/kimi-k2-thinking", 0.2, undefined],
    ["moonshot-v1-8k", 0.2, undefined],
    ["gpt-5", 0.2, undefined],
    ["openai/o3", 0.2, undefined],
    ["gpt-5.1-codex", 0.2, undefined],
    ["gpt-5-chat-latest", 0.2, 0.2],
    ["arcee-ai/trinity-large-thinking", undefined, 0.5],
    ["arcee-ai/trinity-large-thinking", 0.9, 0.5],
    ["claude-sonnet-4-6", 0.3, 0.3],
    ["llama3.1", undefined, undefined],
  ] as const)("%s asked %s → %s", (model, asked, sent) => {
    expect(temperatureFor(model, asked)).toBe(sent);
  });

  it("is applied by the chat and Anthropic request builders", () => {
    const chat: ModelTarget = {
      provider: "custom",
      apiMode: "chat_completions",
      model: "kimi-k2",
      baseUrl: "http://h/v1",
      apiKey: "",
    };
    expect("temperature" in buildChatParams(request(chat, { temperature: 0.6 }))).toBe(false);
    const ant: ModelTarget = {
      ...chat,
      apiMode: "anthropic_messages",
      model: "kimi-k2",
      baseUrl: "https://api.moonshot.ai/anthropic",
    };
    expect("temperature" in buildAnthropicParams(request(ant, { temperature: 0.6 }))).toBe(false);
  });
});

describe("reasoning effort", () => {
  const chat: ModelTarget = {
    provider: "openai",
    apiMode: "chat_completions",
    model: "o4-mini",
    baseUrl: "https://api.openai.com/v1",
    apiKey: "k",
  };

  it("is left out unless configured", () => {
    const p = buildChatParams(request(chat)) as unknown as Record<string, unknown>;
    expect(p.reasoning_effort).toBeUndefined();
    expect(p.reasoning).toBeUndefined();
  });

  it("maps to reasoning_effort on chat completions, and to OpenRouter's reasoning object there", () => {
    expect(buildChatParams(request({ ...chat, reasoningEffort: "low" })).reasoning_effort).toBe("low");
    const or = buildChatParams(
      request({
        ...chat,
        provider: "openrouter",
        baseUrl: "https://openrouter.ai/api/v1",
        reasoningEffort: "high",
      }),
    ) as unknown as Record<string, unknown>;
    expect(or.reasoning).toEqual({ effort: "high" });
    expect(or.reasoning_effort).toBeUndefined();
  });

  it("turns on extended thinking for Claude models that have it, with a budget under max_tokens", () => {
    const claude: ModelTarget = {
      provider: "anthropic",
      apiMode: "anthropic_messages",
      model: "claude-sonnet-4-6",
      baseUrl: "https://api.anthropic.com",
      apiKey: "k",
    };
    const medium = buildAnthropicParams(
      request({ ...claude, reasoningEffort: "medium" }, { temperature: 0.2 }),
    );
    expect(medium.thinking).toEqual({ type: "enabled", budget_tokens: 8_000 });
    expect(medium.max_tokens).toBeGreaterThan(8_000);
    expect(medium.temperature).toBeUndefined();
    const high = buildAnthropicParams(request({ ...claude, reasoningEffort: "high" }));
    expect(high.thinking).toEqual({ type: "enabled", budget_tokens: 16_000 });
    // A user's max_tokens wins: the budget shrinks to fit under it.
    const capped = buildAnthropicParams(request({ ...claude, reasoningEffort: "high", maxTokens: 5_000 }));
    expect(capped.max_tokens).toBe(5_000);
    expect(capped.thinking).toEqual({ type: "enabled", budget_tokens: 4_999 });
    // No thinking for models the catalog does not know as reasoning models, or without an effort.
    expect(
      buildAnthropicParams(request({ ...claude, model: "MiniMax-M2", reasoningEffort: "high" })).thinking,
    ).toBeUndefined();
    expect(buildAnthropicParams(request(claude)).thinking).toBeUndefined();
  });

  it("flows from agent.reasoning_effort through resolveProvider into the target", () => {
    const r = resolveProvider({ provider: "openai" }, { OPENAI_API_KEY: "k" }, { reasoningEffort: "high" });
    expect(r.ok && r.target).toMatchObject({ reasoningEffort: "high", apiMode: "codex_responses" });
  });
});
