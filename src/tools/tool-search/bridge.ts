/**
 * The three bridge tools that stand in for deferred tools: `tool_search` (ranked keyword search),
 * `tool_describe` (one tool's full schema) and `tool_call` (runs one by name). Their handlers read
 * the session's deferred tools from `ctx.toolSearch`, which the agent provides while the bridge is
 * active; `tool_call` runs the tool on the path of a direct call.
 */

import { isRecord } from "../../core/is-record.js";
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
  if (!isRecord(toolArgs))
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

// The bridge is listed on every request of a deferring session: its schemas say only what the model
// needs to find a tool and run it. Errors and results explain the rest when they happen.
const SCHEMAS: Readonly<Record<string, ToolSchema>> = {
  [TOOL_SEARCH]: {
    description: "Search the tools that load on demand by keywords. Run one with tool_call.",
    parameters: {
      type: "object",
      properties: { query: { type: "string" }, limit: { type: "integer" } },
      required: ["query"],
    },
  },
  [TOOL_DESCRIBE]: {
    description: "Full schema of a tool found by tool_search.",
    parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
  [TOOL_CALL]: {
    description: "Run a tool found by tool_search.",
    parameters: {
      type: "object",
      properties: { name: { type: "string" }, arguments: { type: "object" } },
      required: ["name", "arguments"],
    },
  },
};

const MCP_PREFIX = "mcp-";

/**
 * "MCP: github, files; plugin-crm": where the deferred tools come from, biggest first, for
 * tool_search's description (MCP servers by their own names, other toolsets as named).
 */
export function sourceNames(catalog: ToolCatalog): string {
  const sources = catalog.sources();
  const shown = sources.slice(0, MAX_SOURCES).map((s) => s.toolset);
  const servers = shown.filter((t) => t.startsWith(MCP_PREFIX)).map((t) => t.slice(MCP_PREFIX.length));
  const parts = shown.filter((t) => !t.startsWith(MCP_PREFIX));
  if (servers.length > 0) parts.unshift(`MCP: ${servers.join(", ")}`);
  const rest = sources.length - shown.length;
  return rest > 0 ? `${parts.join("; ")} and ${rest} more` : parts.join("; ");
}

/**
 * The bridge as a request lists it, by name: the registered schemas, with tool_search saying how
 * many tools it reaches and from where (fixed per session: the request stays byte-stable).
 */
export function bridgeDefinitions(deferred: DeferredTools): Map<string, FunctionDefinition> {
  const n = deferred.catalog.size;
  const description =
    `Search ${n} more tool${n === 1 ? "" : "s"} by keywords (${sourceNames(deferred.catalog)}). ` +
    "Run one with tool_call.";
  const schemas: Record<string, ToolSchema> = {
    ...SCHEMAS,
    [TOOL_SEARCH]: { ...SCHEMAS[TOOL_SEARCH]!, description },
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
