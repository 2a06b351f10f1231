import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, onTestFinished } from "vitest";
import { type McpServerConfig, parseServer } from "../../src/mcp/config.js";
import type { ReconnectPolicy } from "../../src/mcp/connection.js";
import type { McpHost } from "../../src/mcp/host.js";
import { McpManager, type McpStatusEvent } from "../../src/mcp/manager.js";
import type { ToolContext } from "../../src/tools/context.js";
import { killGroup, trackGroup, untrackGroup } from "../../src/tools/environments/process-groups.js";
import { isCredentialName } from "../../src/tools/environments/shell-state.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { ToolResult } from "../../src/tools/result.js";
import { BIN } from "../support/cli.js";
import { tempDir } from "../support/temp.js";

export const ROOT = join(import.meta.dirname, "..", "..");
export const FIXTURE = join(ROOT, "test", "fixtures", "mcp", "server.mjs");
export const EVERYTHING = join(
  ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "server-everything",
  "dist",
  "index.js",
);
export const FILESYSTEM = join(
  ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js",
);

export const host: McpHost = { isCredentialName, trackGroup, untrackGroup, killGroup };

/** A server entry as config.yaml would hold it. */
export function server(
  name: string,
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): McpServerConfig {
  const parsed = parseServer(name, raw, env);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

/** A fixture server of test/fixtures/mcp/server.mjs. */
export const fixture = (name: string, mode: string, extra: Record<string, unknown> = {}) =>
  server(name, { command: process.execPath, args: [FIXTURE, mode], ...extra });

export interface Harness {
  manager: McpManager;
  registry: ToolRegistry<ToolContext>;
  events: McpStatusEvent[];
  logDir: string;
  /** Runs a registered tool as the agent would. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** Resolves when an event matching `pred` has been seen. */
  waitFor(pred: (e: McpStatusEvent) => boolean, timeoutMs?: number): Promise<McpStatusEvent>;
}

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

/** A manager over `servers` with a fresh registry (closed after the test); reconnects are quick. */
export function startManager(
  servers: McpServerConfig[],
  options: {
    discoveryTimeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    registry?: ToolRegistry<ToolContext>;
    reconnect?: ReconnectPolicy;
  } = {},
): Harness {
  const registry = options.registry ?? new ToolRegistry<ToolContext>();
  const events: McpStatusEvent[] = [];
  const waiters: Array<{ pred: (e: McpStatusEvent) => boolean; resolve: (e: McpStatusEvent) => void }> = [];
  const logDir = tempDir("hermes-mcp-logs-");
  const manager = new McpManager({
    registry,
    servers,
    host,
    env: options.env ?? process.env,
    logDir,
    clientVersion: "test",
    discoveryTimeoutMs: options.discoveryTimeoutMs ?? 20_000,
    reconnect: options.reconnect ?? { baseMs: 100, maxMs: 1000, firstTries: 2, tries: 5 },
    onStatus: (e) => {
      events.push(e);
      for (const w of waiters.filter((x) => x.pred(e))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    },
  });
  managers.push(manager);
  manager.start();
  return {
    manager,
    registry,
    events,
    logDir,
    call: (name, args = {}) =>
      registry.dispatchResult(name, args, { signal: new AbortController().signal } as ToolContext),
    waitFor: (pred, timeoutMs = 20_000) => {
      const seen = events.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("status event not seen in time")), timeoutMs);
        waiters.push({
          pred,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
  };
}

export const textOf = (r: ToolResult): string =>
  r.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");

/** True while a process with this id runs (a zombie waiting to be reaped has ended). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Polls until `check` holds (or throws after `timeoutMs`). */
export async function until(check: () => boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} not reached in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Runs an HTTP MCP server (killed after the test); resolves to its /mcp URL once it listens. */
async function startHttp(
  args: string[],
  env: NodeJS.ProcessEnv,
  port?: number,
  path = "/mcp",
): Promise<{ url: string; pid: number }> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  const listening = await new Promise<number>((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), 15_000);
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /(?:listening|running) on (?:port )?(\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", () => reject(new Error(`the server exited: ${err}`)));
  });
  return { url: `http://127.0.0.1:${port ?? listening}${path}`, pid: child.pid! };
}

/** server-everything over Streamable HTTP on a free port. */
export async function startEverythingHttp(): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  return startHttp([EVERYTHING, "streamableHttp"], { ...process.env, PORT: String(port) }, port);
}

/** server-everything over the older SSE transport on a free port. */
export async function startEverythingSse(): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  return startHttp([EVERYTHING, "sse"], { ...process.env, PORT: String(port) }, port, "/sse");
}

/** A fixture server (test/fixtures/mcp/server.mjs) over Streamable HTTP. */
export function startFixtureHttp(mode: string): Promise<{ url: string; pid: number }> {
  return startHttp([FIXTURE, mode, "--http"], process.env);
}

/** The SDK's client on `hermes mcp serve` (the built binary) in `cwd`; closed after the test. */
export async function connectServe(env: NodeJS.ProcessEnv, cwd: string): Promise<Client> {
  const client = new Client({ name: "serve-test", version: "1.0.0" });
  onTestFinished(() => client.close());
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "serve"],
      env: env as Record<string, string>,
      cwd,
      stderr: "pipe",
    }),
  );
  return client;
}

/** The text of a tool call's answer, as the SDK's client received it. */
export const callText = (r: Awaited<ReturnType<Client["callTool"]>>): string =>
  (r.content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("");
