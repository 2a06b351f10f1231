import { homedir } from "node:os";
import { resolve } from "node:path";
import type { HermesConfig } from "../core/config.js";
import type { Runtime } from "../runtime/runtime.js";
import { isKnownToolset } from "../tools/toolsets.js";
import { platformSettings } from "./platforms/index.js";
import type { StreamingOptions } from "./reply.js";
import type { PlatformAdapter } from "./types.js";

/** How the runner reads its settings from config (docs/gateway.md, "Sessions, lanes and commands"). */

export type BusyMode = "queue" | "interrupt" | "steer";

/** `gateway.busy_mode`; anything unknown queues (nothing is lost). */
export function busyModeOf(config: HermesConfig): BusyMode {
  const mode = String(config.gateway.busy_mode).toLowerCase();
  return mode === "interrupt" || mode === "steer" ? mode : "queue";
}

/** The terminal's working directory (`terminal.cwd`, relative to where the gateway started). */
export function defaultWorkDir(config: HermesConfig): string {
  return resolve(process.cwd(), config.terminal.cwd.replace(/^~(?=$|\/)/, homedir()));
}

/** In a group, whether the bot answers only when addressed (`platforms.<name>.require_mention`, default on). */
export function requireMention(runtime: Runtime, platform: string): boolean {
  return platformSettings(runtime.config, platform).require_mention !== false;
}

/** `platform_toolsets.<platform>`, else the platform's `hermes-<platform>` preset when there is one. */
export function toolsetsFor(runtime: Runtime, platform: string): string[] | undefined {
  const own = runtime.config.platform_toolsets[platform];
  if (Array.isArray(own)) return own.map(String);
  if (typeof own === "string" && own.trim())
    return own
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  const preset = `hermes-${platform.replace(/_/g, "-")}`;
  return isKnownToolset(preset) ? [preset] : undefined;
}

export function streamingFor(runtime: Runtime, adapter: PlatformAdapter): StreamingOptions {
  const s = runtime.config.streaming;
  const own = platformSettings(runtime.config, adapter.name).streaming;
  return {
    // A platform that cannot edit a message (a webhook callback) gets only the final answer.
    enabled: s.enabled && own !== false && Number.isFinite(adapter.minEditIntervalMs),
    editIntervalMs: Math.max(s.edit_interval * 1000, adapter.minEditIntervalMs),
    bufferThreshold: s.buffer_threshold,
  };
}

/** Whether `p` settles within `ms`. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}
