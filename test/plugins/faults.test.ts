/**
 * A plugin whose hooks keep throwing is disabled for the rest of the process: its hooks leave the
 * bus, its tools the registry, its commands and prompt sections go. Other plugins go on.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { setupPlugins } from "../../src/runtime/plugins.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { tempDir } from "../support/temp.js";
import { configWith, memoryLogger, writePlugin } from "./support.js";

const SHAKY = `name: shaky
entry: index.mjs
tools:
  - name: shaky_tool
    description: A tool of a plugin whose hook throws.
hooks: [post_tool_call, pre_llm_call]
commands:
  - name: ping
prompt_sections: [note]
`;

const SHAKY_ENTRY = `let n = 0;
export default function register(api) {
  api.registerTool({ name: "shaky_tool", handler: () => "shaky ran" });
  api.on("post_tool_call", () => {
    n += 1;
    throw new Error("hook failure " + n);
  });
  api.on("pre_llm_call", (_p, signal) => new Promise((resolve) => signal.addEventListener("abort", resolve)));
  api.registerCommand({ name: "ping", handler: () => "pong" });
  api.registerPromptSection({ id: "note", text: "shaky's note" });
}
`;

const STEADY = "name: steady\nentry: index.mjs\nhooks: [post_tool_call]\n";
const STEADY_ENTRY = `export default function register(api) {
  api.on("post_tool_call", () => { globalThis.__steadyFired = (globalThis.__steadyFired ?? 0) + 1; });
}
`;

function setup(timeoutSeconds = 5) {
  const home = tempDir("hermes-plugin-faults-");
  writePlugin(join(home, "plugins"), "shaky", SHAKY, { "index.mjs": SHAKY_ENTRY });
  writePlugin(join(home, "plugins"), "steady", STEADY, { "index.mjs": STEADY_ENTRY });
  const logger = memoryLogger();
  const base = configWith({ enabled: ["shaky", "steady"] });
  const config = { ...base, hooks: { ...base.hooks, timeout: timeoutSeconds } };
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  const warnings: string[] = [];
  const plugins = setupPlugins({ config, home, cwd: home, env: {}, registry, logger, warnings });
  return { plugins, registry, logger, warnings };
}

const fire = (hooks: ReturnType<typeof setup>["plugins"]["hooks"]) =>
  hooks.emit("post_tool_call", { tool_name: "terminal", args: {}, session_id: "s" });

describe("a plugin that keeps failing", () => {
  it("is disabled after its hook threw three times within a minute; other plugins go on", async () => {
    const { plugins, registry, logger } = setup();
    const g = globalThis as { __steadyFired?: number };
    g.__steadyFired = 0;
    expect(registry.get("shaky_tool")?.toolset).toBe("shaky");
    await fire(plugins.hooks);
    await fire(plugins.hooks);
    expect(plugins.service.get("shaky")?.disabledBecause).toBeUndefined();
    expect(await plugins.promptSections()).toBe("shaky's note");
    await fire(plugins.hooks);

    const shaky = plugins.service.get("shaky")!;
    expect(shaky.disabledBecause).toBe("it failed 3 times within 60 s (last: failed: hook failure 3)");
    expect(logger.records).toContainEqual({
      level: "error",
      msg: "plugin disabled",
      fields: { plugin: "shaky", reason: shaky.disabledBecause },
    });
    expect(registry.get("shaky_tool")).toBeUndefined();
    expect(plugins.hooks.has("pre_llm_call")).toBe(false);
    expect(plugins.service.enabled().map((i) => i.name)).toEqual(["steady"]);
    expect(plugins.service.commands().map((c) => c.name)).toEqual([]);
    expect(await plugins.promptSections()).toBe("");
    expect(
      await plugins.service.runCommand("shaky", "ping", [], { print: () => {}, surface: "cli" }),
    ).toEqual({
      ok: false,
      error: expect.stringContaining("plugin 'shaky' is disabled: it failed 3 times"),
    });

    // The bus still has the other plugin's hook, and it still fires.
    expect(plugins.hooks.has("post_tool_call")).toBe(true);
    await fire(plugins.hooks);
    expect(g.__steadyFired).toBe(4);
    expect(logger.records.filter((r) => r.msg.includes("hook failure"))).toHaveLength(3);
  });

  it("is not disabled by failures spread over more than a minute, nor by hooks that time out", async () => {
    const { plugins } = setup(0.1);
    expect(plugins.service.recordFault("shaky", "one", 0)).toBe(false);
    expect(plugins.service.recordFault("shaky", "two", 1_000)).toBe(false);
    expect(plugins.service.recordFault("shaky", "three", 61_000)).toBe(false);
    expect(plugins.service.get("shaky")?.disabledBecause).toBeUndefined();

    for (let i = 0; i < 3; i++) await plugins.hooks.collectContext({ session_id: "s" });
    expect(plugins.service.get("shaky")?.disabledBecause).toBeUndefined();
    expect(plugins.hooks.has("pre_llm_call")).toBe(true);
  });
});
