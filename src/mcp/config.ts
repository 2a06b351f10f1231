/**
 * `mcp_servers` of config.yaml as typed server settings. A bad entry never stops Hermes: it is
 * skipped (or a bad key ignored) with a problem for the log and `hermes mcp list`.
 */
import { isRecord } from "../core/is-record.js";

export type McpTransportKind = "stdio" | "http" | "sse";

export interface McpServerConfig {
  /** The name as written in config.yaml (sanitized only where it becomes part of a tool name). */
  name: string;
  transport: McpTransportKind;
  command: string;
  args: string[];
  /** Variables given to a stdio server on top of the inherited, credential-free environment. */
  env: Record<string, string>;
  cwd: string | undefined;
  url: string;
  headers: Record<string, string>;
  /** Per tool call. */
  timeoutMs: number;
  /** Per connection attempt (spawn or HTTP handshake, then initialize). */
  connectTimeoutMs: number;
  /** Only these server tool names (raw names, before prefixing); undefined = all. */
  include: string[] | undefined;
  exclude: string[];
  /** Register list_resources / read_resource when the server offers resources. */
  resources: boolean;
  /** Register list_prompts / get_prompt when the server offers prompts. */
  prompts: boolean;
  enabled: boolean;
  /** Its tools may run alongside other tools in one batch. */
  parallelSafe: boolean;
}

export interface ParsedMcpServers {
  servers: McpServerConfig[];
  /** One line per skipped server or ignored key. */
  problems: string[];
}

export const DEFAULT_TOOL_TIMEOUT_S = 300;
export const DEFAULT_CONNECT_TIMEOUT_S = 60;

const KNOWN_KEYS = new Set([
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "transport",
  "type",
  "timeout",
  "connect_timeout",
  "tools",
  "enabled",
  "supports_parallel_tool_calls",
]);
/** Keys of other Hermes versions (OAuth, sampling, keepalive): accepted, not used here. */
const OTHER_VERSION_KEYS = new Set([
  "auth",
  "oauth",
  "keepalive_interval",
  "idle_timeout_seconds",
  "max_lifetime_seconds",
  "skip_preflight",
  "sampling",
  "elicitation",
  "ssl_verify",
  "client_cert",
  "client_key",
]);

type Plain = Record<string, unknown>;

/** `${VAR}` replaced from `env` (unset variables become empty), so secrets can stay in .env. */
export function interpolate(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => env[name] ?? "");
}

const stringMap = (v: unknown, env: NodeJS.ProcessEnv): Record<string, string> | undefined => {
  if (v === undefined) return {};
  if (!isRecord(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== "string" && typeof val !== "number" && typeof val !== "boolean") return undefined;
    out[k] = interpolate(String(val), env);
  }
  return out;
};

const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number")
    ? v.map(String)
    : undefined;

const seconds = (v: unknown, fallback: number): number | undefined =>
  v === undefined ? fallback : typeof v === "number" && v > 0 ? v : undefined;

function transportOf(entry: Plain): McpTransportKind | string {
  const t = entry.transport ?? entry.type;
  if (t === undefined) return typeof entry.url === "string" && !entry.command ? "http" : "stdio";
  if (t === "streamable_http" || t === "streamable-http" || t === "http") return "http";
  if (t === "sse" || t === "stdio") return t;
  return String(t);
}

/** One server entry; a string is the reason it was skipped. */
export function parseServer(
  name: string,
  raw: unknown,
  env: NodeJS.ProcessEnv = process.env,
): McpServerConfig | string {
  if (!isRecord(raw)) return "must be a mapping (command/args/env or url/headers)";
  const transport = transportOf(raw);
  if (transport !== "stdio" && transport !== "http" && transport !== "sse")
    return `transport must be stdio, http or sse (got ${JSON.stringify(transport)})`;
  const command = typeof raw.command === "string" ? interpolate(raw.command, env).trim() : "";
  const url = typeof raw.url === "string" ? interpolate(raw.url, env).trim() : "";
  if (transport === "stdio" && !command) return "needs 'command' (or 'url' for an HTTP server)";
  if (transport !== "stdio" && !/^https?:\/\//.test(url))
    return "needs 'url' starting with http:// or https://";
  const args = raw.args === undefined ? [] : stringList(raw.args);
  if (!args) return "'args' must be a list of strings";
  const envVars = stringMap(raw.env, env);
  if (!envVars) return "'env' must be a mapping of names to values";
  const headers = stringMap(raw.headers, env);
  if (!headers) return "'headers' must be a mapping of names to values";
  const timeout = seconds(raw.timeout, DEFAULT_TOOL_TIMEOUT_S);
  if (timeout === undefined) return "'timeout' must be a number of seconds > 0";
  const connectTimeout = seconds(raw.connect_timeout, DEFAULT_CONNECT_TIMEOUT_S);
  if (connectTimeout === undefined) return "'connect_timeout' must be a number of seconds > 0";
  const tools = raw.tools === undefined ? {} : raw.tools;
  if (!isRecord(tools)) return "'tools' must be a mapping (include, exclude, resources, prompts)";
  const include = tools.include === undefined ? undefined : stringList(tools.include);
  const exclude = tools.exclude === undefined ? [] : stringList(tools.exclude);
  if ((tools.include !== undefined && !include) || !exclude)
    return "'tools.include' and 'tools.exclude' must be lists of tool names";
  return {
    name,
    transport,
    command,
    args: args.map((a) => interpolate(a, env)),
    env: envVars,
    cwd: typeof raw.cwd === "string" && raw.cwd ? interpolate(raw.cwd, env) : undefined,
    url,
    headers,
    timeoutMs: timeout * 1000,
    connectTimeoutMs: connectTimeout * 1000,
    include,
    exclude,
    resources: tools.resources !== false,
    prompts: tools.prompts !== false,
    enabled: raw.enabled !== false,
    parallelSafe: raw.supports_parallel_tool_calls === true,
  };
}

/** Every server of `mcp_servers`, enabled or not, in config order. */
export function parseMcpServers(raw: unknown, env: NodeJS.ProcessEnv = process.env): ParsedMcpServers {
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { servers, problems };
  if (!isRecord(raw)) return { servers, problems: ["mcp_servers must be a mapping of server names"] };
  for (const [name, entry] of Object.entries(raw)) {
    const parsed = parseServer(name, entry, env);
    if (typeof parsed === "string") {
      problems.push(`mcp_servers.${name}: ${parsed}; server skipped`);
      continue;
    }
    for (const key of Object.keys(entry as Plain)) {
      if (!KNOWN_KEYS.has(key) && !OTHER_VERSION_KEYS.has(key))
        problems.push(`mcp_servers.${name}: unknown key '${key}' ignored`);
    }
    servers.push(parsed);
  }
  return { servers, problems };
}
