/**
 * Toolsets: the policy layer that decides which registered tools the model sees. `TOOLSETS` is
 * static data; toolsets that exist only in the registry (plugins, MCP servers) are merged in on read.
 * Names listed here but not registered (or unavailable) are simply not exposed.
 */

export interface ToolsetDef {
  description: string;
  tools: readonly string[];
  includes: readonly string[];
}

/** What `resolve*` needs from the registry (kept structural so this file stays pure data). */
export interface ToolsetSource {
  toolsetNames(): string[];
  toolsInToolset(toolset: string): string[];
}

const BROWSER_TOOLS = [
  "browser_navigate",
  "browser_snapshot",
  "browser_click",
  "browser_type",
  "browser_press",
  "browser_scroll",
  "browser_back",
  "browser_get_images",
  "browser_vision",
  "browser_console",
  "browser_dialog",
  "browser_close",
] as const;

/** The default bundle behind every `hermes-<platform>` preset. */
export const HERMES_CORE_TOOLS: readonly string[] = [
  "web_search",
  "web_extract",
  "terminal",
  "process",
  "read_file",
  "write_file",
  "patch",
  "search_files",
  "vision_analyze",
  "skills_list",
  "skill_view",
  "skill_manage",
  ...BROWSER_TOOLS,
  "todo",
  "memory",
  "session_search",
  "clarify",
  "execute_code",
  "delegate_task",
  "cronjob",
];

const leaf = (
  description: string,
  tools: readonly string[],
  includes: readonly string[] = [],
): ToolsetDef => ({
  description,
  tools,
  includes,
});

const preset = (platform: string): ToolsetDef =>
  leaf(`Default tools for the ${platform} platform`, HERMES_CORE_TOOLS);

export const TOOLSETS: Readonly<Record<string, ToolsetDef>> = {
  web: leaf("Web search and page extraction", ["web_search", "web_extract"]),
  search: leaf("Web search only", ["web_search"]),
  terminal: leaf("Shell commands and background processes", ["terminal", "process"]),
  file: leaf("Read, write, patch and search files", ["read_file", "write_file", "patch", "search_files"]),
  vision: leaf("Image analysis", ["vision_analyze"]),
  image_gen: leaf("Image generation", ["image_generate"]),
  tts: leaf("Text to speech", ["text_to_speech"]),
  browser: leaf("Browser automation", [...BROWSER_TOOLS, "web_search"]),
  skills: leaf("Procedural memory: list, view and manage skills", [
    "skills_list",
    "skill_view",
    "skill_manage",
  ]),
  todo: leaf("Session task list", ["todo"]),
  memory: leaf("Persistent memory (MEMORY.md / USER.md)", ["memory"]),
  session_search: leaf("Search past sessions", ["session_search"]),
  clarify: leaf("Ask the user a question", ["clarify"]),
  code_execution: leaf("Run scripts that call tools", ["execute_code"]),
  delegation: leaf("Spawn subagents", ["delegate_task"]),
  cronjob: leaf("Scheduled jobs", ["cronjob"]),
  debugging: leaf("Debugging: terminal plus web and files", ["terminal", "process"], ["web", "file"]),
  safe: leaf("No terminal or file writes", [], ["web", "vision"]),
  "hermes-cli": preset("cli"),
  "hermes-cron": preset("cron"),
  "hermes-telegram": preset("telegram"),
  "hermes-discord": preset("discord"),
  "hermes-slack": preset("slack"),
  "hermes-whatsapp": preset("whatsapp"),
  "hermes-signal": preset("signal"),
  "hermes-email": preset("email"),
  "hermes-matrix": preset("matrix"),
  "hermes-mattermost": preset("mattermost"),
  "hermes-api-server": leaf(
    "API server: core tools without interactive ones",
    HERMES_CORE_TOOLS.filter((t) => t !== "clarify"),
  ),
  // Webhook payloads are written by third parties: no terminal, files or code, whatever they say.
  "hermes-webhook": leaf("Inbound webhooks: web and vision only", [
    "web_search",
    "web_extract",
    "vision_analyze",
  ]),
  "hermes-gateway": leaf(
    "Union of all messaging presets",
    [],
    [
      "hermes-telegram",
      "hermes-discord",
      "hermes-slack",
      "hermes-whatsapp",
      "hermes-signal",
      "hermes-email",
      "hermes-matrix",
      "hermes-mattermost",
    ],
  ),
};

/** Old `*_tools` names kept so existing configs and scripts keep working. */
export const LEGACY_TOOLSET_ALIASES: Readonly<Record<string, string>> = {
  web_tools: "web",
  terminal_tools: "terminal",
  file_tools: "file",
  vision_tools: "vision",
  browser_tools: "browser",
  skills_tools: "skills",
  todo_tools: "todo",
  memory_tools: "memory",
  session_search_tools: "session_search",
  clarify_tools: "clarify",
  code_execution_tools: "code_execution",
  delegation_tools: "delegation",
  cronjob_tools: "cronjob",
};

const canonical = (name: string): string => LEGACY_TOOLSET_ALIASES[name] ?? name;

/** Static toolsets plus registry-only ones (plugins, `mcp-<server>`). */
export function getAllToolsets(source?: ToolsetSource): Record<string, ToolsetDef> {
  const result: Record<string, ToolsetDef> = { ...TOOLSETS };
  for (const name of source?.toolsetNames() ?? []) {
    if (!(name in result)) result[name] = leaf(`Tools registered as '${name}'`, source!.toolsInToolset(name));
  }
  return result;
}

export function isKnownToolset(name: string, source?: ToolsetSource): boolean {
  const n = canonical(name);
  return n === "all" || n === "*" || n in getAllToolsets(source);
}

/**
 * Expands a toolset into tool names: its own tools, registry tools tagged with it, and its includes,
 * recursively (cycles are ignored). `all`/`*` means every tool the registry and TOOLSETS know.
 */
export function resolveToolset(name: string, source?: ToolsetSource, seen = new Set<string>()): string[] {
  const n = canonical(name);
  const all = getAllToolsets(source);
  if (n === "all" || n === "*") {
    return [...new Set(Object.keys(all).flatMap((k) => resolveToolset(k, source, seen)))];
  }
  if (seen.has(n)) return [];
  seen.add(n);
  const def = all[n];
  if (!def) return [];
  const tools = new Set<string>(def.tools);
  for (const t of source?.toolsInToolset(n) ?? []) tools.add(t);
  for (const inc of def.includes) for (const t of resolveToolset(inc, source, seen)) tools.add(t);
  return [...tools];
}

export interface ToolSelection {
  tools: Set<string>;
  /** Names given by the user that match no toolset (reported, not fatal). */
  unknown: string[];
}

/**
 * The tool names a session exposes: the union of `enabled` toolsets minus every tool of `disabled`
 * toolsets. Tools also need to be registered and available; the registry filters that.
 */
export function selectTools(
  enabled: readonly string[],
  disabled: readonly string[],
  source?: ToolsetSource,
): ToolSelection {
  const unknown = [...enabled, ...disabled].filter((n) => !isKnownToolset(n, source));
  const tools = new Set(enabled.flatMap((n) => resolveToolset(n, source)));
  for (const n of disabled) for (const t of resolveToolset(n, source)) tools.delete(t);
  return { tools, unknown };
}

/** A registry whose contents change while the process runs (MCP servers, plugins): `generation` says when. */
export interface LiveToolsetSource extends ToolsetSource {
  readonly generation: number;
}

/**
 * The toolset policy as a query on the registry: each call answers from what is registered now,
 * recomputed only when the registry's generation moved. A session asks once, at its first request,
 * and keeps that answer (prompt-cache rule); tools registered later reach the next session, or the
 * current one when it reloads its tools.
 */
export function createToolSelector(
  enabled: readonly string[],
  disabled: readonly string[],
  source: LiveToolsetSource,
): () => ToolSelection {
  let memo: { generation: number; selection: ToolSelection } | undefined;
  return () => {
    if (memo?.generation !== source.generation)
      memo = { generation: source.generation, selection: selectTools(enabled, disabled, source) };
    return memo.selection;
  };
}
