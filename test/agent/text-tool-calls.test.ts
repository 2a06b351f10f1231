import { describe, expect, it } from "vitest";
import { recoverTextToolCalls } from "../../src/agent/text-tool-calls.js";

const TOOLS = new Set(["read_file", "terminal"]);
const offered = (name: string) => (TOOLS.has(name) ? name : undefined);
const recover = (text: string) => recoverTextToolCalls(text, offered);
const shape = (text: string) =>
  recover(text)?.calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

describe("tool calls written as text", () => {
  it("reads Hermes/Qwen <tool_call> blocks, several, with the prose around them kept", () => {
    const r = recover(
      'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>\n' +
        '<tool_call>{"name": "terminal", "parameters": {"command": "ls"}}</tool_call>',
    );
    expect(r?.content).toBe("Let me look.");
    expect(r?.calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["read_file", { path: "a.txt" }],
      ["terminal", { command: "ls" }],
    ]);
    expect(r?.calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(r?.calls.map((c) => c.id)).size).toBe(2);
  });

  it("accepts an unclosed last tag, string-encoded arguments and repairable JSON", () => {
    expect(shape('<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"b\\"}"}')).toEqual([
      ["read_file", { path: "b" }],
    ]);
    expect(shape('<tool_call>{"name": "read_file", "arguments": {"path": "c",}}</tool_call>')).toEqual([
      ["read_file", { path: "c" }],
    ]);
  });

  it("reads Llama's <|python_tag|> and Mistral's [TOOL_CALLS] forms", () => {
    expect(shape('<|python_tag|>{"name": "terminal", "parameters": {"command": "pwd"}}<|eom_id|>')).toEqual([
      ["terminal", { command: "pwd" }],
    ]);
    expect(shape('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "x"}}]')).toEqual([
      ["read_file", { path: "x" }],
    ]);
  });

  it("reads a reply that is only a call object or list, fenced or not", () => {
    expect(shape('{"name": "read_file", "arguments": {"path": "d"}}')).toEqual([
      ["read_file", { path: "d" }],
    ]);
    expect(shape('```json\n[{"name": "terminal", "arguments": {"command": "id"}}]\n```')).toEqual([
      ["terminal", { command: "id" }],
    ]);
    expect(recover('{"name": "read_file"}')?.calls[0]?.function.arguments).toBe("{}");
  });

  it("leaves ordinary answers alone", () => {
    for (const text of [
      "Use read_file to open it.",
      'Here is the call: {"name": "read_file", "arguments": {"path": "a"}} and that is all.',
      '{"name": "Alice", "arguments": ["one"]}',
      '{"name": "delete_everything", "arguments": {}}',
      '{"name": "read_file", "arguments": {"path": "a"}, "comment": "extra key"}',
      '[{"name": "read_file", "arguments": {}}, {"name": "unknown_tool", "arguments": {}}]',
      "<tool_call>not json at all</tool_call>",
      "[]",
      "",
    ]) {
      expect(recover(text), text).toBeUndefined();
    }
  });
});
