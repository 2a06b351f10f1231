import { describe, expect, it } from "vitest";
import { parseJsonYielding } from "../../src/core/json-yielding.js";

/** Parses with members split from 8 characters up, so even small texts take the yielding path. */
const parse = (text: string): Promise<unknown> => parseJsonYielding(text, { wholeBelow: 8, sliceMs: 0 });

describe("parseJsonYielding", () => {
  const valid = [
    '{"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null}]}',
    '[1, 2.5, -3e2, true, false, null, "x", [], {}, [ ], { }]',
    '{"a": "brackets ] } [ { and , commas : inside", "b": ["\\"quoted\\"", "back\\\\slash\\\\"]}',
    '  {"nested": {"deeper": {"deepest": [[[["x"]]]]}}, "unicode": "\\u00e9t\\u00e9 ☀"}  ',
    '{"dup": 1, "dup": 2}',
    '"just a long string value of some length"',
    '[{"k": [1, {"j": [2, 3]}]}, {"k": "v"}]',
  ];
  for (const text of valid) {
    it(`returns what JSON.parse returns for ${text.slice(0, 40)}`, async () => {
      expect(await parse(text)).toEqual(JSON.parse(text));
    });
  }

  it("keeps __proto__ as an own property, as JSON.parse does", async () => {
    const text = '{"__proto__": {"polluted": true}, "padding": "xxxxxxxxxxxx"}';
    const value = (await parse(text)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "padding"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const invalid = [
    '{"a": 1,}',
    "[1, 2,]",
    '{"a" 1, "b": 2}',
    '["a": 1, "b"]',
    '{"a": [1, 2}, "b": 3}',
    '{"a": "unterminated, "b": [1]}',
    "[[1, 2], [3, 4]",
    '{"a": 1}}',
    '{"a": 1, "b": nope}',
    "[1 2, 3]",
    '{1: "x", "b": "yyyyyy"}',
  ];
  for (const text of invalid) {
    it(`refuses ${text} as JSON.parse does`, async () => {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      await expect(parse(text)).rejects.toBeInstanceOf(SyntaxError);
    });
  }

  it("parses a large chat body to the same value, giving the event loop turns while it works", async () => {
    const messages = Array.from({ length: 20_000 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `message ${i} with "quotes", brackets [ ] { } and commas, ${"x".repeat(i % 300)}`,
    }));
    const text = JSON.stringify({ model: "m", messages, stream: false });
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const value = await parseJsonYielding(text, { sliceMs: 0 });
    clearInterval(ticker);
    expect(value).toEqual(JSON.parse(text));
    // Timers ran while it parsed: the loop was not held for the whole parse.
    expect(turns).toBeGreaterThan(0);
  });
});
