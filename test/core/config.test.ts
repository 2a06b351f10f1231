import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  DEFAULT_CONFIG,
  deepMerge,
  loadConfig,
  parseConfigText,
  setConfigValue,
} from "../../src/core/config.js";
import { tempDir } from "../support/temp.js";

const tmp = () => tempDir("hermes-config-");

describe("config", () => {
  it("uses documented defaults when config.yaml is missing", () => {
    const { config } = loadConfig(join(tmp(), "config.yaml"));
    expect(config.agent.max_turns).toBe(90);
    expect(config.terminal.timeout).toBe(180);
    expect(config.model.provider).toBe("auto");
    expect(config.toolsets).toEqual(["hermes-cli"]);
  });

  it("deep-merges user values over defaults and replaces lists", () => {
    const { config } = parseConfigText("agent:\n  max_turns: 12\ntoolsets: [file]\n", "c.yaml");
    expect(config.agent.max_turns).toBe(12);
    expect(config.agent.disabled_toolsets).toEqual([]);
    expect(config.toolsets).toEqual(["file"]);
    expect(deepMerge({ a: { b: 1, c: 2 } }, { a: { c: 3 } })).toEqual({ a: { b: 1, c: 3 } });
  });

  it("takes gateway settings: numeric Telegram ids unquoted, busy_mode from its set", () => {
    const { config } = parseConfigText(
      "platforms:\n  telegram:\n    allowed_users: [123456789, '@alice']\ngateway:\n  busy_mode: steer\n",
      "c.yaml",
    );
    expect(config.platforms.telegram.allowed_users).toEqual([123456789, "@alice"]);
    expect(config.gateway.busy_mode).toBe("steer");
    expect(config.platforms.api_server.port).toBe(8642);
    expect(() => parseConfigText("gateway:\n  busy_mode: later\n", "c.yaml")).toThrow(/busy_mode.*queue/);
    expect(() => parseConfigText("platforms:\n  telegram:\n    allowed_users: [{a: 1}]\n", "c.yaml")).toThrow(
      /allowed_users/,
    );
  });

  it("accepts the model shorthand string", () => {
    const { config } = parseConfigText("model: anthropic/claude-sonnet-4.5\n", "c.yaml");
    expect(config.model.default).toBe("anthropic/claude-sonnet-4.5");
    expect(config.model.provider).toBe("auto");
  });

  it("names the key and the line of a bad value", () => {
    const text = "# settings\nmodel:\n  default: x\n  max_tokens: lots\n";
    let caught: unknown;
    try {
      parseConfigText(text, "/h/config.yaml");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const e = caught as ConfigError;
    expect(e.key).toBe("model.max_tokens");
    expect(e.line).toBe(4);
    expect(e.message).toContain("/h/config.yaml:4");
    expect(e.message).toContain("model.max_tokens");
  });

  it("rejects values outside the allowed set with the choices listed", () => {
    expect(() => parseConfigText("model:\n  provider: banana\n", "c.yaml")).toThrow(/one of "auto"/);
    expect(() => parseConfigText("prompt_caching:\n  cache_ttl: 2h\n", "c.yaml")).toThrow(/cache_ttl/);
    expect(() => parseConfigText("agent:\n  max_turns: 0\n", "c.yaml")).toThrow(/integer >= 1/);
  });

  it("reports broken YAML with its line", () => {
    expect(() => parseConfigText("model:\n  default: [unclosed\n", "c.yaml")).toThrow(
      /c\.yaml:\d+: invalid YAML/,
    );
    expect(() => parseConfigText("- a\n- b\n", "c.yaml")).toThrow(/top level must be a mapping/);
  });

  it("warns about unknown keys instead of failing", () => {
    const { warnings } = parseConfigText("future_feature: true\nagent:\n  nope: 1\n", "c.yaml");
    expect(warnings.join("\n")).toContain("future_feature");
    expect(warnings.join("\n")).toContain("agent.nope");
  });

  it("config set keeps comments, validates, and never corrupts the file on bad input", () => {
    const dir = tmp();
    const file = join(dir, "config.yaml");
    writeFileSync(file, "# my notes\nagent:\n  max_turns: 30 # keep low\n");
    setConfigValue(file, "model.default", "gpt-5");
    setConfigValue(file, "agent.max_turns", 44);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("# my notes");
    expect(loadConfig(file).config.agent.max_turns).toBe(44);
    expect(loadConfig(file).config.model.default).toBe("gpt-5");
    expect(() => setConfigValue(file, "agent.max_turns", "many")).toThrow(ConfigError);
    expect(() => setConfigValue(file, "no.such.key", 1)).toThrow(/unknown config key/);
    expect(readFileSync(file, "utf8")).toBe(readFileSync(file, "utf8"));
    expect(loadConfig(file).config.agent.max_turns).toBe(44);
  });

  it("keeps DEFAULT_CONFIG immutable across loads", () => {
    const a = loadConfig(join(tmp(), "none.yaml")).config;
    a.toolsets.push("x");
    expect(DEFAULT_CONFIG.toolsets).toEqual(["hermes-cli"]);
  });
});
