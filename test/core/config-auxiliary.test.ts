import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_CONFIG, parseConfigText } from "../../src/core/config.js";
import { AUXILIARY_TASKS } from "../../src/core/config-defaults.js";

describe("auxiliary and reasoning config keys", () => {
  it("has a documented default block per auxiliary task", () => {
    for (const task of AUXILIARY_TASKS) {
      expect(DEFAULT_CONFIG.auxiliary[task]).toEqual({
        provider: "auto",
        model: "",
        base_url: "",
        api_key: "",
        timeout: 0,
        max_tokens: 0,
      });
    }
    expect(DEFAULT_CONFIG.agent.reasoning_effort).toBe("");
  });

  it("merges a per-task override and validates its values", () => {
    const text = [
      "agent:",
      "  reasoning_effort: high",
      "auxiliary:",
      "  compression:",
      "    provider: openrouter",
      "    model: google/gemini-3-flash-preview",
      "    max_tokens: 4096",
      "",
    ].join("\n");
    const { config, warnings } = parseConfigText(text, "c.yaml");
    expect(warnings).toEqual([]);
    expect(config.agent.reasoning_effort).toBe("high");
    expect(config.auxiliary.compression).toMatchObject({
      provider: "openrouter",
      max_tokens: 4096,
      timeout: 0,
    });
    expect(config.auxiliary.vision.provider).toBe("auto");
  });

  it.each([
    ["agent:\n  reasoning_effort: extreme\n", "agent.reasoning_effort"],
    ["auxiliary:\n  vision:\n    provider: bedrock\n", "auxiliary.vision.provider"],
    ["auxiliary:\n  vision:\n    timeout: -1\n", "auxiliary.vision.timeout"],
    ["auxiliary:\n  approval:\n    max_tokens: 1.5\n", "auxiliary.approval.max_tokens"],
  ])("rejects %j", (text, key) => {
    expect(() => parseConfigText(text, "c.yaml")).toThrow(ConfigError);
    try {
      parseConfigText(text, "c.yaml");
    } catch (err) {
      expect((err as ConfigError).key).toBe(key);
    }
  });

  it("warns about an unknown auxiliary task instead of failing", () => {
    const { warnings } = parseConfigText("auxiliary:\n  tts_audio_tags:\n    provider: auto\n", "c.yaml");
    expect(warnings[0]).toContain("auxiliary.tts_audio_tags");
  });
});
