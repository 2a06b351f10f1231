/**
 * The tool search bridge's parts: the keyword index over deferred tools (words, ranking, limits),
 * the settings read from `tools.tool_search`, the per-session decision, and which registrations
 * may defer at all.
 */
import { describe, expect, it } from "vitest";
import { toolSearchLine } from "../../src/cli/commands/prompt-size.js";
import { parseConfigText } from "../../src/core/config.js";
import type { ToolContext } from "../../src/tools/context.js";
import { type FunctionDefinition, ToolRegistry } from "../../src/tools/registry.js";
import { resolveBridgeCall } from "../../src/tools/tool-search/bridge.js";
import { type CatalogTool, shortDescription, ToolCatalog } from "../../src/tools/tool-search/catalog.js";
import {
  decideDeferral,
  mayDefer,
  schemaTokens,
  toolSearchSettings,
} from "../../src/tools/tool-search/plan.js";
import { stem, words } from "../../src/tools/tool-search/words.js";

const tool = (
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
  required: string[] = [],
  toolset = "mcp-test",
): CatalogTool => ({
  definition: { name, description, parameters: { type: "object", properties, required } },
  toolset,
});

const str = { type: "string" };

const TOOLS: CatalogTool[] = [
  tool(
    "mcp_github_create_issue",
    "Open a new issue in a GitHub repository.",
    { owner: str, repo: str, title: str, body: str },
    ["owner", "repo", "title"],
    "mcp-github",
  ),
  tool(
    "mcp_github_list_issues",
    "List the issues of a repository, newest first.",
    { owner: str, repo: str },
    [],
    "mcp-github",
  ),
  tool(
    "mcp_github_merge_pull_request",
    "Merge an open pull request.",
    { pull_number: str },
    ["pull_number"],
    "mcp-github",
  ),
  tool(
    "mcp_slack_send_message",
    "Post a message to a Slack channel.",
    { channel_id: str, text: str },
    ["channel_id", "text"],
    "mcp-slack",
  ),
  tool("mcp_slack_list_channels", "The channels of the workspace.", {}, [], "mcp-slack"),
  tool(
    "getWeatherForecast",
    "Hourly forecast for a city.",
    { cityName: str },
    ["cityName"],
    "plugin-weather",
  ),
  tool(
    "mcp_files_read_file",
    "Read a text file from the shared drive.",
    { path: str },
    ["path"],
    "mcp-files",
  ),
  tool(
    "mcp_files_search",
    "Find documents on the shared drive by their contents.",
    { query: str },
    [],
    "mcp-files",
  ),
];

const catalog = new ToolCatalog(TOOLS);
const names = (query: string, limit = 5): string[] => catalog.search(query, limit).map((h) => h.name);

describe("words", () => {
  it("splits snake_case, kebab-case and camelCase, lower-cases and drops filler", () => {
    expect(words("getWeatherForecast")).toEqual(["get", "weather", "forecast"]);
    expect(words("mcp_github_create-issue")).toEqual(["mcp", "github", "creat", "issu"]);
    expect(words("parseHTTPResponse")).toEqual(["pars", "http", "respons"]);
    expect(words("How do I send a message to the team?")).toEqual(["send", "messag", "team"]);
  });

  it("stems inflections of one word to the same form", () => {
    for (const group of [
      ["create", "creates", "created", "creating"],
      ["file", "files"],
      ["issue", "issues"],
      ["search", "searches", "searching"],
      ["query", "queries"],
      ["branch", "branches"],
    ])
      expect(new Set(group.map(stem)).size).toBe(1);
    expect(stem("status")).toBe("status");
    expect(stem("process")).toBe("process");
  });
});

describe("ToolCatalog.search", () => {
  it("ranks by name, parameter names and description", () => {
    expect(names("create github issue")[0]).toBe("mcp_github_create_issue");
    expect(names("open an issue")[0]).toBe("mcp_github_create_issue");
    expect(names("pull request merge")[0]).toBe("mcp_github_merge_pull_request");
    // A parameter name alone finds the tool that takes it.
    expect(names("channel_id")[0]).toBe("mcp_slack_send_message");
    // camelCase names and parameters are split like snake_case ones.
    expect(names("weather in a city")[0]).toBe("getWeatherForecast");
    expect(names("forecast")).toEqual(["getWeatherForecast"]);
  });

  it("weighs a word in the name above the same word in a description", () => {
    const c = new ToolCatalog([
      tool("mcp_x_archive", "Moves a record out of sight."),
      tool("mcp_x_move", "Moves a record to the archive."),
    ]);
    expect(c.search("archive", 5).map((h) => h.name)).toEqual(["mcp_x_archive", "mcp_x_move"]);
  });

  it("puts the tool a query names first, with or without its server prefix", () => {
    expect(names("mcp_slack_list_channels")[0]).toBe("mcp_slack_list_channels");
    expect(names("list_channels")[0]).toBe("mcp_slack_list_channels");
    expect(names("MCP-Files-Read-File")[0]).toBe("mcp_files_read_file");
  });

  it("matches a word by its start when nothing matches it whole", () => {
    expect(names("repo")).toContain("mcp_github_create_issue");
    expect(names("weath")).toEqual(["getWeatherForecast"]);
  });

  it("returns at most `limit` matches, and none for words no tool has", () => {
    expect(names("github", 2)).toHaveLength(2);
    expect(names("github", 0)).toEqual([]);
    expect(names("kubernetes deployment")).toEqual([]);
    expect(names("the of a")).toEqual([]);
  });

  it("breaks ties by name, so a search is repeatable", () => {
    const c = new ToolCatalog([tool("mcp_b_ping", "Ping."), tool("mcp_a_ping", "Ping.")]);
    expect(c.search("ping", 5).map((h) => h.name)).toEqual(["mcp_a_ping", "mcp_b_ping"]);
  });

  it("answers with a short description and the required parameters", () => {
    const [hit] = catalog.search("create github issue", 1);
    expect(hit).toEqual({
      name: "mcp_github_create_issue",
      description: "Open a new issue in a GitHub repository.",
      required: ["owner", "repo", "title"],
    });
  });

  it("lists its sources largest first and resolves names forgiving case and separators", () => {
    expect(catalog.sources()).toEqual([
      { toolset: "mcp-github", count: 3 },
      { toolset: "mcp-files", count: 2 },
      { toolset: "mcp-slack", count: 2 },
      { toolset: "plugin-weather", count: 1 },
    ]);
    expect(catalog.resolve("mcp_slack_send_message")).toBe("mcp_slack_send_message");
    expect(catalog.resolve("MCP-Slack-Send-Message")).toBe("mcp_slack_send_message");
    // Without its server prefix a name is a search term, not a name.
    expect(catalog.resolve("send_message")).toBeUndefined();
  });
});

describe("shortDescription", () => {
  it("keeps short text, ends long text at a sentence or a word", () => {
    expect(shortDescription("  Two\n words. ")).toBe("Two words.");
    const sentences = `${"First sentence is long enough to count. ".repeat(3)}Second part goes on and on.`;
    expect(shortDescription(sentences, 100)).toBe(
      "First sentence is long enough to count. First sentence is long enough to count.",
    );
    expect(shortDescription("word ".repeat(50), 30)).toBe("word word word word word word…");
  });
});

const def = (name: string, chars: number): FunctionDefinition => ({
  type: "function",
  function: { name, description: "x".repeat(chars), parameters: { type: "object", properties: {} } },
});

describe("tools.tool_search settings and the decision", () => {
  it("reads enabled as auto, on or off from any of its spellings", () => {
    const mode = (enabled: unknown) =>
      toolSearchSettings({
        tools: {
          tool_search: {
            enabled: enabled as string,
            threshold_pct: 10,
            search_default_limit: 5,
            max_search_limit: 20,
          },
        },
      }).mode;
    expect([true, "true", "on", "yes", "ON"].map(mode)).toEqual(["on", "on", "on", "on", "on"]);
    expect([false, "false", "off", "no"].map(mode)).toEqual(["off", "off", "off", "off"]);
    expect(["auto", "", "whatever"].map(mode)).toEqual(["auto", "auto", "auto"]);
  });

  it("defaults to auto, 10 %, 5 and 20; the default limit never exceeds the maximum", () => {
    expect(toolSearchSettings(undefined)).toEqual({
      mode: "auto",
      thresholdPct: 10,
      defaultLimit: 5,
      maxLimit: 20,
    });
    const s = toolSearchSettings({
      tools: {
        tool_search: { enabled: "on", threshold_pct: 150, search_default_limit: 30, max_search_limit: 8 },
      },
    });
    expect(s).toEqual({ mode: "on", thresholdPct: 10, defaultLimit: 8, maxLimit: 8 });
  });

  it("config.yaml accepts auto, on, off and booleans for enabled, and nothing else", () => {
    for (const v of ["auto", "on", "off", "true", "false"])
      expect(
        parseConfigText(`tools:\n  tool_search:\n    enabled: ${v}\n`, "c.yaml").config.tools.tool_search
          .enabled,
      ).toBe(v === "true" ? true : v === "false" ? false : v);
    expect(() => parseConfigText("tools:\n  tool_search:\n    enabled: sometimes\n", "c.yaml")).toThrow(
      /tools\.tool_search\.enabled' must be one of "auto", "on", "off", true, false/,
    );
    expect(() => parseConfigText("tools:\n  tool_search:\n    threshold_pct: 120\n", "c.yaml")).toThrow(
      /threshold_pct' must be a number from 0 to 100/,
    );
    expect(parseConfigText("model:\n  default: m\n", "c.yaml").config.tools.tool_search).toEqual({
      enabled: "auto",
      threshold_pct: 10,
      search_default_limit: 5,
      max_search_limit: 20,
    });
  });

  it("auto defers only once the deferrable schemas exceed threshold_pct of the context window", () => {
    const settings = toolSearchSettings(undefined);
    // 10 % of 10 000 tokens is 1 000 tokens, about 4 000 characters of schema.
    const under = [def("a", 3_800)];
    const over = [def("a", 4_100)];
    expect(schemaTokens(under)).toBeLessThanOrEqual(1_000);
    expect(schemaTokens(over)).toBeGreaterThan(1_000);
    expect(decideDeferral(settings, under, 10_000)).toMatchObject({ active: false, thresholdTokens: 1_000 });
    expect(decideDeferral(settings, over, 10_000)).toMatchObject({ active: true, deferrableTools: 1 });
    // An unknown window counts as 128 000 tokens.
    expect(decideDeferral(settings, over, undefined)).toMatchObject({
      active: false,
      contextLength: 128_000,
    });
  });

  it("on defers any deferrable tool; off never does; nothing to defer means no bridge", () => {
    const on = { ...toolSearchSettings(undefined), mode: "on" as const };
    const off = { ...toolSearchSettings(undefined), mode: "off" as const };
    expect(decideDeferral(on, [def("a", 10)], 1_000_000).active).toBe(true);
    expect(decideDeferral(on, [], 1_000).active).toBe(false);
    expect(decideDeferral(off, [def("a", 100_000)], 1_000).active).toBe(false);
  });

  it("MCP tools are deferrable by default, plugin tools when flagged, core tools never", () => {
    const registry = new ToolRegistry<ToolContext>();
    const reg = (name: string, toolset: string, deferrable?: boolean) =>
      registry.register({
        name,
        toolset,
        schema: { description: "d", parameters: { type: "object", properties: {} } },
        handler: () => "ok",
        ...(deferrable !== undefined ? { deferrable } : {}),
      });
    reg("mcp_s_echo", "mcp-s");
    reg("mcp_s_pinned", "mcp-pinned", false);
    reg("crm_find", "plugin-crm", true);
    reg("local_helper", "plugin-crm");
    reg("web_search", "web", true);
    const may = (n: string) => mayDefer(n, registry.get(n));
    expect(["mcp_s_echo", "mcp_s_pinned", "crm_find", "local_helper", "web_search"].map(may)).toEqual([
      true,
      false,
      true,
      false,
      false,
    ]);
  });
});

describe("resolveBridgeCall", () => {
  const deferred = { catalog, direct: new Set(["terminal"]), defaultLimit: 5, maxLimit: 20 };
  const registered = (n: string) => n !== "mcp_files_search";

  it("resolves a deferred tool and its arguments (a JSON string is parsed)", () => {
    expect(
      resolveBridgeCall(deferred, { name: "mcp_files_read_file", arguments: { path: "a" } }, registered),
    ).toEqual({
      name: "mcp_files_read_file",
      args: { path: "a" },
    });
    expect(
      resolveBridgeCall(deferred, { name: "Mcp-Files-Read-File", arguments: '{"path":"b"}' }, registered),
    ).toEqual({ name: "mcp_files_read_file", args: { path: "b" } });
  });

  it("refuses a listed tool, an unknown name, a tool that went away and arguments that are no object", () => {
    const err = (args: Record<string, unknown>) => {
      const r = resolveBridgeCall(deferred, args, registered);
      return "error" in r ? r.error : "";
    };
    expect(err({ name: "terminal", arguments: {} })).toBe(
      "'terminal' is not a deferred tool: it is in your tool list, so call it directly.",
    );
    expect(err({ name: "mcp_github_close_issue", arguments: {} })).toMatch(
      /^No deferred tool is named 'mcp_github_close_issue' in this session; use the exact name tool_search lists\. Closest: .*mcp_github_create_issue/,
    );
    expect(err({ name: "mcp_files_search", arguments: {} })).toBe(
      "'mcp_files_search' is no longer available: its MCP server or plugin is gone.",
    );
    expect(err({ name: "mcp_files_read_file", arguments: [1] })).toMatch(/`arguments` as an object/);
    expect(err({ arguments: {} })).toMatch(/needs `name`/);
  });
});

describe("prompt-size's line", () => {
  it("says whether the bridge is on and why", () => {
    const base = {
      mode: "auto" as const,
      deferrableTools: 300,
      deferrableTokens: 22_500,
      thresholdTokens: 12_800,
      contextLength: 128_000,
      thresholdPct: 10,
    };
    expect(toolSearchLine({ ...base, active: true })).toBe(
      "Tool search: on (auto): 300 MCP/plugin tools (~22,500 tokens) behind tool_search, tool_describe and tool_call; 10% of the 128,000-token context is 12,800",
    );
    expect(toolSearchLine({ ...base, active: false, deferrableTools: 3, deferrableTokens: 400 })).toBe(
      "Tool search: not needed: 3 MCP/plugin tools (~400 tokens) listed in full; 10% of the 128,000-token context is 12,800",
    );
    expect(toolSearchLine({ ...base, active: false, mode: "off" })).toMatch(/^Tool search: off/);
    expect(toolSearchLine(undefined)).toBe("Tool search: not needed (no MCP or plugin tools)");
  });
});
