/** Loopback stand-ins for the media providers' HTTP APIs, recording what they were asked. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { HermesConfig } from "../../../src/core/config-defaults.js";
import { registerMediaTools } from "../../../src/tools/builtin/media/index.js";
import type { HermesToolRegistry, ToolContext } from "../../../src/tools/context.js";
import { ToolRegistry } from "../../../src/tools/registry.js";

export interface StandInRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are JSON the tests poke into.
  body: any;
}

export interface StandIn {
  url: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

export type Route = (req: StandInRequest, res: ServerResponse, url: string) => void;

export async function startStandIn(route: Route): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  let base = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const recorded: StandInRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      requests.push(recorded);
      route(recorded, res, base);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export const json = (res: ServerResponse, status: number, value: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};

/** The media tools in a registry of their own, reading `env`, and a call of `tool` that parses its result. */
export function mediaTools(
  ctx: ToolContext,
  config: HermesConfig,
  env: Record<string, string | undefined>,
  tool: string,
) {
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registerMediaTools(registry, config, { env });
  const withConfig: ToolContext = { ...ctx, config };
  return {
    registry,
    call: async (args: Record<string, unknown>) =>
      JSON.parse(await registry.dispatch(tool, args, withConfig)) as Record<string, unknown>,
  };
}
