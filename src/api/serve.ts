/**
 * `hermes api serve`: the API server on its own, in the foreground, until SIGTERM or SIGINT; then
 * running requests get `gateway.drain_timeout` seconds to finish before they are interrupted.
 */
import { loadConfig } from "../core/config.js";
import { relaunchUnderHeapBudget } from "../core/heap.js";
import { ensureHermesHome, getHermesHome } from "../core/home.js";
import { VERSION } from "../core/version.js";
import { installCrashGuard } from "../runtime/crash-guard.js";
import { createRuntime, type Runtime } from "../runtime/runtime.js";
import { createApiServer } from "./server.js";
import { type ApiServerOptions, resolveApiOptions } from "./settings.js";

export interface ServeFlags {
  host?: string;
  port?: number;
}

const fail = (message: string): number => {
  process.stderr.write(`hermes: ${message}\n`);
  return 1;
};

/** Resolves with the exit code: 0 after a clean stop, 1 when the server cannot start. */
export async function runApiServe(flags: ServeFlags): Promise<number> {
  let options: ApiServerOptions;
  let drainMs: number;
  try {
    // The key is checked before the runtime is built: no key, no provider set-up, no listening.
    const paths = ensureHermesHome(getHermesHome());
    const { config } = loadConfig(paths.config);
    options = resolveApiOptions({
      settings: config.platforms.api_server as unknown as Record<string, unknown>,
      env: process.env,
      dotEnvPath: paths.env,
      platformToolsets: config.platform_toolsets,
      overrides: flags,
    });
    drainMs = Math.max(0, config.gateway.drain_timeout) * 1000;
    relaunchUnderHeapBudget(config.gateway.max_heap_mb);
  } catch (err) {
    return fail((err as Error).message);
  }
  let runtime: Runtime;
  try {
    runtime = createRuntime({ platform: "api_server", version: VERSION });
  } catch (err) {
    return fail((err as Error).message);
  }
  for (const warning of runtime.configWarnings) process.stderr.write(`warning: ${warning}\n`);
  // An error nobody caught (a plugin's timer, an MCP client) is logged; the server keeps serving.
  const guard = installCrashGuard({
    runtime,
    log: runtime.logger.log,
    say: (line) => void process.stderr.write(`${line}\n`),
  });
  const server = createApiServer({ runtime, options });
  try {
    const { url } = await server.start();
    process.stdout.write(`API server listening on ${url}\n`);
  } catch (err) {
    guard.dispose();
    await runtime.dispose();
    return fail((err as Error).message);
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  // A second signal while draining stops at once.
  const force = (): never => process.exit(130);
  process.once("SIGTERM", force);
  process.once("SIGINT", force);
  process.stderr.write(`${signal}: stopping (running requests get up to ${drainMs / 1000} s)\n`);
  await server.stop(drainMs);
  await runtime.dispose();
  guard.dispose();
  process.off("SIGTERM", force);
  process.off("SIGINT", force);
  return 0;
}
