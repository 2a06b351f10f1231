/**
 * Structured tool results: handlers may return a plain string (unchanged, byte for byte) or a
 * ToolResult with content blocks, an error flag and details; the registry normalises both.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { ToolOutput } from "../../src/tools/result.js";
import { createHarness, type ToolHarness } from "./helpers.js";

const PNG = Buffer.from("fake png bytes").toString("base64");
const schema = { description: "d", parameters: { type: "object", properties: {} } };

function registryReturning(out: ToolOutput | Record<string, unknown>, maxResultChars?: number) {
  const registry = new ToolRegistry<unknown>();
  registry.register({
    name: "t",
    toolset: "t",
    schema,
    handler: () => out as ToolOutput,
    ...(maxResultChars ? { maxResultChars } : {}),
  });
  return registry;
}

describe("tool results", () => {
  it("keeps a string result's text exactly, with the error convention as its flag", async () => {
    const text = '{"output":"ünïcode\\n","exit_code":0}  ';
    const ok = await registryReturning(text).dispatchResult("t", {}, {});
    expect(ok).toEqual({ content: [{ type: "text", text }] });
    expect(await registryReturning(text).dispatch("t", {}, {})).toBe(text);
    const failed = await registryReturning('{"error": "no such file"}').dispatchResult("t", {}, {});
    expect(failed.isError).toBe(true);
    // An object from a careless handler is its JSON, as before.
    expect(await registryReturning({ a: 1 }).dispatch("t", {}, {})).toBe('{"a":1}');
  });

  it("passes a ToolResult through: text joined for the model, images, links and details kept", async () => {
    const registry = registryReturning({
      content: [
        { type: "text", text: "Screenshot taken." },
        { type: "image", mimeType: "image/png", data: PNG },
        { type: "resource_link", uri: "file:///tmp/shot.png", name: "shot.png", mimeType: "image/png" },
        { type: "text", text: "Page: example" },
      ],
      details: { url: "https://example.com" },
    });
    const result = await registry.dispatchResult("t", {}, {});
    expect(result.isError).toBeUndefined();
    expect(result.details).toEqual({ url: "https://example.com" });
    expect(result.content.filter((b) => b.type === "image")).toEqual([
      { type: "image", mimeType: "image/png", data: PNG },
    ]);
    expect(await registry.dispatch("t", {}, {})).toBe(
      "Screenshot taken.\n[resource: shot.png file:///tmp/shot.png (image/png)]\nPage: example",
    );
  });

  it("keeps an explicit error flag on plain text", async () => {
    const result = await registryReturning({
      content: [{ type: "text", text: "Server refused: quota exceeded" }],
      isError: true,
    }).dispatchResult("t", {}, {});
    expect(result.isError).toBe(true);
  });

  it("caps a long ToolResult's text and keeps its images", async () => {
    const registry = registryReturning(
      {
        content: [
          { type: "text", text: "x".repeat(5000) },
          { type: "image", mimeType: "image/jpeg", data: PNG },
        ],
      },
      1000,
    );
    const result = await registry.dispatchResult("t", {}, {});
    const [text, image] = result.content;
    expect(text?.type === "text" && text.text).toContain("characters truncated");
    expect(text?.type === "text" && text.text.length).toBeLessThan(1200);
    expect(image).toEqual({ type: "image", mimeType: "image/jpeg", data: PNG });
  });
});

describe("terminal's exit code", () => {
  let h: ToolHarness | undefined;
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it("is a structured detail beside the unchanged JSON text", async () => {
    h = await createHarness();
    const failed = await h.registry.dispatchResult("terminal", { command: "echo nope; exit 3" }, h.ctx);
    expect(failed.details).toEqual({ exitCode: 3 });
    // A command that fails is no tool error: the model reads its output and exit code.
    expect(failed.isError).toBeUndefined();
    const text = failed.content[0]?.type === "text" ? failed.content[0].text : "";
    expect(JSON.parse(text)).toMatchObject({ output: "nope\n", exit_code: 3 });
    const ok = await h.registry.dispatchResult("terminal", { command: "true" }, h.ctx);
    expect(ok.details).toEqual({ exitCode: 0 });
    expect(await h.registry.dispatch("terminal", { command: "echo hi" }, h.ctx)).toBe(
      JSON.stringify({ output: "hi\n", exit_code: 0, cwd: h.root }),
    );
  });
});
