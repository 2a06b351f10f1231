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
  { name: "trailing comma after the object", raw: '{"a": 1},', args: { a: 1 }, repaired: true },
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
  {
    name: "unquoted keys",
    raw: '{path: "a.txt", max_lines: 5}',
    args: { path: "a.txt", max_lines: 5 },
    repaired: true,
  },
  { name: "markdown code fence", raw: '```json\n{"a": 1}\n```', args: { a: 1 }, repaired: true },
  { name: "double-encoded object", raw: '"{\\"a\\": 1}"', args: { a: 1 }, repaired: true },
  { name: "invalid escape kept literally", raw: '{"p": "C:\\dir"}', args: { p: "C:\\dir" }, repaired: true },
  { name: "array is not an object", raw: "[1, 2]", args: {}, repaired: true, fallback: true },
  { name: "string is not an object", raw: '"hello"', args: {}, repaired: true, fallback: true },
  { name: "null", raw: "null", args: {}, repaired: true, fallback: true },
  { name: "garbage", raw: "not json at all", args: {}, repaired: true, fallback: true },
  { name: "a bare word", raw: "truncated", args: {}, repaired: true, fallback: true },
  {
    name: "a member missing its comma is not dropped",
    raw: '{"a": 1, "b": 2 "c": 3}',
    args: {},
    repaired: true,
    fallback: true,
  },
];

/** Text that stops inside a value or with brackets left open: none of these may come back as arguments to run. */
const cutOff: { name: string; raw: string }[] = [
  { name: "cut after a comma", raw: '{"path": "a.txt",' },
  { name: "missing final brace", raw: '{"path": "a.txt"' },
  { name: "missing final brace after a literal", raw: '{"command": "ls", "background": true' },
  { name: "unclosed nested structures", raw: '{"a": {"b": [1, 2' },
  { name: "cut mid-array", raw: '{"command": "rm", "args": ["-rf", "build"' },
  { name: "cut mid-array after a comma", raw: '{"paths": ["a.txt", "b.txt",' },
  { name: "unclosed list of complete objects", raw: '{"edits": [{"old": "x", "new": "y"},' },
  { name: "empty structures left open", raw: '{"a": [' },
  { name: "command cut mid-string", raw: '{"command": "git clone ht' },
  { name: "second member cut mid-string", raw: '{"path": "a.txt", "content": "line1\nline2' },
  { name: "string ending in a backslash", raw: '{"content": "say \\' },
  { name: "string ending inside a unicode escape", raw: '{"a": "caf\\u00' },
  { name: "string inside nested structures", raw: '{"edits": [{"old": "x", "new": "y' },
  { name: "key cut mid-string", raw: '{"path": "a", "cont' },
  { name: "single-quoted string", raw: "{'command': 'rm -rf bu" },
  { name: "fenced and cut", raw: '```json\n{"command": "git clo' },
  { name: "double-encoded, outer string cut", raw: '"{\\"command\\": \\"git clo' },
  { name: "double-encoded, inner text cut", raw: '"{\\"command\\": \\"git clo"' },
  { name: "key without its value", raw: '{"a": 1, "b"' },
  { name: "colon without its value", raw: '{"a": 1, "b":' },
  { name: "first value missing", raw: '{"a": ' },
  { name: "nested value missing", raw: '{"a": [{"b": ' },
  { name: "unquoted key at the end", raw: '{"a": 1, pa' },
  { name: "half a true", raw: '{"a": 1, "b": tru' },
  { name: "half a null", raw: '{"a": nul' },
  { name: "half a Python False", raw: '{"a": Fals' },
  { name: "a lone minus", raw: '{"n": -' },
  { name: "a number ending in a point", raw: '{"n": 1.' },
  { name: "a number ending in an exponent", raw: '{"n": 2e' },
];

/** Brackets that do not pair up: where a structure was meant to end cannot be known. */
const mismatched: { name: string; raw: string }[] = [
  { name: "closer of the wrong kind", raw: '{"a": [1, 2}' },
  { name: "array of objects closed by a brace", raw: '{"edits": [{"path": "a.py"}, {"path": "b.py"}}' },
  { name: "misnested closers", raw: '{"a": [{"b": 1}, {"c": 2}}]}' },
  { name: "excess closing braces", raw: '{"a": 1}}}' },
  { name: "excess closer inside", raw: '{"a": [1, 2]], "b": 3}' },
  { name: "lone closer", raw: "}" },
  { name: "fenced, with a closer too many", raw: '```json\n{"a": 1}}\n```' },
];

describe("repairToolArguments", () => {
  it.each(cases)("$name", ({ raw, args, repaired, fallback = false }) => {
    expect(repairToolArguments(raw)).toEqual({
      args,
      repaired,
      fallback,
      truncated: false,
      mismatched: false,
    });
  });

  it.each(cutOff)("refuses to finish it: $name", ({ raw }) => {
    expect(repairToolArguments(raw)).toEqual({
      args: {},
      repaired: true,
      fallback: true,
      truncated: true,
      mismatched: false,
    });
  });

  it.each(mismatched)("refuses to guess where it ends: $name", ({ raw }) => {
    expect(repairToolArguments(raw)).toEqual({
      args: {},
      repaired: true,
      fallback: true,
      truncated: false,
      mismatched: true,
    });
  });

  it("gives up on pathological runs of brackets without throwing", () => {
    expect(repairToolArguments(`{"a": 1${"}".repeat(200)}`)).toMatchObject({
      fallback: true,
      mismatched: true,
    });
    expect(repairToolArguments(`{"a": ${"[".repeat(5000)}`)).toMatchObject({
      fallback: true,
      truncated: true,
    });
  });

  it("never turns a prefix of a document into a string the document does not hold", () => {
    const doc =
      '{"path": "src/a.ts", "edits": [{"old": "x\\n", "new": "y \\"q\\" \\u00e9"}], "dry": false, "n": -1.5e3}';
    const whole = stringsIn(JSON.parse(doc));
    let insideString = false;
    let escaped = false;
    let truncatedCount = 0;
    for (let i = 0; i <= doc.length; i++) {
      const result = repairToolArguments(doc.slice(0, i));
      expect(Array.isArray(result.args)).toBe(false);
      if (insideString) expect(result.truncated, `prefix ${i} ends inside a string`).toBe(true);
      if (result.truncated) truncatedCount++;
      else for (const s of stringsIn(result.args)) expect(whole).toContain(s);
      const c = doc[i];
      if (escaped) escaped = false;
      else if (insideString && c === "\\") escaped = true;
      else if (c === '"') insideString = !insideString;
    }
    // Every prefix but the whole document leaves a bracket open.
    expect(truncatedCount).toBe(doc.length - 1);
  });
});

/** Every key and string value anywhere in `value`. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => [k, ...stringsIn(v)]);
  return [];
}
