import { mkdtemp, realpath, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG, type HermesConfig } from "../../../src/core/config-defaults.js";
import { registerFileTools } from "../../../src/tools/builtin/files/index.js";
import { registerWebTools, type WebToolOptions } from "../../../src/tools/builtin/web/index.js";
import type { HermesToolRegistry, ToolContext } from "../../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../../src/tools/environments/local.js";
import { ToolRegistry } from "../../../src/tools/registry.js";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface TestServer {
  /** `http://host:port` */
  origin: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

/** A real HTTP server on a loopback address, recording every request it answers. */
export async function startServer(handler: Handler, host = "127.0.0.1", port = 0): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      Promise.resolve(handler(req, res, body)).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err.message));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    origin: `http://${shown}:${actual}`,
    port: actual,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface WebHarness {
  registry: HermesToolRegistry;
  config: HermesConfig;
  home: string;
  ctx: ToolContext;
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  dispose(): Promise<void>;
}

/** The web tools (and the file tools, to page spilled text) on a fresh HERMES_HOME. */
export async function createWebHarness(
  options: { config?: (c: HermesConfig) => void; tools?: WebToolOptions } = {},
): Promise<WebHarness> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "hermes-web-test-")));
  const config = structuredClone(DEFAULT_CONFIG);
  options.config?.(config);
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerFileTools(registry);
  registerWebTools(registry, config, options.tools ?? {});
  const provider = createLocalEnvironmentProvider({ cwd: base, home: base });
  const ctx: ToolContext = {
    taskId: "web-test",
    sessionId: "web-test-session",
    signal: new AbortController().signal,
    config,
    home: base,
    env: provider.get("web-test"),
    platform: "cli",
  };
  return {
    registry,
    config,
    home: base,
    ctx,
    async call(name, args) {
      return JSON.parse(await registry.dispatch(name, args, ctx)) as Record<string, unknown>;
    },
    async dispose() {
      await provider.disposeAll();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Results of a web_extract call, typed loosely for assertions. */
export function pages(result: Record<string, unknown>): Array<Record<string, unknown>> {
  return result.results as Array<Record<string, unknown>>;
}
