import { describe, expect, it } from "vitest";
import { repairToolArguments } from "../../src/llm/json-repair.js";

const cases: {
  name: string;
  raw: string;
  args: Record<string, unknown>;
  repaired: boolean;
  fallback?: boolean;
}[] = [
  {
    name: "valid object",
    raw: '{"path": "a.txt", "limit": 10}',
    args: { path: "a.txt", limit: 10 },
    repaired: false,
  },
  { name: "empty string", raw: "", args: {}, repaired: false },
  { name: "whitespace only", raw: "  \n\t ", args: {}, repaired: false },
  {
    name: "raw newline inside a string",
    raw: '{"content": "line1\nline2"}',
    args: { content: "line1\nline2" },
    repaired: true,
  },
  { name: "raw tab and control char", raw: '{"a": "x\ty\u0001"}', args: { a: "x\ty\u0001" }, repaired: true },
  { name: "trailing comma in object", raw: '{"a": 1, "b": 2,}', args: { a: 1, b: 2 }, repaired: true },
  { name: "trailing comma in array", raw: '{"a": [1, 2, ], }', args: { a: [1, 2] }, repaired: true },
  { name: "truncated after a comma", raw: '{"path": "a.txt",', args: { path: "a.txt" }, repaired: true },
  { name: "unclosed string", raw: '{"command": "ls -la', args: { command: "ls -la" }, repaired: true },
  {
    name: "unclosed nested structures",
    raw: '{"a": {"b": [1, 2',
    args: { a: { b: [1, 2] } },
    repaired: true,
  },
  { name: "closer of the wrong kind", raw: '{"a": [1, 2}', args: { a: [1, 2] }, repaired: true },
  { name: "excess closing braces", raw: '{"a": 1}}}', args: { a: 1 }, repaired: true },
  { name: "dangling key", raw: '{"a": 1, "b"', args: { a: 1 }, repaired: true },
  { name: "dangling colon", raw: '{"a": 1, "b":', args: { a: 1, b: null }, repaired: true },
  { name: "truncated literal", raw: '{"a": 1, "b": tru', args: { a: 1 }, repaired: true },
  {
    name: "python literals",
    raw: '{"a": True, "b": None, "c": False}',
    args: { a: true, b: null, c: false },
    repaired: true,
  },
  {
    name: "single quotes",
    raw: "{'path': 'it\\'s \"here\"'}",
    args: { path: 'it\'s "here"' },
    repaired: true,
  },
  { name: "markdown code fence", raw: '```json\n{"a": 1}\n```', args: { a: 1 }, repaired: true },
  { name: "double-encoded object", raw: '"{\\"a\\": 1}"', args: { a: 1 }, repaired: true },
  { name: "invalid escape kept literally", raw: '{"p": "C:\\dir"}', args: { p: "C:\\dir" }, repaired: true },
  { name: "array is not an object", raw: "[1, 2]", args: {}, repaired: true, fallback: true },
  { name: "string is not an object", raw: '"hello"', args: {}, repaired: true, fallback: true },
  { name: "null", raw: "null", args: {}, repaired: true, fallback: true },
  { name: "garbage", raw: "not json at all", args: {}, repaired: true, fallback: true },
  { name: "lone closer", raw: "}", args: {}, repaired: true, fallback: true },
];

describe("repairToolArguments", () => {
  it.each(cases)("$name", ({ raw, args, repaired, fallback = false }) => {
    expect(repairToolArguments(raw)).toEqual({ args, repaired, fallback });
  });

  it("gives up on pathological runs of closers without throwing", () => {
    const result = repairToolArguments(`{"a": 1${"}".repeat(200)}`);
    expect(result).toEqual({ args: {}, repaired: true, fallback: true });
  });

  it("never throws on arbitrary prefixes of a valid document", () => {
    const doc = '{"path": "src/a.ts", "edits": [{"old": "x\\n", "new": "y"}], "dry": false, "n": -1.5e3}';
    for (let i = 0; i <= doc.length; i++) {
      const result = repairToolArguments(doc.slice(0, i));
      expect(typeof result.args).toBe("object");
      expect(Array.isArray(result.args)).toBe(false);
    }
  });
});
