import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/tools/registry.js";
import {
  createToolSelector,
  getAllToolsets,
  HERMES_CORE_TOOLS,
  resolveToolset,
  selectTools,
  TOOLSETS,
} from "../../src/tools/toolsets.js";

const reg = () => {
  const r = new ToolRegistry<unknown>();
  const schema = { description: "d", parameters: { type: "object", properties: {} } };
  r.register({ name: "terminal", toolset: "terminal", schema, handler: () => "" });
  r.register({ name: "my_plugin_tool", toolset: "my-plugin", schema, handler: () => "" });
  r.register({ name: "extra_file_tool", toolset: "file", schema, handler: () => "" });
  return r;
};

describe("toolsets", () => {
  it("expands includes recursively", () => {
    const tools = resolveToolset("debugging");
    expect(tools).toEqual(
      expect.arrayContaining(["terminal", "process", "web_search", "read_file", "patch"]),
    );
  });

  it("maps legacy *_tools names", () => {
    expect(resolveToolset("file_tools").sort()).toEqual([...TOOLSETS.file!.tools].sort());
  });

  it("merges registry-only toolsets and registry tools tagged with a static toolset", () => {
    const r = reg();
    expect(Object.keys(getAllToolsets(r))).toContain("my-plugin");
    expect(resolveToolset("my-plugin", r)).toEqual(["my_plugin_tool"]);
    expect(resolveToolset("file", r)).toContain("extra_file_tool");
  });

  it("platform presets carry the core tools", () => {
    expect(resolveToolset("hermes-cli")).toEqual(expect.arrayContaining([...HERMES_CORE_TOOLS]));
    expect(resolveToolset("hermes-api-server")).not.toContain("clarify");
  });

  it("subtracts disabled toolsets and reports unknown names", () => {
    const sel = selectTools(["hermes-cli", "nope"], ["terminal"], reg());
    expect(sel.tools.has("terminal")).toBe(false);
    expect(sel.tools.has("read_file")).toBe(true);
    expect(sel.unknown).toEqual(["nope"]);
  });

  it("all and * cover every toolset", () => {
    const all = resolveToolset("all", reg());
    expect(all).toEqual(expect.arrayContaining(["my_plugin_tool", "terminal", "delegate_task"]));
    expect(resolveToolset("*", reg()).sort()).toEqual([...all].sort());
  });

  it("a selector answers from the registry's current contents, recomputing only when it changed", () => {
    const r = reg();
    const select = createToolSelector(["file", "mcp-late"], ["terminal"], r);
    const before = select();
    expect(before.tools.has("extra_file_tool")).toBe(true);
    expect(before.unknown).toEqual(["mcp-late"]);
    expect(select()).toBe(before);
    const schema = { description: "d", parameters: { type: "object", properties: {} } };
    r.register({ name: "late_lookup", toolset: "mcp-late", schema, handler: () => "" });
    r.register({ name: "late_shell", toolset: "terminal", schema, handler: () => "" });
    const after = select();
    expect(after).not.toBe(before);
    expect(after.tools.has("late_lookup")).toBe(true);
    expect(after.tools.has("late_shell")).toBe(false);
    expect(after.unknown).toEqual([]);
    expect(before.tools.has("late_lookup")).toBe(false);
  });
});
