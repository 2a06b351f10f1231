import { describe, expect, it } from "vitest";
import { overheadWarning, toolsetCosts } from "../../../src/agent/compression/overhead.js";
import type { ToolDefinition } from "../../../src/llm/types.js";

const tool = (name: string, size: number): ToolDefinition => ({
  type: "function",
  function: { name, description: "word ".repeat(size), parameters: { type: "object", properties: {} } },
});

describe("fixed request overhead on small windows", () => {
  const tools = [
    tool("browser_navigate", 900),
    tool("browser_click", 900),
    tool("terminal", 400),
    tool("read_file", 100),
    tool("todo", 50),
  ];

  it("ranks toolsets by schema size", () => {
    expect(toolsetCosts(tools).map((c) => c.toolset)).toEqual(["browser", "terminal", "file", "todo"]);
  });

  it("names the largest toolsets when prompt and schemas crowd an 8k window", () => {
    const warning = overheadWarning("You are helpful. ".repeat(100), tools, 8000, 4000);
    expect(warning).toContain("Consider dropping toolsets: browser");
    expect(warning).toContain("terminal");
    expect(warning).toContain("8,000-token context window");
  });

  it("stays quiet when there is room", () => {
    expect(overheadWarning("short", tools, 128_000, 64_000)).toBeUndefined();
  });
});
