import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText, setConfigValue } from "../../src/core/config.js";
import { tempDir } from "../support/temp.js";

/** The ConfigError `fn` throws (fails the test when it throws none). */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("no ConfigError");
}

const errorOf = (text: string): ConfigError => configError(() => parseConfigText(text, "config.yaml"));
const setError = (file: string, key: string, value: unknown): ConfigError =>
  configError(() => setConfigValue(file, key, value));

const lines = (text: string): string[] => text.replace(/\n$/, "").split("\n");

describe("config.yaml errors name the line the mistake is on", () => {
  it.each([
    [
      "a key indented one space too little",
      "model:\n  default: x\n provider: custom\nagent:\n  max_turns: 5\n",
      3,
    ],
    ["a missing space after the colon", "model:\n  default:x\n  provider: custom\n", 2],
    ["a tab as indentation", "model:\n\tdefault: x\n", 2],
    ["a duplicated key", "model:\n  default: x\n  default: y\n", 3],
    ["a flow list left open, more keys after it", "toolsets: [a, b\nagent:\n  max_turns: 5\n", 1],
    ["a flow list left open on the last line", "# notes\n# more notes\nmodel:\n  default: [\n", 4],
    ["a flow mapping left open", "agent: {max_turns: 5\nmodel:\n  default: x\n", 1],
    ["a quote left open", 'model:\n  default: "x\n  provider: custom\nagent:\n  max_turns: 5\n', 2],
    ["a single quote left open", "model:\n  default: 'it''s\n  provider: custom\n", 2],
    ["a quote whose last quote is escaped", 'model:\n  default: "x\\"\n', 2],
    ["CRLF line ends", "model:\r\n  default: x\r\n provider: custom\r\n", 3],
    ["a wrong type", "# settings\nmodel:\n  default: x\n  max_tokens: lots\n", 4],
    ["a key with no value", "agent:\n  max_turns:\n  api_max_retries: 2\n", 2],
    ["a list under its key", "agent:\n  max_turns: 5\ntoolsets:\n  - 5\n", 3],
  ])("%s", (_what, text, line) => {
    const err = errorOf(text);
    expect(err.line).toBe(line);
    expect(err.message.startsWith(`config.yaml:${line}: `)).toBe(true);
    expect(line).toBeLessThanOrEqual(lines(text).length);
  });

  it("a valid quote that ends in an escaped backslash is not mistaken for an open one", () => {
    expect(errorOf('model:\n  default: "x\\\\"\n  max_tokens: lots\n').line).toBe(3);
  });
});

describe("config set never names a line the file does not have", () => {
  it("a bad value for a new key: no line (the file was empty), and the file is untouched", () => {
    const file = join(tempDir("hermes-cfg-"), "config.yaml");
    writeFileSync(file, "");
    const err = setError(file, "agent.max_turns", "abc");
    expect(err.line).toBeUndefined();
    expect(err.message).toBe(
      `${file}: 'agent.max_turns' must be a number, not a string (got "abc"); nothing was changed`,
    );
    expect(readFileSync(file, "utf8")).toBe("");
  });

  it("a bad value for a key already in the file: that key's line in the file as it is", () => {
    const file = join(tempDir("hermes-cfg-"), "config.yaml");
    const text = "# notes\nagent:\n  max_turns: 30\n";
    writeFileSync(file, text);
    const err = setError(file, "agent.max_turns", [1]);
    expect(err.line).toBe(3);
    expect(err.message.startsWith(`${file}:3: 'agent.max_turns' must be a number, not a list`)).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("a bad value elsewhere in the file, moved by the edit: its line before the edit", () => {
    const file = join(tempDir("hermes-cfg-"), "config.yaml");
    // Setting model.default adds a section above agent, so agent's bad line moves in the new text.
    const text = "agent:\n  max_turns: many\n";
    writeFileSync(file, text);
    const err = setError(file, "model.default", "gpt-5");
    expect(err.key).toBe("agent.max_turns");
    expect(err.line).toBe(2);
    expect(err.line).toBeLessThanOrEqual(lines(text).length);
  });

  it("broken YAML in the file: the line of the mistake", () => {
    const file = join(tempDir("hermes-cfg-"), "config.yaml");
    writeFileSync(file, 'model:\n  default: "x\n');
    const err = setError(file, "agent.max_turns", 3);
    expect(err.line).toBe(2);
    expect(err.message).toMatch(/config\.yaml:2: invalid YAML \(Missing closing "quote\); fix it before/);
  });
});
