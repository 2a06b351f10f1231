/**
 * Every configured MCP server of a process: connected in the background and in parallel, their
 * tools kept in the registry as servers come, change and go. The first request waits for them at
 * most `mcp_discovery_timeout` from start-up (`ready()`); a server that answers later joins with a
 * status event, and its tools reach the sessions that fix their tool list after that.
 */
import type { Logger } from "../core/log.js";
import { mark } from "../core/timing.js";
import type { HermesToolRegistry } from "../tools/context.js";
import type { McpServerConfig } from "./config.js";
import { type ConnectionOptions, type ConnectionState, McpConnection } from "./connection.js";
import { mcpToolsets } from "./names.js";
import { planRegistrations, removeRegistrations, syncRegistrations } from "./register.js";

export type McpStatusEvent =
  /** `late`: after the first request stopped waiting; `reconnected`: after the server had died. */
  | { kind: "connected"; server: string; tools: number; late: boolean; reconnected: boolean }
  | { kind: "tools_changed"; server: string; added: string[]; removed: string[] }
  | { kind: "disconnected"; server: string; reason: string }
  | { kind: "failed"; server: string; reason: string }
  /** A tool left out: its name is a built-in's, or the server sent it malformed. */
  | { kind: "skipped_tool"; server: string; message: string }
  /** A tool registered under a marked name because another tool has its plain one. */
  | { kind: "renamed_tool"; server: string; message: string };

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig["transport"];
  state: ConnectionState["kind"];
  /** Names this server has in the registry. */
  tools: string[];
  error?: string;
}

export interface McpManagerOptions extends Omit<ConnectionOptions, "onState" | "onTools"> {
  registry: HermesToolRegistry;
  /** Enabled servers only. */
  servers: readonly McpServerConfig[];
  discoveryTimeoutMs: number;
  /** When discovery began (ms since the epoch): the deadline counts from it. Default: `start()`. */
  startedAt?: number;
  logger?: Logger;
  onStatus?: (event: McpStatusEvent) => void;
}

export interface ReloadOutcome {
  added: string[];
  removed: string[];
  restarted: string[];
}

interface Entry {
  conn: McpConnection;
  /** `mcp-<server>`, marked when another server's name sanitizes alike. */
  toolset: string;
  names: Set<string>;
  /** The registry name of each of the server's tools, as last synced. */
  assigned: Map<string, string>;
  connected: boolean;
  everConnected: boolean;
  first: Promise<void>;
  /** Collisions already reported: a later list change does not repeat them. */
  warned: Set<string>;
}

export class McpManager {
  private readonly entries = new Map<string, Entry>();
  private deadline = 0;
  private waiting: Promise<void> | undefined;
  private windowClosed = false;
  private closed = false;
  private toolsets: Map<string, string>;

  constructor(private readonly opts: McpManagerOptions) {
    this.toolsets = mcpToolsets(opts.servers.map((s) => s.name));
  }

  /** Starts every server (idempotent); returns at once. */
  start(): void {
    if (this.deadline) return;
    this.deadline = (this.opts.startedAt ?? Date.now()) + this.opts.discoveryTimeoutMs;
    for (const config of this.opts.servers) this.add(config);
    mark("mcp servers started");
  }

  /**
   * Resolves once every server has answered or failed its first attempt, or when the discovery
   * deadline (start + mcp_discovery_timeout) passes, whichever is first. Never rejects.
   */
  ready(): Promise<void> {
    this.start();
    this.waiting ??= this.settleBy(this.deadline).then(() => {
      this.windowClosed = true;
      mark("mcp discovery over");
    });
    return this.waiting;
  }

  statuses(): McpServerStatus[] {
    return [...this.entries.values()].map(({ conn, names }) => ({
      name: conn.name,
      transport: conn.config.transport,
      state: conn.state.kind,
      tools: [...names].sort(),
      ...(conn.state.kind === "failed" || conn.state.kind === "reconnecting"
        ? { error: conn.state.reason }
        : {}),
    }));
  }

  /** The live connection of a server (tests, `hermes mcp test`). */
  connection(name: string): McpConnection | undefined {
    return this.entries.get(name)?.conn;
  }

  /**
   * Applies a new server list: removed servers stop, new ones start, changed ones restart. Resolves
   * when every server still connecting (new or not) has connected or given up, or when the
   * discovery timeout has passed.
   */
  async reload(servers: readonly McpServerConfig[]): Promise<ReloadOutcome> {
    const outcome: ReloadOutcome = { added: [], removed: [], restarted: [] };
    const next = new Map(servers.map((s) => [s.name, s]));
    const toolsets = mcpToolsets(servers.map((s) => s.name));
    for (const [name, entry] of this.entries) {
      const wanted = next.get(name);
      const same = wanted && JSON.stringify(wanted) === JSON.stringify(entry.conn.config);
      // A server whose toolset a new server's name changed is restarted under the new one.
      if (same && toolsets.get(name) === entry.toolset) continue;
      await this.remove(name);
      if (wanted) outcome.restarted.push(name);
      else outcome.removed.push(name);
    }
    this.toolsets = toolsets;
    for (const config of servers) {
      if (this.entries.has(config.name)) continue;
      this.add(config);
      if (!outcome.restarted.includes(config.name)) outcome.added.push(config.name);
    }
    await this.settleBy(Date.now() + this.opts.discoveryTimeoutMs, true);
    return outcome;
  }

  /** Stops every server (their process groups included). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.values()].map((e) => e.conn.close()));
  }

  /** Waits for every first attempt (or, with `current`, every attempt now running) until `deadline`. */
  private settleBy(deadline: number, current = false): Promise<void> {
    const firsts = [...this.entries.values()].map((e) => (current ? e.conn.settled() : e.first));
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      void Promise.all(firsts).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private add(config: McpServerConfig): void {
    const {
      registry: _r,
      servers: _s,
      discoveryTimeoutMs: _d,
      logger: _l,
      onStatus: _o,
      ...connOpts
    } = this.opts;
    const entry: Entry = {
      conn: new McpConnection(config, {
        ...connOpts,
        onState: (state) => this.onState(entry, state),
        onTools: () => this.sync(entry),
      }),
      toolset: this.toolsets.get(config.name) ?? mcpToolsets([config.name]).get(config.name)!,
      names: new Set(),
      assigned: new Map(),
      connected: false,
      everConnected: false,
      first: Promise.resolve(),
      warned: new Set(),
    };
    this.entries.set(config.name, entry);
    entry.first = entry.conn.start();
  }

  private async remove(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    await entry.conn.close();
    removeRegistrations(this.opts.registry, entry.toolset, entry.names);
  }

  private emit(event: McpStatusEvent): void {
    const level =
      event.kind === "failed" || event.kind === "disconnected" || event.kind === "skipped_tool"
        ? "warn"
        : "info";
    this.opts.logger?.log(level, `mcp ${event.kind}`, { ...event });
    try {
      this.opts.onStatus?.(event);
    } catch {
      // A front end's listener never breaks the client.
    }
  }

  /** Who other than `entry` holds a registry name: another server's tool. */
  private holderOf(entry: Entry, name: string): string | undefined {
    for (const other of this.entries.values())
      if (other !== entry && other.names.has(name)) return `a tool of the MCP server '${other.conn.name}'`;
    return undefined;
  }

  private sync(entry: Entry): void {
    if (this.closed || this.entries.get(entry.conn.name) !== entry) return;
    const server = entry.conn.name;
    const plan = planRegistrations(entry.conn, {
      toolset: entry.toolset,
      takenBy: (name) => this.holderOf(entry, name),
      previous: entry.assigned,
    });
    const out = syncRegistrations(this.opts.registry, entry.toolset, entry.names, plan.registrations);
    entry.names = out.names;
    entry.assigned = plan.names;
    const notes: Array<Extract<McpStatusEvent, { message: string }>> = [
      ...entry.conn.rejected.map((r) => ({
        kind: "skipped_tool" as const,
        server,
        message: `tool '${r.name}': ${r.reason}`,
      })),
      ...out.skipped.map((message) => ({ kind: "skipped_tool" as const, server, message })),
      ...plan.renamed.map((message) => ({ kind: "renamed_tool" as const, server, message })),
    ];
    for (const note of notes) {
      if (entry.warned.has(note.message)) continue;
      entry.warned.add(note.message);
      this.emit(note);
    }
    if (!entry.connected) {
      entry.connected = true;
      this.emit({
        kind: "connected",
        server: entry.conn.name,
        tools: out.names.size,
        late: this.windowClosed,
        reconnected: entry.everConnected,
      });
      entry.everConnected = true;
    } else if (out.added.length || out.removed.length) {
      this.emit({ kind: "tools_changed", server: entry.conn.name, added: out.added, removed: out.removed });
    }
  }

  private onState(entry: Entry, state: ConnectionState): void {
    if (this.closed || this.entries.get(entry.conn.name) !== entry) return;
    const server = entry.conn.name;
    if (state.kind === "reconnecting" && entry.connected) {
      entry.connected = false;
      this.emit({ kind: "disconnected", server, reason: state.reason });
    } else if (state.kind === "failed") {
      entry.connected = false;
      removeRegistrations(this.opts.registry, entry.toolset, entry.names);
      entry.names.clear();
      this.emit({ kind: "failed", server, reason: state.reason });
    }
  }
}
