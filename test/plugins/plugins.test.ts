import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HookBus, type HookProblem } from "../../src/agent/hooks.js";
import { discoverPlugins } from "../../src/plugins/discovery.js";
import { parseManifest } from "../../src/plugins/manifest.js";
import { PluginService } from "../../src/plugins/service.js";
import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { tempDir } from "../support/temp.js";
import { configWith, entryModule, memoryLogger, writePlugin } from "./support.js";

const WEATHER = `name: weather
version: 1.2.0
description: Weather lookups
entry: index.mjs
tools:
  - name: weather_now
    description: Current weather for a city.
    parameters:
      type: object
      properties:
        city: {type: string}
      required: [city]
  - name: weather_raw
    description: The station's raw reading.
hooks: [post_tool_call]
commands:
  - name: stations
    description: List the stations.
prompt_sections: [units]
`;

const WEATHER_ENTRY = entryModule(`
  api.registerTool({ name: "weather_now", handler: ({ city }, ctx) => ({ city, temp: 21, session: ctx.sessionId, units: api.config.units }) });
  api.registerTool({ name: "weather_raw", handler: () => { throw new Error("station offline"); } });
  api.on("post_tool_call", (p) => { globalThis.__weatherSeen = [...(globalThis.__weatherSeen ?? []), p.tool_name]; });
  api.registerCommand({ name: "stations", handler: (args, ctx) => { ctx.print("KSFO"); return "KJFK " + args.join(","); } });
  api.registerPromptSection({ id: "units", text: () => "Give temperatures in " + api.config.units + "." });
`);

function ctxFor(dir: string): ToolContext {
  return {
    sessionId: "sess-1",
    taskId: "task-1",
    platform: "cli",
    signal: new AbortController().signal,
    env: { getCwd: () => dir },
  } as unknown as ToolContext;
}

function homeWithWeather(enabled = ["weather"]) {
  const home = tempDir("hermes-plugins-");
  const dir = writePlugin(join(home, "plugins"), "weather", WEATHER, { "index.mjs": WEATHER_ENTRY });
  const logger = memoryLogger();
  const config = configWith({ enabled, config: { weather: { units: "celsius" } } });
  const service = new PluginService({ home, cwd: home, env: {}, config, logger });
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  service.registerTools(registry);
  const problems: HookProblem[] = [];
  const hooks = new HookBus({ timeoutMs: 5000, report: (p) => problems.push(p) });
  service.attachHooks(hooks);
  return {
    home,
    dir,
    service,
    registry,
    hooks,
    problems,
    logger,
    imported: () => existsSync(join(dir, "imported.txt")),
  };
}

describe("plugin.yaml", () => {
  const parse = (yaml: Record<string, unknown>) => () => parseManifest(yaml, "folder");

  it("defaults the name to the folder, the version, descriptions and empty schemas", () => {
    const m = parseManifest({ entry: "index.js", tools: [{ name: "t1" }] }, "my-plugin");
    expect(m).toMatchObject({ name: "my-plugin", version: "0.0.0", hooks: [], commands: [] });
    expect(m.tools[0]).toEqual({
      name: "t1",
      description: "Tool 't1' of the plugin 'my-plugin'.",
      parameters: { type: "object", properties: {} },
      toolset: "my-plugin",
    });
  });

  it("refuses what would break at run time, saying what is wrong", () => {
    expect(parse({ entry: "index.ts", tools: [{ name: "a" }] })).toThrow(/compiled JavaScript/);
    expect(parse({ entry: "../escape.js" })).toThrow(/inside the plugin's folder/);
    expect(parse({ tools: [{ name: "a" }] })).toThrow(/'entry' is missing/);
    expect(parse({ entry: "i.js", hooks: ["before_tool"] })).toThrow(/'before_tool' is not a hook/);
    expect(parse({ entry: "i.js", tools: [{ name: "bad name" }] })).toThrow(/name 'bad name'/);
    expect(parse({ entry: "i.js", tools: [{ name: "a" }, { name: "a" }] })).toThrow(/listed twice/);
    expect(parse({ entry: "i.js", tools: [{ name: "a", parameters: { type: "string" } }] })).toThrow(
      /type object/,
    );
    expect(parse({ name: "Bad Name" })).toThrow(/lowercase/);
  });
});

describe("plugin discovery", () => {
  it("a plugin loads once enabled, plugins.disabled wins, a broken one says why", () => {
    const home = tempDir("hermes-discover-");
    const root = join(home, "plugins");
    writePlugin(root, "alpha", "name: alpha\n");
    writePlugin(root, "beta", "name: beta\n");
    writePlugin(root, "gamma", "name: gamma\n");
    writePlugin(root, "broken", "name: broken\nentry: main.js\ntools: [{name: x}]\n");
    const found = discoverPlugins({
      home,
      cwd: home,
      env: {},
      settings: configWith({ enabled: ["alpha", "beta", "broken"], disabled: ["beta"] }).plugins,
    });
    expect(found.map((p) => [p.name, p.state])).toEqual([
      ["alpha", "enabled"],
      ["beta", "disabled"],
      ["broken", "invalid"],
      ["gamma", "available"],
    ]);
    expect(found[2]?.problem).toBe("entry 'main.js' does not exist");
  });

  it("project plugins are ignored without HERMES_ENABLE_PROJECT_PLUGINS, and never replace a user plugin", () => {
    const home = tempDir("hermes-home-");
    const cwd = tempDir("hermes-project-");
    writePlugin(join(cwd, ".hermes", "plugins"), "proj", "name: proj\n");
    writePlugin(join(cwd, ".hermes", "plugins"), "mine", "name: mine\n");
    writePlugin(join(home, "plugins"), "mine", "name: mine\n");
    const settings = configWith({ enabled: ["proj", "mine"] }).plugins;
    const without = discoverPlugins({ home, cwd, env: {}, settings });
    expect(without.map((p) => p.name)).toEqual(["mine"]);
    const withEnv = discoverPlugins({ home, cwd, env: { HERMES_ENABLE_PROJECT_PLUGINS: "1" }, settings });
    expect(withEnv.map((p) => [p.name, p.source, p.state])).toEqual([
      ["mine", "user", "enabled"],
      ["mine", "project", "invalid"],
      ["proj", "project", "enabled"],
    ]);
    expect(withEnv[1]?.problem).toMatch(/^a user plugin named 'mine' .* comes first$/);
  });
});

describe("PluginService", () => {
  it("registers manifest tools without importing the entry", async () => {
    const h = homeWithWeather();
    expect(h.registry.get("weather_now")?.schema.description).toBe("Current weather for a city.");
    expect(h.registry.get("weather_now")?.deferrable).toBe(true);
    expect(h.registry.toolsInToolset("weather")).toEqual(["weather_now", "weather_raw"]);
    expect(h.hooks.has("post_tool_call")).toBe(true);
    expect(await h.registry.getDefinitions(["weather_now"])).toHaveLength(1);
    expect(h.imported()).toBe(false);
  });

  it("the first tool call imports the entry; values come back as JSON and a throw as an error result", async () => {
    const h = homeWithWeather();
    const ctx = ctxFor(h.home);
    expect(await h.registry.dispatch("weather_now", { city: "Oslo" }, ctx)).toBe(
      '{"city":"Oslo","temp":21,"session":"sess-1","units":"celsius"}',
    );
    expect(h.imported()).toBe(true);
    const failed = await h.registry.dispatchResult("weather_raw", {}, ctx);
    expect(failed.isError).toBe(true);
    expect(failed.content[0]).toEqual({
      type: "text",
      text: '{"error":"Tool execution failed: Error: station offline"}',
    });
    // The schema check runs before the plugin sees the call.
    expect(await h.registry.dispatch("weather_now", {}, ctx)).toMatch(/city/);
  });

  it("a declared hook loads the plugin when it first fires", async () => {
    const h = homeWithWeather();
    (globalThis as { __weatherSeen?: string[] }).__weatherSeen = [];
    await h.hooks.emit("post_tool_call", { tool_name: "read_file" });
    expect(h.imported()).toBe(true);
    expect((globalThis as { __weatherSeen?: string[] }).__weatherSeen).toEqual(["read_file"]);
  });

  it("runs commands and builds prompt sections from the plugin's own config", async () => {
    const h = homeWithWeather();
    expect(h.service.commands()).toEqual([
      { name: "stations", description: "List the stations.", args: "", plugin: "weather" },
    ]);
    const printed: string[] = [];
    const ok = await h.service.runCommand("weather", "stations", ["a", "b"], {
      print: (t) => printed.push(t),
      surface: "cli",
    });
    expect(ok).toEqual({ ok: true });
    expect(printed).toEqual(["KSFO", "KJFK a,b"]);
    expect(await h.service.runCommand("weather", "nope", [], { print: () => {}, surface: "cli" })).toEqual({
      ok: false,
      error: "the plugin 'weather' has no command 'nope'",
    });
    expect(await h.service.promptSections()).toBe("Give temperatures in celsius.");
  });

  it("a plugin that is not enabled offers nothing", async () => {
    const h = homeWithWeather([]);
    expect(h.registry.names()).toEqual([]);
    expect(h.hooks.has("post_tool_call")).toBe(false);
    expect(h.service.commands()).toEqual([]);
  });

  it("an entry that fails to load turns calls into errors that name the plugin, once", async () => {
    const home = tempDir("hermes-plugins-bad-");
    writePlugin(
      join(home, "plugins"),
      "bad",
      "name: bad\nentry: index.mjs\ntools: [{name: bad_tool}]\nhooks: [on_session_start]\n",
      {
        "index.mjs": `globalThis.__badImports = (globalThis.__badImports ?? 0) + 1;\nthrow new Error("missing dependency");\n`,
      },
    );
    const logger = memoryLogger();
    const service = new PluginService({
      home,
      cwd: home,
      env: {},
      config: configWith({ enabled: ["bad"] }),
      logger,
    });
    const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
    service.registerTools(registry);
    const problems: HookProblem[] = [];
    const hooks = new HookBus({ timeoutMs: 5000, report: (p) => problems.push(p) });
    service.attachHooks(hooks);
    const text = await registry.dispatch("bad_tool", {}, ctxFor(home));
    expect(text).toBe(
      '{"error":"Tool execution failed: Error: plugin \'bad\' could not load: missing dependency"}',
    );
    await hooks.emit("on_session_start", {});
    expect(problems[0]?.message).toBe("could not load: plugin 'bad' could not load: missing dependency");
    expect((globalThis as { __badImports?: number }).__badImports).toBe(1);
  });

  it("a plugin tool never takes a built-in's name", () => {
    const home = tempDir("hermes-plugins-clash-");
    writePlugin(
      join(home, "plugins"),
      "clash",
      "name: clash\nentry: index.mjs\ntools: [{name: terminal}]\n",
      {
        "index.mjs": entryModule(""),
      },
    );
    const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
    registry.register({
      name: "terminal",
      toolset: "terminal",
      schema: { description: "shell", parameters: { type: "object", properties: {} } },
      handler: () => "ran",
    });
    const service = new PluginService({
      home,
      cwd: home,
      env: {},
      config: configWith({ enabled: ["clash"] }),
      logger: memoryLogger(),
    });
    service.registerTools(registry);
    expect(registry.get("terminal")?.toolset).toBe("terminal");
    expect(service.problems[0]).toMatch(/^clash: tool 'terminal' not added/);
  });
});
