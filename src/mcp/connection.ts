/**
 * One MCP server: connects (retrying with backoff), lists its tools, follows `list_changed`, runs
 * calls with the server's timeout, and reconnects with backoff when the server dies. Failures are
 * data: every call resolves to a result the model can read.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type FaultSource, runAsSource } from "../core/fault-source.js";
import type { ToolResult } from "../tools/result.js";
import type { McpServerConfig } from "./config.js";
import { type McpHost, serverEnv } from "./host.js";
import { sanitizeName } from "./names.js";
import { mapCallResult, mcpError } from "./results.js";
import { loadSdk } from "./sdk.js";
import type { StdioServerTransport } from "./stdio-transport.js";
import { type CheckedTools, checkTools, type RejectedTool } from "./tool-check.js";

export interface ServerTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

export type ConnectionState =
  | { kind: "connecting"; attempt: number }
  | { kind: "ready" }
  | { kind: "reconnecting"; attempt: number; of: number; delayMs: number; reason: string }
  | { kind: "failed"; reason: string }
  | { kind: "closed" };

export interface ReconnectPolicy {
  /** First delay; doubles per attempt. */
  baseMs: number;
  maxMs: number;
  /** Attempts when the server first starts, and after it dies. */
  firstTries: number;
  tries: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { baseMs: 1000, maxMs: 60_000, firstTries: 3, tries: 5 };

export interface ConnectionOptions {
  host: McpHost;
  /** The environment a stdio server inherits (credential-shaped names are left out). */
  env: NodeJS.ProcessEnv;
  /** Folder for `mcp-<server>.log` (the servers' stderr). */
  logDir: string;
  clientVersion: string;
  reconnect?: ReconnectPolicy;
  onState?: (state: ConnectionState) => void;
  /** After each (re)connection and each tool-list change. */
  onTools?: (tools: readonly ServerTool[]) => void;
}

/** A client error's JSON-RPC code (the SDK's McpError), if any. */
const codeOf = (err: unknown): number | undefined => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "number" ? code : undefined;
};
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;
const MAX_LIST_PAGES = 100;

export class McpConnection {
  state: ConnectionState = { kind: "connecting", attempt: 0 };
  tools: readonly ServerTool[] = [];
  /** Tools of the server's last list that were left out, and why. */
  rejected: readonly RejectedTool[] = [];
  capabilities = { resources: false, prompts: false };
  private client: Client | undefined;
  private transport: Transport | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly policy: ReconnectPolicy;
  private firstSettled: Promise<void> | undefined;
  /** Failed attempts in the current series: the backoff doubles with each. */
  private failures = 0;
  /** The client of the attempt in progress, and whether its server changed its tools meanwhile. */
  private pending: { client: Client; changed: boolean } | undefined;
  private readonly waiters: Array<() => void> = [];
  /** How many times the tool list was fetched (a list change fetches it again). */
  toolListings = 0;

  constructor(
    readonly config: McpServerConfig,
    private readonly opts: ConnectionOptions,
  ) {
    this.policy = opts.reconnect ?? DEFAULT_RECONNECT;
  }

  get name(): string {
    return this.config.name;
  }

  /** What this server's client code runs as: an error it leaves uncaught is the server's. */
  private get source(): FaultSource {
    return `mcp:${this.config.name}`;
  }

  get pid(): number | undefined {
    return (this.transport as StdioServerTransport | undefined)?.pid;
  }

  /** Starts connecting; resolves when the first attempt has succeeded or failed (later retries go on). */
  start(): Promise<void> {
    this.firstSettled ??= new Promise((resolve) => {
      void runAsSource(this.source, () => this.attempt(1, this.policy.firstTries, resolve));
    });
    return this.firstSettled;
  }

  /** Runs a request on the live client with the server's timeout. Never throws. */
  async request(
    what: string,
    run: (client: Client, options: RequestOptions) => Promise<ToolResult>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const client = this.client;
    if (this.state.kind !== "ready" || !client) return mcpError(this.unavailable());
    const options: RequestOptions = { timeout: this.config.timeoutMs, ...(signal ? { signal } : {}) };
    try {
      return await runAsSource(this.source, () => run(client, options));
    } catch (err) {
      return mcpError(this.describeFailure(what, err, signal));
    }
  }

  callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    return this.request(
      `tool '${tool}'`,
      async (client, options) =>
        mapCallResult(await client.callTool({ name: tool, arguments: args }, undefined, options)),
      signal,
    );
  }

  /** Stops reconnecting and ends the server (its process group for stdio). */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryTimer);
    this.setState({ kind: "closed" });
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    try {
      if (client) await client.close();
      else await transport?.close();
    } catch {
      // Closing a dead connection has nothing left to do.
    }
  }

  /** The stderr a stdio server wrote last (for `hermes mcp test`). */
  get stderrTail(): string {
    return (this.transport as StdioServerTransport | undefined)?.stderrTail ?? "";
  }

  /** Resolves once the server is connected, has given up or is closed (at once if it is). */
  settled(): Promise<void> {
    const k = this.state.kind;
    if (k === "ready" || k === "failed" || k === "closed") return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    if (state.kind === "ready" || state.kind === "failed" || state.kind === "closed")
      for (const resolve of this.waiters.splice(0)) resolve();
    this.opts.onState?.(state);
  }

  private unavailable(): string {
    const s = this.state;
    const who = `MCP server '${this.name}'`;
    switch (s.kind) {
      case "connecting":
        return `${who} is still connecting; try again shortly.`;
      case "reconnecting":
        return `${who} is not connected (${s.reason}); reconnecting (attempt ${s.attempt} of ${s.of}).`;
      case "failed":
        return `${who} is unavailable: ${s.reason}`;
      case "closed":
        return `${who} has been shut down.`;
      case "ready":
        return `${who} is not connected.`;
    }
  }

  private describeFailure(what: string, err: unknown, signal: AbortSignal | undefined): string {
    const who = `MCP server '${this.name}'`;
    if (signal?.aborted) return `The call to ${what} of ${who} was interrupted.`;
    const code = codeOf(err);
    if (code === REQUEST_TIMEOUT)
      return `${who} did not answer ${what} within ${this.config.timeoutMs / 1000} s; the call was cancelled.`;
    if (code === CONNECTION_CLOSED || this.state.kind !== "ready") {
      const how = (this.transport as StdioServerTransport | undefined)?.exitDescription;
      return `${who} stopped during ${what}${how ? ` (${how})` : ""}; it is being restarted, so a later call may work.`;
    }
    const message = err instanceof Error ? err.message : String(err);
    if (this.config.transport !== "stdio" && err instanceof TypeError) {
      // fetch failed: the HTTP server went away; reconnect in the background.
      this.dropped(this.client, `request failed: ${message}`);
      return `${who} could not be reached for ${what} (${message}); reconnecting.`;
    }
    return `${who} failed ${what}: ${message}`;
  }

  private async attempt(n: number, tries: number, settled?: () => void): Promise<void> {
    if (this.closing) return settled?.();
    this.setState({ kind: "connecting", attempt: n });
    try {
      await this.connectOnce();
      this.failures = 0;
      this.setState({ kind: "ready" });
      this.opts.onTools?.(this.tools);
    } catch (err) {
      if (this.closing) return settled?.();
      const reason = this.failureReason(err);
      this.failures += 1;
      if (n >= tries) this.setState({ kind: "failed", reason });
      else this.retry(n + 1, tries, reason);
    }
    settled?.();
  }

  /** Schedules attempt `n` of `tries` after a delay that doubles with each failure so far. */
  private retry(n: number, tries: number, reason: string): void {
    const delayMs = Math.min(this.policy.maxMs, this.policy.baseMs * 2 ** Math.max(0, this.failures - 1));
    this.setState({ kind: "reconnecting", attempt: n, of: tries, delayMs, reason });
    this.retryTimer = setTimeout(() => void runAsSource(this.source, () => this.attempt(n, tries)), delayMs);
    this.retryTimer.unref();
  }

  private failureReason(err: unknown): string {
    const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
    const detail = cause?.code ?? cause?.message;
    const message = `${err instanceof Error ? err.message : String(err)}${detail ? ` (${detail})` : ""}`;
    const how = (this.transport as StdioServerTransport | undefined)?.exitDescription;
    const tail = this.stderrTail.split("\n").slice(-3).join(" | ");
    return [message, how && `process ${how}`, tail && `stderr: ${tail}`].filter(Boolean).join("; ");
  }

  private async connectOnce(): Promise<void> {
    const sdk = await loadSdk();
    const transport = this.makeTransport(sdk);
    const client = new sdk.Client(
      { name: "hermes-agent", version: this.opts.clientVersion },
      {
        capabilities: {},
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.refreshTools(client) },
        },
      },
    );
    this.client = undefined;
    this.transport = transport;
    this.pending = { client, changed: false };
    client.onclose = () => this.dropped(client, "the connection closed");
    const timeoutMs = this.config.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      await Promise.race([client.connect(transport, { timeout: timeoutMs }), timeout]);
      const caps = client.getServerCapabilities() ?? {};
      this.capabilities = { resources: caps.resources !== undefined, prompts: caps.prompts !== undefined };
      const listed = caps.tools
        ? await Promise.race([this.listTools(client, timeoutMs), timeout])
        : undefined;
      this.tools = listed?.tools ?? [];
      this.rejected = listed?.rejected ?? [];
    } catch (err) {
      this.pending = undefined;
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    const changed = this.pending?.changed === true;
    this.pending = undefined;
    if (this.closing) {
      await client.close().catch(() => undefined);
      throw new Error("closed while connecting");
    }
    this.client = client;
    // A change announced while the first list was being taken may not be in it.
    if (changed) void this.refreshTools(client);
  }

  private makeTransport(sdk: Awaited<ReturnType<typeof loadSdk>>): Transport {
    const c = this.config;
    const headers = c.headers;
    if (c.transport === "http")
      return new sdk.StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers } });
    if (c.transport === "sse")
      return new sdk.SSEClientTransport(new URL(c.url), {
        requestInit: { headers },
        eventSourceInit: {
          fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }),
        },
      });
    return new sdk.StdioServerTransport({
      command: c.command,
      args: c.args,
      env: serverEnv(this.opts.env, c.env, this.opts.host.isCredentialName),
      cwd: c.cwd,
      logFile: join(this.opts.logDir, `mcp-${sanitizeName(c.name)}.log`),
      host: this.opts.host,
    });
  }

  /** The live client went away unexpectedly: restart with backoff. */
  private dropped(client: Client | undefined, why: string): void {
    if (this.closing || !client || client !== this.client) return;
    this.client = undefined;
    const how = (this.transport as StdioServerTransport | undefined)?.exitDescription;
    void client.close().catch(() => undefined);
    this.failures = 1;
    this.retry(1, this.policy.tries, how ? `the server process ended (${how})` : why);
  }

  private async refreshTools(client: Client): Promise<void> {
    if (this.pending?.client === client) {
      this.pending.changed = true;
      return;
    }
    if (client !== this.client) return;
    try {
      const listed = await this.listTools(client, this.config.connectTimeoutMs);
      if (client !== this.client) return;
      this.tools = listed.tools;
      this.rejected = listed.rejected;
      this.opts.onTools?.(this.tools);
    } catch {
      // The next list_changed or reconnection lists again.
    }
  }

  /**
   * Every tool of the server, page by page, each checked on its own (see tool-check.ts). The pages
   * are read as they come rather than through the SDK's `listTools`, so one malformed tool does not
   * cost the others; the SDK therefore does not check call results against output schemas either
   * (the model reads what the tool returned).
   */
  private async listTools(client: Client, timeoutMs: number): Promise<CheckedTools> {
    this.toolListings += 1;
    const { PaginatedResultSchema } = await loadSdk();
    const raw: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const r = await client.request(
        { method: "tools/list", ...(cursor ? { params: { cursor } } : {}) },
        PaginatedResultSchema,
        { timeout: timeoutMs },
      );
      const tools = (r as { tools?: unknown }).tools;
      if (!Array.isArray(tools)) throw new Error("the server's tools/list answer has no list of tools");
      raw.push(...tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return checkTools(raw);
  }
}
