/**
 * MCP in the assembly: the servers of config.yaml connect in the background when the runtime is
 * built, their toolsets join the `hermes-*` presets, the first request of a session waits for them
 * at most `mcp_discovery_timeout`, and their status reaches the front ends as status lines.
 */
import type { AgentEvent } from "../agent/events.js";
import { type HermesConfig, loadConfig } from "../core/config.js";
import type { Logger } from "../core/log.js";
import { type McpServerConfig, parseMcpServers } from "../mcp/config.js";
import type { McpHost } from "../mcp/host.js";
import type { McpManager, McpServerStatus, McpStatusEvent, ReloadOutcome } from "../mcp/manager.js";
import type { HermesToolRegistry } from "../tools/context.js";
import { killGroup, trackGroup, untrackGroup } from "../tools/environments/process-groups.js";
import { isCredentialName } from "../tools/environments/shell-state.js";
import type { ToolSelection } from "../tools/toolsets.js";

/** The terminal's rules for credentials and child processes, shared with MCP servers. */
export const mcpHost: McpHost = { isCredentialName, trackGroup, untrackGroup, killGroup };

/** The enabled servers of a config, and what was wrong with the others. */
export function configuredServers(
  config: HermesConfig,
  env: NodeJS.ProcessEnv,
): { servers: McpServerConfig[]; problems: string[] } {
  const { servers, problems } = parseMcpServers(config.mcp_servers, env);
  return { servers: servers.filter((s) => s.enabled), problems };
}

/** A status event as the line a person reads; undefined for what only the log needs. */
export function statusLine(e: McpStatusEvent): Extract<AgentEvent, { type: "status" }> | undefined {
  switch (e.kind) {
    case "connected":
      if (e.reconnected) return { type: "status", kind: "info", message: `MCP server '${e.server}' is back` };
      if (!e.late) return undefined;
      return {
        type: "status",
        kind: "info",
        message: `MCP server '${e.server}' connected (${e.tools} tools): they reach the next session, or this one after /reload-mcp`,
      };
    case "tools_changed":
      return {
        type: "status",
        kind: "info",
        message: `MCP server '${e.server}' changed its tools (+${e.added.length} -${e.removed.length}): the next session has them, or this one after /reload-mcp`,
      };
    case "disconnected":
      return {
        type: "status",
        kind: "warning",
        message: `MCP server '${e.server}' stopped (${e.reason}); restarting`,
      };
    case "failed":
      return {
        type: "status",
        kind: "warning",
        message: `MCP server '${e.server}' is unavailable: ${e.reason}`,
      };
    case "skipped_tool":
      return { type: "status", kind: "warning", message: `MCP server '${e.server}': ${e.message}; skipped` };
  }
}

/** True when the enabled toolsets take MCP tools by default: a `hermes-*` preset, or all. */
const takesMcpByDefault = (enabled: readonly string[]): boolean =>
  enabled.some((t) => t.startsWith("hermes-") || t === "all" || t === "*");

/**
 * The toolset policy with MCP servers joined to the `hermes-*` presets (as `mcp-<server>` toolsets;
 * a preset-less `-t` list names them itself). `agent.disabled_toolsets` still removes them.
 */
export function withMcpToolsets(
  select: () => ToolSelection,
  registry: HermesToolRegistry,
  enabled: readonly string[],
  disabled: readonly string[],
): () => ToolSelection {
  if (!takesMcpByDefault(enabled)) return select;
  let memo: { generation: number; base: ToolSelection; selection: ToolSelection } | undefined;
  return () => {
    const base = select();
    if (memo?.generation === registry.generation && memo.base === base) return memo.selection;
    const tools = new Set(base.tools);
    for (const toolset of registry.toolsetNames()) {
      if (!toolset.startsWith("mcp-") || disabled.includes(toolset)) continue;
      for (const name of registry.toolsInToolset(toolset)) tools.add(name);
    }
    const selection = { tools, unknown: base.unknown };
    memo = { generation: registry.generation, base, selection };
    return selection;
  };
}

export interface McpRuntimeOptions {
  config: HermesConfig;
  /** config.yaml, read again by `reload`. */
  configPath: string;
  registry: HermesToolRegistry;
  env: NodeJS.ProcessEnv;
  logDir: string;
  logger: Logger;
  clientVersion: string;
  /** Status lines for the front ends. */
  onStatus: (event: Extract<AgentEvent, { type: "status" }>) => void;
}

/** Starts the configured servers in the background; undefined (and no SDK loaded) when there are none. */
export async function startMcp(o: McpRuntimeOptions): Promise<McpManager | undefined> {
  // The deadline counts from here, not from when the client code has loaded.
  const startedAt = Date.now();
  const { servers, problems } = configuredServers(o.config, o.env);
  for (const p of problems) o.logger.warn("mcp config", { problem: p });
  if (servers.length === 0) return undefined;
  const { McpManager } = await import("../mcp/manager.js");
  const manager = new McpManager({
    registry: o.registry,
    servers,
    host: mcpHost,
    env: o.env,
    logDir: o.logDir,
    clientVersion: o.clientVersion,
    discoveryTimeoutMs: Math.max(0, o.config.mcp_discovery_timeout) * 1000,
    startedAt,
    logger: o.logger,
    onStatus: (e) => {
      const line = statusLine(e);
      if (line) o.onStatus(line);
    },
  });
  manager.start();
  return manager;
}

/** The MCP side of a runtime; every method is cheap and safe when no server is configured. */
export interface McpRuntime {
  /** Resolves when a session's first request may go: every server settled, or the discovery deadline passed. */
  ready(): Promise<void>;
  /** Reads `mcp_servers` again and starts, stops or restarts servers to match (/reload-mcp). */
  reload(): Promise<ReloadOutcome & { problems: string[] }>;
  statuses(): McpServerStatus[];
  /** Stops every server. */
  close(): Promise<void>;
}

export function createMcpRuntime(o: McpRuntimeOptions): McpRuntime {
  let manager = startMcp(o).catch((err: unknown) => {
    o.logger.error("mcp start failed", { message: (err as Error).message });
    return undefined;
  });
  let current: McpManager | undefined;
  void manager.then((m) => {
    current = m;
  });
  return {
    ready: () => manager.then((m) => m?.ready()),
    statuses: () => current?.statuses() ?? [],
    reload: async () => {
      const config = loadConfig(o.configPath).config;
      const { servers, problems } = configuredServers(config, o.env);
      const m = await manager;
      if (m) return { ...(await m.reload(servers)), problems };
      manager = startMcp({ ...o, config });
      const started = await manager;
      current = started;
      await started?.ready();
      return { added: servers.map((s) => s.name), removed: [], restarted: [], problems };
    },
    close: async () => {
      await (await manager)?.close();
    },
  };
}

/** What /reload-mcp did, in one line (and a line per config problem). */
export function describeMcpReload(
  outcome: ReloadOutcome & { problems: string[] },
  tools: { added: string[]; removed: string[] },
): string {
  const servers = [
    outcome.added.length ? `started ${outcome.added.join(", ")}` : "",
    outcome.removed.length ? `stopped ${outcome.removed.join(", ")}` : "",
    outcome.restarted.length ? `restarted ${outcome.restarted.join(", ")}` : "",
  ].filter(Boolean);
  const head = `MCP tools reloaded: +${tools.added.length} -${tools.removed.length}${servers.length ? ` (${servers.join("; ")})` : ""}`;
  return [head, ...outcome.problems.map((p) => `  ${p}`)].join("\n");
}
