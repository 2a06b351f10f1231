import { describe, expect, it } from "vitest";
import { prepareToolCalls } from "../../src/agent/tool-calls.js";
import type { ToolCall } from "../../src/llm/types.js";

const call = (name: string, args: string): ToolCall => ({
  id: `c_${name}`,
  type: "function",
  function: { name, arguments: args },
});
const registered = new Set(["read_file", "terminal", "delegate_task"]);
const resolve = (n: string) => (registered.has(n.toLowerCase()) ? n.toLowerCase() : undefined);
const enabled = new Set(["read_file", "terminal"]);
const errorOf = (p: { error?: string }) => (JSON.parse(p.error ?? "{}") as { error?: string }).error;

describe("prepareToolCalls", () => {
  it("maps a misspelt name to the tool and repairs broken argument JSON in place", () => {
    const c = call("Read_File", '{"path": "a.txt",}');
    const [p] = prepareToolCalls([c], resolve, enabled);
    expect(p).toMatchObject({ toolName: "read_file", args: { path: "a.txt" }, argsRepaired: true });
    expect(c.function).toEqual({ name: "read_file", arguments: '{"path":"a.txt"}' });
  });

  it("answers an unknown tool with the available ones", () => {
    const [p] = prepareToolCalls([call("teleport", "{}")], resolve, enabled);
    expect(errorOf(p!)).toBe("Unknown tool 'teleport'. Available tools: read_file, terminal.");
  });

  it("says why a registered tool is disabled here instead of calling it unknown", () => {
    const [p] = prepareToolCalls([call("delegate_task", "{}")], resolve, enabled, (n) => `${n} is off.`);
    expect(errorOf(p!)).toBe("'delegate_task' is not available here: delegate_task is off.");
    const [q] = prepareToolCalls([call("delegate_task", "{}")], resolve, enabled);
    expect(errorOf(q!)).toMatch(/^Unknown tool 'delegate_task'/);
  });
});
