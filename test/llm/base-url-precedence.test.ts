import { describe, expect, it } from "vitest";
import { resolveAuxiliaryChain } from "../../src/llm/auxiliary.js";
import { baseUrlOverrideNote } from "../../src/llm/detect.js";
import {
  buildProviderRouter,
  type FallbackSetting,
  type RouterSettings,
} from "../../src/llm/provider-router.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { tempDir } from "../support/temp.js";

const CONFIGURED = "http://gpu-box:8000/v1";
const FROM_ENV = "http://localhost:11434/v1";

/** The primary target and the warnings of a router built from `model` settings and `env`. */
function primary(
  model: RouterSettings["model"],
  env: Record<string, string>,
  fallbacks: FallbackSetting[] = [],
): { target: ModelTarget; warnings: string[]; fallback?: ModelTarget } {
  const warnings: string[] = [];
  const built = buildProviderRouter({
    model,
    fallbacks,
    strategies: {},
    env,
    home: tempDir("hermes-urls-"),
    onWarning: (m) => warnings.push(m),
  });
  if (!built.ok) throw new Error(built.problem.summary);
  const decision = built.router.fallback("test");
  return {
    target: built.primary,
    warnings,
    ...(decision.kind === "fallback" ? { fallback: decision.target } : {}),
  };
}

describe("OPENAI_BASE_URL wins over model.base_url for the main model", () => {
  it("the run uses the environment's server and says so", () => {
    const { target, warnings } = primary(
      { base_url: CONFIGURED, default: "llama3.1" },
      { OPENAI_BASE_URL: FROM_ENV },
    );
    expect(target).toMatchObject({ provider: "custom", baseUrl: FROM_ENV, model: "llama3.1" });
    expect(warnings).toEqual([
      `OPENAI_BASE_URL (${FROM_ENV}) overrides model.base_url (${CONFIGURED}) for this run; unset OPENAI_BASE_URL to use model.base_url.`,
    ]);
  });

  it("with provider custom too", () => {
    const { target } = primary(
      { provider: "custom", base_url: CONFIGURED, default: "m" },
      { OPENAI_BASE_URL: FROM_ENV },
    );
    expect(target.baseUrl).toBe(FROM_ENV);
  });

  it("model.api_key stays with model.base_url; OPENAI_API_KEY pairs with OPENAI_BASE_URL", () => {
    const settings = { base_url: CONFIGURED, default: "m", api_key: "sk-for-gpu-box" };
    const keyless = primary(settings, { OPENAI_BASE_URL: FROM_ENV });
    expect(keyless.target.apiKey).toBe("not-needed");
    expect(keyless.warnings[0]).toContain("(model.api_key is not sent to it)");
    const paired = primary(settings, { OPENAI_BASE_URL: FROM_ENV, OPENAI_API_KEY: "sk-env" });
    expect(paired.target.apiKey).toBe("sk-env");
  });

  it("the same URL (give or take a final slash): no warning, and model.api_key is used", () => {
    const { target, warnings } = primary(
      { base_url: `${FROM_ENV}/`, default: "m", api_key: "sk-local" },
      { OPENAI_BASE_URL: FROM_ENV },
    );
    expect(target).toMatchObject({ baseUrl: FROM_ENV, apiKey: "sk-local" });
    expect(warnings).toEqual([]);
  });

  it("a named provider ignores OPENAI_BASE_URL, without a warning", () => {
    const { target, warnings } = primary(
      { provider: "openrouter", default: "m" },
      { OPENAI_BASE_URL: FROM_ENV, OPENROUTER_API_KEY: "sk-or" },
    );
    expect(target.baseUrl).toBe("https://openrouter.ai/api/v1");
    expect(warnings).toEqual([]);
    expect(
      baseUrlOverrideNote({ provider: "openrouter", base_url: CONFIGURED }, { OPENAI_BASE_URL: FROM_ENV }),
    ).toBeUndefined();
  });

  it("a fallback keeps its own base_url", () => {
    const { fallback } = primary({ base_url: CONFIGURED, default: "m" }, { OPENAI_BASE_URL: FROM_ENV }, [
      { provider: "custom", model: "backup", base_url: "http://backup-box:8000/v1" },
    ]);
    expect(fallback).toMatchObject({ baseUrl: "http://backup-box:8000/v1", model: "backup" });
  });

  it("auxiliary tasks on the custom endpoint follow the same rule", () => {
    const main: ModelTarget = {
      provider: "openrouter",
      apiMode: "chat_completions",
      model: "x",
      baseUrl: "https://openrouter.ai/api/v1",
      apiKey: "sk-or",
    };
    const chain = resolveAuxiliaryChain("compression", {
      main,
      env: { OPENAI_BASE_URL: FROM_ENV },
      customBaseUrl: CONFIGURED,
      customModel: "qwen3",
    });
    const custom = chain.find((c) => c.source === "custom");
    expect(custom?.target.baseUrl).toBe(FROM_ENV);
  });
});
