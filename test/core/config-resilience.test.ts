import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText } from "../../src/core/config.js";

const parse = (yaml: string) => parseConfigText(yaml, "config.yaml").config;
const problem = (yaml: string): string => {
  try {
    parseConfigText(yaml, "config.yaml");
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return "";
};

describe("provider resilience settings", () => {
  it("defaults to no fallbacks, no strategies and a 5 s retry base delay", () => {
    const c = parse("");
    expect(c.fallback_providers).toEqual([]);
    expect(c.credential_pool_strategies).toEqual({});
    expect(c.agent.retry_base_delay).toBe(5);
  });

  it("accepts a fallback chain and per-provider strategies", () => {
    const c = parse(
      [
        "fallback_providers:",
        "  - {provider: openrouter, model: anthropic/claude-sonnet-4.5}",
        "  - {provider: custom, model: llama3.1, base_url: 'http://localhost:11434/v1', api_mode: chat_completions}",
        "credential_pool_strategies:",
        "  openrouter: round_robin",
        "  anthropic: least_used",
        "agent:",
        "  retry_base_delay: 0.05",
      ].join("\n"),
    );
    expect(c.fallback_providers).toHaveLength(2);
    expect(c.credential_pool_strategies).toEqual({ openrouter: "round_robin", anthropic: "least_used" });
    expect(c.agent.retry_base_delay).toBe(0.05);
  });

  it.each([
    ["fallback_providers: [openrouter]", "item 1 must be a mapping"],
    ["fallback_providers: [{model: x}]", "item 1 needs 'provider'"],
    ["fallback_providers: [{provider: auto, model: x}]", "provider must be one of openrouter"],
    ["fallback_providers: [{provider: openai}]", "item 1 needs 'model'"],
    ["fallback_providers: [{provider: custom, model: m}]", "a custom provider needs 'base_url'"],
    [
      "fallback_providers: [{provider: openai, model: m, base_url: localhost}]",
      "base_url must start with http",
    ],
    ["fallback_providers: [{provider: openai, model: m, api_mode: grpc}]", "api_mode must be one of"],
    ["fallback_providers: [{provider: openai, model: m, key: k}]", "unknown key 'key'"],
    ["fallback_providers: {provider: openai}", "must be a list"],
    ["credential_pool_strategies: {openrouter: fastest}", "'openrouter' must be one of fill_first"],
    ["agent: {retry_base_delay: 0}", "must be a number > 0"],
  ])("rejects %s", (yaml, message) => {
    const text = problem(yaml);
    expect(text).toContain(message);
    expect(text).toMatch(/^config\.yaml:1: /);
  });
});
