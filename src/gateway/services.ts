/**
 * Services the process entry hands to the gateway: things that run inside the gateway process
 * beside the chat platforms (the API server). They live in other front ends, which the gateway
 * never imports, so the entry passes lazy factories in.
 */
import type { DeliveryLog } from "../runtime/delivery/types.js";
import type { Runtime } from "../runtime/runtime.js";
import type { GatewayService } from "./types.js";

/** What the gateway logs through (logs/gateway.log). */
export type GatewayLog = DeliveryLog;

export interface ServiceContext {
  /** The gateway's runtime: the service builds its agents with it. */
  runtime: Runtime;
  /** `platforms.<name>` merged with its `extra` block (see platforms/index.ts). */
  settings: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** Writes to logs/gateway.log. */
  log: GatewayLog;
}

/** Builds one service; called once per gateway start, only when the service is on. */
export type ServiceFactory = (context: ServiceContext) => Promise<GatewayService>;

/** Service name (a `platforms` key, e.g. api_server) → a loader of its factory (a dynamic import). */
export type ServiceLoaders = Record<string, () => Promise<ServiceFactory>>;
