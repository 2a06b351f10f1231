import { describe, expect, it } from "vitest";
import { capResult, ToolRegistry } from "../../src/tools/registry.js";

const schema = (description = "d") => ({ description, parameters: { type: "object", properties: {} } });

describe("ToolRegistry", () => {
  it("rejects shadowing another toolset's tool unless override; MCP may replace MCP", () => {
    const r = new ToolRegistry<unknown>();
    expect(r.register({ name: "read_file", toolset: "file", schema: schema(), handler: () => "a" }).ok).toBe(
      true,
    );
    const clash = r.register({
      name: "read_file",
      toolset: "my-plugin",
      schema: schema(),
      handler: () => "b",
    });
    expect(clash.ok).toBe(false);
    expect(r.get("read_file")!.toolset).toBe("file");
    expect(
      r.register({
        name: "read_file",
        toolset: "my-plugin",
        schema: schema(),
        handler: () => "b",
        override: true,
      }).ok,
    ).toBe(true);
    r.register({ name: "search", toolset: "mcp-a", schema: schema(), handler: () => "" });
    expect(r.register({ name: "search", toolset: "mcp-b", schema: schema(), handler: () => "" }).ok).toBe(
      true,
    );
  });

  it("sorts definitions by name and applies dynamic overrides", async () => {
    const r = new ToolRegistry<unknown>();
    let limit = 3;
    r.register({ name: "zeta", toolset: "t", schema: schema(), handler: () => "" });
    r.register({
      name: "alpha",
      toolset: "t",
      schema: schema(),
      handler: () => "",
      dynamicSchemaOverrides: () => ({ description: `up to ${limit}` }),
    });
    const defs = await r.getDefinitions(["zeta", "alpha", "missing"]);
    expect(defs.map((d) => d.function.name)).toEqual(["alpha", "zeta"]);
    expect(defs[0]!.function.description).toBe("up to 3");
    limit = 5;
    r.register({ name: "beta", toolset: "t", schema: schema(), handler: () => "" });
    const again = await r.getDefinitions(["zeta", "alpha"]);
    expect(again[0]!.function.description).toBe("up to 5");
  });

  it("memoises definitions until the generation changes", async () => {
    const r = new ToolRegistry<unknown>();
    r.register({ name: "a", toolset: "t", schema: schema(), handler: () => "" });
    const g = r.generation;
    const first = await r.getDefinitions(["a"]);
    expect(await r.getDefinitions(["a"])).toBe(first);
    r.deregister("a");
    expect(r.generation).toBeGreaterThan(g);
    expect(await r.getDefinitions(["a"])).toEqual([]);
  });

  it("hides tools whose check fails or throws, caching the probe for 30 s", async () => {
    const r = new ToolRegistry<unknown>();
    let calls = 0;
    const check = () => {
      calls += 1;
      throw new Error("docker missing");
    };
    r.register({ name: "x", toolset: "t", schema: schema(), handler: () => "", checkFn: check });
    r.register({ name: "y", toolset: "t", schema: schema(), handler: () => "", checkFn: () => true });
    expect((await r.getDefinitions(["x", "y"])).map((d) => d.function.name)).toEqual(["y"]);
    await r.isAvailable("x");
    expect(calls).toBe(1);
    expect(await r.isAvailable("x", Date.now() + 31_000)).toBe(false);
    expect(calls).toBe(2);
  });

  it("dispatch never throws: unknown tools and handler failures become error JSON", async () => {
    const r = new ToolRegistry<unknown>();
    r.register({
      name: "boom",
      toolset: "t",
      schema: schema(),
      handler: () => {
        throw new TypeError("bad things");
      },
    });
    r.register({
      name: "async_boom",
      toolset: "t",
      schema: schema(),
      handler: async () => Promise.reject("plain string"),
    });
    expect(JSON.parse(await r.dispatch("nope", {}, {})).error).toContain("Unknown tool");
    expect(JSON.parse(await r.dispatch("boom", {}, {})).error).toBe(
      "Tool execution failed: TypeError: bad things",
    );
    expect(JSON.parse(await r.dispatch("async_boom", {}, {})).error).toContain("plain string");
  });

  it("caps long results with a marker", async () => {
    const r = new ToolRegistry<unknown>();
    r.register({
      name: "big",
      toolset: "t",
      schema: schema(),
      handler: () => "x".repeat(5000),
      maxResultChars: 1000,
    });
    const out = await r.dispatch("big", {}, {});
    expect(out.length).toBeLessThan(1200);
    expect(out).toContain("characters truncated");
    expect(capResult("short", 10)).toBe("short");
  });

  it("repairs tool-name case and separators", () => {
    const r = new ToolRegistry<unknown>();
    r.register({ name: "read_file", toolset: "file", schema: schema(), handler: () => "" });
    expect(r.resolveName("Read_File")).toBe("read_file");
    expect(r.resolveName("readFile")).toBe("read_file");
    expect(r.resolveName("write_file")).toBeUndefined();
  });
});
