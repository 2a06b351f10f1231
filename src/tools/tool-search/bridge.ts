/**
 * The three bridge tools that stand in for deferred tools: `tool_search` (ranked keyword search),
 * `tool_describe` (one tool's full schema) and `tool_call` (runs one by name). Their handlers read
 * the session's deferred tools from `ctx.toolSearch`, which the agent provides while the bridge is
 * active; `tool_call` runs the tool on the path of a direct call.
 */
import type { HermesToolRegistry, ToolContext } from "../context.js";
import type { FunctionDefinition, ToolSchema } from "../registry.js";
import type { ToolResult } from "../result.js";
import type { SearchHit, ToolCatalog } from "./catalog.js";

export const TOOL_SEARCH = "tool_search";
export const TOOL_DESCRIBE = "tool_describe";
export const TOOL_CALL = "tool_call";
export const BRIDGE_TOOLS: readonly string[] = [TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH];
/** The toolset the bridge tools are registered under; no toolset policy selects it. */
export const BRIDGE_TOOLSET = "tool_search";

/** The deferred side of one session's tool list, fixed with it. */
export interface DeferredTools {
  readonly catalog: ToolCatalog;
  /** Names the request lists itself: a bridge call naming one is pointed back to it. */
  readonly direct: ReadonlySet<string>;
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** What the bridge tools need from the session (the agent implements it). */
export interface ToolSearchService extends DeferredTools {
  /** A `tool_call`'s target, checked: a deferred tool still registered, and its arguments. */
  resolve(args: Record<string, unknown>): BridgeTarget;
  /** Runs a resolved deferred tool as a direct call would (validation, approvals, redaction). Never throws. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
}

export type BridgeTarget = { name: string; args: Record<string, unknown> } | { error: string };

const error = (message: string): string => JSON.stringify({ error: message });

const NOT_ACTIVE =
  "Tool search is not active in this session: every tool it can use is already in its tool list.";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks a `tool_call`'s name and arguments against the session's deferred tools. `registered`
 * says whether a name is still in the registry (a server or plugin may have gone since).
 */
export function resolveBridgeCall(
  deferred: DeferredTools,
  args: Record<string, unknown>,
  registered: (name: string) => boolean,
): BridgeTarget {
  const given = typeof args.name === "string" ? args.name.trim() : "";
  if (!given) return { error: "tool_call needs `name`: a tool name as tool_search lists it." };
  let toolArgs = args.arguments ?? {};
  if (typeof toolArgs === "string") {
    try {
      toolArgs = JSON.parse(toolArgs || "{}");
    } catch {
      // Reported below as not an object.
    }
  }
  if (!isObject(toolArgs))
    return { error: "tool_call needs `arguments` as an object of the tool's parameters." };
  if (deferred.direct.has(given))
    return { error: `'${given}' is not a deferred tool: it is in your tool list, so call it directly.` };
  const name = deferred.catalog.resolve(given);
  if (name === undefined) return { error: unknownName(deferred, given) };
  if (!registered(name))
    return { error: `'${name}' is no longer available: its MCP server or plugin is gone.` };
  return { name, args: toolArgs };
}

function unknownName(deferred: DeferredTools, name: string): string {
  const near = deferred.catalog.search(name, 3, true).map((h) => h.name);
  const hint = near.length > 0 ? ` Closest: ${near.join(", ")}.` : "";
  return `No deferred tool is named '${name}' in this session; use the exact name tool_search lists.${hint}`;
}

const intArg = (value: unknown): number | undefined => {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? Math.floor(n) : undefined;
};

function searchTool(args: Record<string, unknown>, ctx: ToolContext): string {
  const s = ctx.toolSearch;
  if (!s) return error(NOT_ACTIVE);
  const query = typeof args.query === "string" ? args.query.trim() : "";
  if (!query) return error("tool_search needs `query`: keywords for what the tool does.");
  const limit = Math.min(Math.max(intArg(args.limit) ?? s.defaultLimit, 1), s.maxLimit);
  const matches: SearchHit[] = s.catalog.search(query, limit);
  const out: Record<string, unknown> = { query, total_tools: s.catalog.size, matches };
  if (matches.length === 0)
    out.hint = `Nothing matched. Try other keywords: a service, an action, an object. Sources: ${sourceList(s.catalog)}.`;
  return JSON.stringify(out);
}

function describeTool(args: Record<string, unknown>, ctx: ToolContext): string {
  const s = ctx.toolSearch;
  if (!s) return error(NOT_ACTIVE);
  const given = typeof args.name === "string" ? args.name.trim() : "";
  if (s.direct.has(given))
    return error(`'${given}' is not a deferred tool: its schema is in your tool list already.`);
  const name = s.catalog.resolve(given);
  const tool = name === undefined ? undefined : s.catalog.get(name);
  if (!tool) return error(unknownName(s, given));
  const { description, parameters } = tool.definition;
  return JSON.stringify({ name, description, parameters });
}

async function callTool(args: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolResult> {
  const s = ctx.toolSearch;
  if (!s) return error(NOT_ACTIVE);
  const target = s.resolve(args);
  if ("error" in target) return error(target.error);
  return s.call(target.name, target.args);
}

const MAX_SOURCES = 12;

/** "mcp-github (44), mcp-files (12), …": where the deferred tools come from. */
export function sourceList(catalog: ToolCatalog): string {
  const sources = catalog.sources();
  const shown = sources.slice(0, MAX_SOURCES).map((s) => `${s.toolset} (${s.count})`);
  const rest = sources.length - shown.length;
  return rest > 0 ? `${shown.join(", ")} and ${rest} more` : shown.join(", ");
}

const NAME_PARAM = { type: "string", description: "A tool name as tool_search lists it." };

const SCHEMAS: Readonly<Record<string, ToolSchema>> = {
  [TOOL_SEARCH]: {
    description: "Search the tools that load on demand by keywords. Call one with tool_call.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "Keywords: a service, an action, an object." },
        limit: { type: "integer", minimum: 1, description: "How many matches to return." },
      },
      required: ["query"],
    },
  },
  [TOOL_DESCRIBE]: {
    description: "The full description and parameter schema of a tool found with tool_search.",
    parameters: { type: "object", properties: { name: NAME_PARAM }, required: ["name"] },
  },
  [TOOL_CALL]: {
    description: "Call a tool found with tool_search. It runs as a direct call would (checks, approvals).",
    parameters: {
      type: "object",
      properties: {
        name: NAME_PARAM,
        arguments: { type: "object", description: "The tool's arguments, per its schema." },
      },
      required: ["name", "arguments"],
    },
  },
};

/**
 * The bridge as a request lists it, by name: the registered schemas, with tool_search saying how
 * many tools it reaches, from where, and its limits (fixed per session: the request stays byte-stable).
 */
export function bridgeDefinitions(deferred: DeferredTools): Map<string, FunctionDefinition> {
  const n = deferred.catalog.size;
  const search = SCHEMAS[TOOL_SEARCH]!;
  const properties = search.parameters.properties as Record<string, Record<string, unknown>>;
  const limit = {
    ...properties.limit,
    description: `How many matches to return (default ${deferred.defaultLimit}, at most ${deferred.maxLimit}).`,
  };
  const description =
    `Search ${n} more tool${n === 1 ? "" : "s"} that load on demand (${sourceList(deferred.catalog)}) by ` +
    "keywords; returns names, descriptions and required parameters. Call one with tool_call " +
    "(tool_describe gives its full schema).";
  const schemas: Record<string, ToolSchema> = {
    ...SCHEMAS,
    [TOOL_SEARCH]: {
      description,
      parameters: { ...search.parameters, properties: { ...properties, limit } },
    },
  };
  return new Map(
    BRIDGE_TOOLS.map((name) => [name, { type: "function", function: { name, ...schemas[name]! } }]),
  );
}

/**
 * Registers the bridge tools once per registry (they reach a request only when its session
 * defers). False when another toolset already owns one of the names: the bridge then stays off.
 */
export function ensureBridgeTools(registry: HermesToolRegistry): boolean {
  const handlers = { [TOOL_SEARCH]: searchTool, [TOOL_DESCRIBE]: describeTool, [TOOL_CALL]: callTool };
  return BRIDGE_TOOLS.every((name) => {
    if (registry.get(name)?.toolset === BRIDGE_TOOLSET) return true;
    return registry.register({
      name,
      toolset: BRIDGE_TOOLSET,
      schema: SCHEMAS[name]!,
      handler: handlers[name as keyof typeof handlers],
      emoji: "🔎",
      parallelSafe: name !== TOOL_CALL,
    }).ok;
  });
}
