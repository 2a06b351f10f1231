/**
 * The API server as a service of the gateway process: it shares the gateway's runtime and stops
 * with it. The shape matches the gateway's service interface structurally (front ends never
 * import each other).
 */
import type { Runtime } from "../runtime/runtime.js";
import type { ApiLog } from "./context.js";
import { createApiServer } from "./server.js";
import { resolveApiOptions } from "./settings.js";

export interface ApiServiceContext {
  runtime: Runtime;
  /** `platforms.api_server` (its `extra` block merged in or not). */
  settings: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  log: ApiLog;
}

export interface ApiService {
  readonly name: "api_server";
  start(): Promise<void>;
  stop(drainMs: number): Promise<void>;
  status(): Record<string, unknown>;
}

/** Builds the service; throws ApiSetupError (no key, a short key, a bad port) before anything listens. */
export async function createApiService(ctx: ApiServiceContext): Promise<ApiService> {
  const options = resolveApiOptions({
    settings: ctx.settings,
    env: ctx.env,
    dotEnvPath: ctx.runtime.paths.env,
    platformToolsets: ctx.runtime.config.platform_toolsets,
  });
  const server = createApiServer({ runtime: ctx.runtime, options, log: ctx.log });
  return {
    name: "api_server",
    start: async () => {
      const { url } = await server.start();
      ctx.log("info", `API server listening on ${url}`);
    },
    stop: (drainMs) => server.stop(drainMs),
    status: () => server.status(),
  };
}
