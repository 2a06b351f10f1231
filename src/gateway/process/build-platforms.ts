/**
 * Builds the adapters of the chat platforms that are on and the services the entry handed in. A
 * platform whose module or settings fail is reported and left out; the others run.
 */
import { join } from "node:path";
import type { Runtime } from "../../runtime/runtime.js";
import { loadAdapterFactory, type PlatformState } from "../platforms/index.js";
import type { GatewayLog, ServiceLoaders } from "../services.js";
import type { AdapterContext, GatewayService } from "../types.js";
import { errorText } from "./describe.js";
import { SupervisedAdapter } from "./supervised-adapter.js";

export interface BuiltPlatforms {
  adapters: SupervisedAdapter[];
  services: GatewayService[];
  /** name → why it could not be built. */
  failed: Map<string, string>;
}

export interface BuildPlatformsOptions {
  runtime: Runtime;
  states: readonly PlatformState[];
  services: ServiceLoaders;
  env: NodeJS.ProcessEnv;
  log: GatewayLog;
  onChange: (adapter: SupervisedAdapter) => void;
}

export async function buildPlatforms(options: BuildPlatformsOptions): Promise<BuiltPlatforms> {
  const { runtime, env, log } = options;
  const built: BuiltPlatforms = { adapters: [], services: [], failed: new Map() };
  const gateway = runtime.config.gateway;
  for (const state of options.states.filter((s) => s.on)) {
    const platformLog: GatewayLog = (level, message, fields) =>
      log(level, message, { platform: state.name, ...fields });
    try {
      if (state.kind === "service") {
        const loader = options.services[state.name];
        if (!loader) {
          built.failed.set(state.name, "this build of Hermes has no such service");
          continue;
        }
        const factory = await loader();
        built.services.push(await factory({ runtime, settings: state.settings, env, log: platformLog }));
        continue;
      }
      const factory = await loadAdapterFactory(state.name);
      const context: AdapterContext = {
        settings: state.settings,
        env,
        downloadDir: join(runtime.paths.cache, state.name),
        maxInboundBytes: gateway.max_inbound_media_bytes,
        log: platformLog,
      };
      const build = async () => await factory(context);
      built.adapters.push(
        new SupervisedAdapter(await build(), {
          build,
          connectTimeoutMs: gateway.platform_connect_timeout * 1000,
          log: platformLog,
          onChange: options.onChange,
        }),
      );
    } catch (err) {
      built.failed.set(state.name, errorText(err));
      log("error", "platform could not be built", { platform: state.name, error: errorText(err) });
    }
  }
  return built;
}
