/**
 * `hermes mcp list | add | remove | test`: the MCP servers of config.yaml. `add` and `remove` edit
 * only their own entry and keep the rest of the file as written; `test` connects to one server and
 * shows what its tools cost every request.
 */
import { loadConfig, removeConfigValue, setConfigValue } from "../../core/config.js";
import { loadDotEnv } from "../../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths } from "../../core/home.js";
import { VERSION } from "../../core/version.js";
import { type McpServerConfig, parseMcpServers, parseServer } from "../../mcp/config.js";
import { mcpHost } from "../../runtime/mcp.js";
import { describeFatal } from "../errors.js";

export interface AddOptions {
  url?: string;
  transport?: string;
  env?: string[];
  header?: string[];
  cwd?: string;
  timeout?: string;
  connectTimeout?: string;
  include?: string;
  exclude?: string;
  disabled?: boolean;
  force?: boolean;
}

const out = (text: string): void => void process.stdout.write(`${text}\n`);
const err = (text: string): void => void process.stderr.write(`hermes: ${text}\n`);

/** Keeps `${VAR}` references as written: listings never show a secret's value. */
const literalEnv: NodeJS.ProcessEnv = new Proxy({}, { get: (_t, name) => `\${${String(name)}}` });

function home(): HomePaths {
  const paths = ensureHermesHome(getHermesHome());
  loadDotEnv(paths.env);
  return paths;
}

const target = (s: McpServerConfig): string =>
  s.transport === "stdio" ? [s.command, ...s.args].join(" ") : `${s.url} (${s.transport})`;

export function mcpList(opts: { json?: boolean }): number {
  try {
    const { config } = loadConfig(home().config);
    const { servers, problems } = parseMcpServers(config.mcp_servers, literalEnv);
    if (opts.json) {
      const rows = servers.map((s) => ({
        name: s.name,
        transport: s.transport,
        enabled: s.enabled,
        target: target(s),
        env: Object.keys(s.env),
        headers: Object.keys(s.headers),
        timeout: s.timeoutMs / 1000,
        connect_timeout: s.connectTimeoutMs / 1000,
        include: s.include ?? null,
        exclude: s.exclude,
      }));
      out(JSON.stringify({ servers: rows, problems }, null, 2));
      return 0;
    }
    if (servers.length === 0 && problems.length === 0) {
      out("No MCP servers configured. Add one with: hermes mcp add NAME -- COMMAND [ARGS...]  or  --url URL");
      return 0;
    }
    const width = Math.max(4, ...servers.map((s) => s.name.length));
    out(`${"NAME".padEnd(width)}  ${"TRANSPORT".padEnd(9)}  ${"ENABLED".padEnd(7)}  TARGET`);
    for (const s of servers) {
      const extras = [
        Object.keys(s.env).length ? `env: ${Object.keys(s.env).join(", ")}` : "",
        Object.keys(s.headers).length ? `headers: ${Object.keys(s.headers).join(", ")}` : "",
        s.include ? `include: ${s.include.join(", ")}` : "",
        s.exclude.length ? `exclude: ${s.exclude.join(", ")}` : "",
      ].filter(Boolean);
      out(
        `${s.name.padEnd(width)}  ${s.transport.padEnd(9)}  ${(s.enabled ? "yes" : "no").padEnd(7)}  ${target(s)}${extras.length ? `  [${extras.join("; ")}]` : ""}`,
      );
    }
    for (const p of problems) err(p);
    return 0;
  } catch (e) {
    process.stderr.write(`${describeFatal(e)}\n`);
    return 1;
  }
}

/** `KEY=VALUE` (or `Key: Value` for headers) pairs as a mapping. */
function pairs(
  items: readonly string[] | undefined,
  what: string,
  sep: RegExp,
): Record<string, string> | string {
  const map: Record<string, string> = {};
  for (const item of items ?? []) {
    const m = sep.exec(item);
    if (!m || m.index === 0) return `${what} '${item}' must look like NAME=VALUE`;
    map[item.slice(0, m.index).trim()] = item.slice(m.index + m[0].length).trim();
  }
  return map;
}

const list = (v: string | undefined): string[] | undefined =>
  v === undefined
    ? undefined
    : v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);

export function mcpAdd(name: string, command: readonly string[], opts: AddOptions): number {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    err(`server names use letters, digits, '_' and '-' only (got '${name}')`);
    return 2;
  }
  const env = pairs(opts.env, "--env", /=/);
  const headers = pairs(opts.header, "--header", /[=:]/);
  if (typeof env === "string" || typeof headers === "string") {
    err(typeof env === "string" ? env : (headers as string));
    return 2;
  }
  if (!opts.url && command.length === 0) {
    err("give the server's command (hermes mcp add NAME -- COMMAND [ARGS...]) or --url URL");
    return 2;
  }
  const entry: Record<string, unknown> = opts.url ? { url: opts.url } : { command: command[0] };
  if (!opts.url && command.length > 1) entry.args = command.slice(1);
  if (opts.transport) entry.transport = opts.transport;
  if (Object.keys(env).length) entry.env = env;
  if (Object.keys(headers).length) entry.headers = headers;
  if (opts.cwd) entry.cwd = opts.cwd;
  if (opts.timeout) entry.timeout = Number(opts.timeout);
  if (opts.connectTimeout) entry.connect_timeout = Number(opts.connectTimeout);
  const include = list(opts.include);
  const exclude = list(opts.exclude);
  if (include || exclude) entry.tools = { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) };
  if (opts.disabled) entry.enabled = false;
  const checked = parseServer(name, entry, literalEnv);
  if (typeof checked === "string") {
    err(`mcp_servers.${name}: ${checked}`);
    return 2;
  }
  try {
    const paths = home();
    const { config } = loadConfig(paths.config);
    if (name in config.mcp_servers && !opts.force) {
      err(`an MCP server named '${name}' exists already (remove it first, or use --force to replace it)`);
      return 1;
    }
    setConfigValue(paths.config, `mcp_servers.${name}`, entry);
    out(`Added MCP server '${name}' (${target(checked)}) to ${paths.config}.`);
    out(`Check it with: hermes mcp test ${name}`);
    return 0;
  } catch (e) {
    process.stderr.write(`${describeFatal(e)}\n`);
    return 1;
  }
}

export function mcpRemove(name: string): number {
  try {
    const paths = home();
    if (!removeConfigValue(paths.config, `mcp_servers.${name}`)) {
      err(`no MCP server named '${name}' in ${paths.config}`);
      return 1;
    }
    out(`Removed MCP server '${name}'.`);
    return 0;
  } catch (e) {
    process.stderr.write(`${describeFatal(e)}\n`);
    return 1;
  }
}

/** Rough tokens for JSON: about four characters each (as `hermes prompt-size` counts). */
const approxTokens = (bytes: number): number => Math.ceil(bytes / 4);

/** Connects to one server, lists its tools with the bytes and ~tokens their schemas add to every request. */
export async function mcpTest(name: string): Promise<number> {
  let paths: HomePaths;
  let server: McpServerConfig | undefined;
  try {
    paths = home();
    const { config } = loadConfig(paths.config);
    const raw = config.mcp_servers[name];
    if (raw === undefined) {
      err(`no MCP server named '${name}' (see: hermes mcp list)`);
      return 1;
    }
    const parsed = parseServer(name, raw);
    if (typeof parsed === "string") {
      err(`mcp_servers.${name}: ${parsed}`);
      return 1;
    }
    server = parsed;
  } catch (e) {
    process.stderr.write(`${describeFatal(e)}\n`);
    return 1;
  }
  const [{ McpConnection }, { planRegistrations }] = await Promise.all([
    import("../../mcp/connection.js"),
    import("../../mcp/register.js"),
  ]);
  const conn = new McpConnection(server, {
    host: mcpHost,
    env: process.env,
    logDir: paths.logs,
    clientVersion: VERSION,
    reconnect: { baseMs: 0, maxMs: 0, firstTries: 1, tries: 0 },
  });
  const started = performance.now();
  const stop = (): void => void conn.close().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await conn.start();
    if (conn.state.kind !== "ready") {
      const reason = conn.state.kind === "failed" ? conn.state.reason : conn.state.kind;
      err(`cannot connect to MCP server '${name}': ${reason}`);
      return 1;
    }
    const ms = Math.round(performance.now() - started);
    const plan = planRegistrations(conn);
    const defs = plan.registrations.map((r) => ({
      name: r.name,
      bytes: Buffer.byteLength(
        JSON.stringify({
          type: "function",
          function: { name: r.name, description: r.schema.description, parameters: r.schema.parameters },
        }),
      ),
    }));
    const leftOut = conn.rejected.length ? ` (${conn.rejected.length} left out, see below)` : "";
    out(
      `Connected to MCP server '${name}' (${server.transport}) in ${ms} ms: ${conn.tools.length} tools${leftOut}.`,
    );
    const width = Math.max(4, ...defs.map((d) => d.name.length));
    out(`${"TOOL".padEnd(width)}  ${"BYTES".padStart(7)}  ${"~TOKENS".padStart(7)}`);
    for (const d of defs)
      out(
        `${d.name.padEnd(width)}  ${String(d.bytes).padStart(7)}  ${String(approxTokens(d.bytes)).padStart(7)}`,
      );
    const total = defs.reduce((sum, d) => sum + d.bytes, 0);
    out(`${"total".padEnd(width)}  ${String(total).padStart(7)}  ${String(approxTokens(total)).padStart(7)}`);
    // One line per tool the agent will not get, and per tool it gets under another name.
    for (const r of conn.rejected) out(`Left out tool '${r.name}': ${r.reason}.`);
    for (const note of plan.renamed) out(`Renamed: ${note}.`);
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await conn.close();
  }
}
