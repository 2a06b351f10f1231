import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { prepareToolCalls } from "../../src/agent/tool-calls.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import type { ToolCall } from "../../src/llm/types.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { scriptedStream } from "../support/scripted-stream.js";
import { tempDir } from "../support/temp.js";

const call = (name: string, args: string): ToolCall => ({
  id: `c_${name}`,
  type: "function",
  function: { name, arguments: args },
});
const registered = new Set(["read_file", "terminal", "delegate_task", "write_file"]);
const resolve = (n: string) => (registered.has(n.toLowerCase()) ? n.toLowerCase() : undefined);
const enabled = new Set(["read_file", "terminal", "write_file"]);
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
    expect(errorOf(p!)).toBe("Unknown tool 'teleport'. Available tools: read_file, terminal, write_file.");
  });

  it("says why a registered tool is disabled here instead of calling it unknown", () => {
    const [p] = prepareToolCalls([call("delegate_task", "{}")], resolve, enabled, (n) => `${n} is off.`);
    expect(errorOf(p!)).toBe("'delegate_task' is not available here: delegate_task is off.");
    const [q] = prepareToolCalls([call("delegate_task", "{}")], resolve, enabled);
    expect(errorOf(q!)).toMatch(/^Unknown tool 'delegate_task'/);
  });

  it.each([
    ["terminall", "terminal"],
    ["read_fiel", "read_file"],
    ["ReadFileTool", "read_file"],
    ["write-file_Tool", "write_file"],
    ['"terminal"', "terminal"],
    ['terminal" parameter="command"', "terminal"],
    ["<terminal>", "terminal"],
    ["functions.terminal:0", "terminal"],
  ])("runs %s as %s and writes the repaired name into the history", (name, tool) => {
    const c = call(name, '{"command": "ls"}');
    const [p] = prepareToolCalls([c], resolve, enabled);
    expect(p).toMatchObject({ toolName: tool, args: { command: "ls" } });
    expect(p!.error).toBeUndefined();
    expect(c.function.name).toBe(tool);
  });

  it("repairs a name only to a tool offered in this request", () => {
    const offered = ["terminal"];
    const [p] = prepareToolCalls([call("read_fiel", "{}")], resolve, enabled, undefined, offered);
    expect(errorOf(p!)).toMatch(/^Unknown tool 'read_fiel'/);
    const [q] = prepareToolCalls([call("terminall", "{}")], resolve, enabled, undefined, offered);
    expect(q!.toolName).toBe("terminal");
  });

  it("tells the model why a decorated name of a disabled tool cannot run", () => {
    const [p] = prepareToolCalls([call('"delegate_task"', "{}")], resolve, enabled, (n) => `${n} is off.`);
    expect(p!.toolName).toBeUndefined();
    expect(errorOf(p!)).toBe("'delegate_task' is not available here: delegate_task is off.");
  });

  it("leaves an ambiguous near miss unknown", () => {
    const names = new Set(["kb_get", "kb_set"]);
    const look = (n: string) => (names.has(n) ? n : undefined);
    const [p] = prepareToolCalls([call("kb_aet", "{}")], look, names);
    expect(p!.toolName).toBeUndefined();
    expect(errorOf(p!)).toBe("Unknown tool 'kb_aet'. Available tools: kb_get, kb_set.");
  });

  it("fails arguments cut off inside a value and stores {} in the history", () => {
    const c = call("terminal", '{"command": "git clone ht');
    const [p] = prepareToolCalls([c], resolve, enabled);
    expect(p).toMatchObject({ toolName: "terminal", args: {}, argsRepaired: true });
    expect(errorOf(p!)).toMatch(/^The arguments for 'terminal' were cut off after 25 characters/);
    expect(errorOf(p!)).toContain('They ended with: {"command": "git clone ht.');
    expect(errorOf(p!)).toContain("output token limit");
    expect(errorOf(p!)).toContain("Send the complete call again");
    expect(c.function.arguments).toBe("{}");
  });

  it("quotes only the end of a long cut-off call", () => {
    const raw = `{"path": "big.txt", "content": "${"x".repeat(5000)}`;
    const [p] = prepareToolCalls([call("write_file", raw)], resolve, enabled);
    const error = errorOf(p!)!;
    expect(error).toContain(`cut off after ${raw.length} characters`);
    expect(error).toContain(`They ended with: ...${"x".repeat(80)}.`);
    expect(error.length).toBeLessThan(500);
  });

  it("fails arguments cut off mid-array or with a brace left open, instead of closing them by guess", () => {
    for (const raw of ['{"command": "rm", "args": ["-rf", "build"', '{"command": "ls", "background": true']) {
      const c = call("terminal", raw);
      const [p] = prepareToolCalls([c], resolve, enabled);
      expect(p).toMatchObject({ toolName: "terminal", args: {}, argsRepaired: true });
      expect(errorOf(p!)).toMatch(/^The arguments for 'terminal' were cut off after \d+ characters/);
      expect(c.function.arguments).toBe("{}");
    }
  });

  it("fails arguments whose brackets do not match and says they were malformed", () => {
    for (const raw of ['{"paths": ["a.txt", "b.txt"}', '{"command": "ls"}}']) {
      const [p] = prepareToolCalls([call("terminal", raw)], resolve, enabled);
      expect(p).toMatchObject({ args: {}, argsRepaired: true });
      expect(errorOf(p!)).toMatch(
        /^The arguments for 'terminal' were malformed: a closing bracket does not match/,
      );
      expect(errorOf(p!)).toContain("Send the call again");
    }
  });

  it("keeps the invalid-JSON answer for text that is broken but not cut off", () => {
    const [p] = prepareToolCalls([call("terminal", '{"command": "ls" "x": 1}')], resolve, enabled);
    expect(errorOf(p!)).toMatch(
      /^The arguments for 'terminal' were not valid JSON and could not be repaired/,
    );
  });
});

describe("a cut-off tool call in the agent loop", () => {
  it("never reaches the tool's handler and the model hears that it was cut off", async () => {
    const home = tempDir("hermes-cutoff-");
    const ran: unknown[] = [];
    const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
    registry.register({
      name: "terminal",
      toolset: "t",
      schema: {
        description: "run",
        parameters: { type: "object", properties: { command: { type: "string" } } },
      },
      handler: (args) => {
        ran.push(args);
        return JSON.stringify({ output: "ran", exit_code: 0 });
      },
    });
    const environments = createLocalEnvironmentProvider({ cwd: home, home });
    const stream = scriptedStream([
      { toolCalls: [{ name: "terminal", arguments: '{"command": "git clone ht' }] },
      {
        toolCalls: [
          {
            name: "terminal",
            arguments: '{"command": "git clone https://example.invalid/r", "args": ["--depth"',
          },
        ],
      },
      {
        toolCalls: [
          { name: "Terminal_tool", arguments: '{"command": "git clone https://example.invalid/r"}' },
        ],
      },
      { text: "cloned" },
    ]);
    const agent = new Agent({
      target: {
        provider: "custom",
        apiMode: "chat_completions",
        model: "m",
        baseUrl: "http://127.0.0.1:1/v1",
        apiKey: "k",
      },
      registry,
      toolNames: new Set(["terminal"]),
      config: structuredClone(DEFAULT_CONFIG),
      home,
      environments,
      streamFn: stream.streamFn,
    });
    try {
      const r = await agent.runConversation("clone it");
      expect(r.status).toBe("completed");
    } finally {
      await environments.disposeAll();
    }
    // Only the resent, complete call ran (under its repaired name).
    expect(ran).toEqual([{ command: "git clone https://example.invalid/r" }]);
    const second = JSON.parse(stream.snapshots[1]!) as Array<Record<string, unknown>>;
    const assistant = second.find((m) => m.role === "assistant") as { tool_calls: ToolCall[] };
    expect(assistant.tool_calls[0]!.function).toEqual({ name: "terminal", arguments: "{}" });
    const result = second.find((m) => m.role === "tool") as { content: string };
    expect(JSON.parse(result.content).error).toMatch(/^The arguments for 'terminal' were cut off/);
    // The call cut mid-array did not run either, and its history entry is valid JSON.
    const third = JSON.parse(stream.snapshots[2]!) as Array<Record<string, unknown>>;
    const midArray = third.filter((m) => m.role === "assistant")[1] as { tool_calls: ToolCall[] };
    expect(midArray.tool_calls[0]!.function).toEqual({ name: "terminal", arguments: "{}" });
    const fourth = JSON.parse(stream.snapshots[3]!) as Array<Record<string, unknown>>;
    const repairedCall = fourth.filter((m) => m.role === "assistant")[2] as { tool_calls: ToolCall[] };
    expect(repairedCall.tool_calls[0]!.function.name).toBe("terminal");
  });
});
