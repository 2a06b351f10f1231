/**
 * Which platforms are on, with what settings, and how to build them. A platform's module (and its
 * SDK) is imported only when the platform is on: this file imports no adapter.
 */
import { isDeepStrictEqual } from "node:util";
import type { HermesConfig } from "../../core/config.js";
import { GATEWAY_DEFAULTS, type PlatformsSettings } from "../../core/config-gateway.js";
import { isRecord } from "../../core/is-record.js";
import type { AdapterFactory } from "../types.js";

export type PlatformName = keyof PlatformsSettings;

/** A chat platform has an adapter the runner drives; a service answers its own requests (API server). */
export type PlatformKind = "chat" | "service";

interface PlatformSpec {
  name: PlatformName;
  kind: PlatformKind;
  /** What turns it on, for the "no platform is on" message. */
  howToEnable: string;
  /** Why it is on, or undefined when it is off. */
  onBecause(settings: Record<string, unknown>, env: NodeJS.ProcessEnv): string | undefined;
  /** A reason it stays off although it was asked for (webhook enabled without routes). */
  offBecause?(settings: Record<string, unknown>): string | undefined;
}

const isSet = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";
const truthy = (v: string | undefined): boolean => /^(1|true|yes|on)$/i.test(v?.trim() ?? "");
const routeCount = (settings: Record<string, unknown>): number => {
  const routes = settings.routes;
  return isRecord(routes) ? Object.keys(routes).length : 0;
};

const SPECS: readonly PlatformSpec[] = [
  {
    name: "telegram",
    kind: "chat",
    howToEnable: "TELEGRAM_BOT_TOKEN (environment or HERMES_HOME/.env), or platforms.telegram.enabled: true",
    onBecause: (s, env) =>
      isSet(env.TELEGRAM_BOT_TOKEN)
        ? "TELEGRAM_BOT_TOKEN is set"
        : isSet(s.token)
          ? "platforms.telegram token is set"
          : s.enabled === true
            ? "platforms.telegram.enabled is true"
            : undefined,
  },
  {
    name: "webhook",
    kind: "chat",
    howToEnable: "platforms.webhook.enabled: true with at least one route under platforms.webhook.routes",
    onBecause: (s) =>
      s.enabled === true && routeCount(s) > 0
        ? `platforms.webhook.enabled is true (${routeCount(s)} routes)`
        : undefined,
    offBecause: (s) =>
      s.enabled === true && routeCount(s) === 0
        ? "platforms.webhook.enabled is true but platforms.webhook.routes is empty"
        : undefined,
  },
  {
    name: "api_server",
    kind: "service",
    howToEnable: "API_SERVER_KEY (environment or HERMES_HOME/.env), or platforms.api_server.enabled: true",
    onBecause: (s, env) =>
      isSet(env.API_SERVER_KEY)
        ? "API_SERVER_KEY is set"
        : isSet(s.key)
          ? "platforms.api_server.key is set"
          : truthy(env.API_SERVER_ENABLED)
            ? "API_SERVER_ENABLED is set"
            : s.enabled === true
              ? "platforms.api_server.enabled is true"
              : undefined,
  },
];

export const PLATFORM_NAMES: readonly PlatformName[] = SPECS.map((s) => s.name);

const recordAt = (parent: unknown, key: string): Record<string, unknown> => {
  const value = isRecord(parent) ? parent[key] : undefined;
  return isRecord(value) ? value : {};
};

/**
 * `platforms.<name>` merged with its `extra` block. The original keeps most settings in `extra`;
 * a key written outside it wins. Loaded config holds defaults and user values alike, so a key
 * counts as written when its value differs from the default.
 */
export function platformSettings(config: HermesConfig, name: string): Record<string, unknown> {
  const own = recordAt(config.platforms, name);
  const defaults = recordAt(GATEWAY_DEFAULTS.platforms, name);
  const extra = isRecord(own.extra) ? own.extra : {};
  const merged: Record<string, unknown> = { ...own, ...extra };
  for (const [key, value] of Object.entries(own)) {
    if (key !== "extra" && !isDeepStrictEqual(value, defaults[key])) merged[key] = value;
  }
  delete merged.extra;
  return merged;
}

export interface PlatformState {
  name: PlatformName;
  kind: PlatformKind;
  on: boolean;
  /** Why it is on, or why it stays off although asked for; absent when simply not configured. */
  reason?: string;
  settings: Record<string, unknown>;
}

/** Every known platform with whether it is on. `env` must already hold HERMES_HOME/.env (loadDotEnv). */
export function detectPlatforms(config: HermesConfig, env: NodeJS.ProcessEnv): PlatformState[] {
  return SPECS.map((spec) => {
    const settings = platformSettings(config, spec.name);
    const on = spec.onBecause(settings, env);
    const off = on ? undefined : spec.offBecause?.(settings);
    const reason = on ?? off;
    return {
      name: spec.name,
      kind: spec.kind,
      on: on !== undefined,
      ...(reason ? { reason } : {}),
      settings,
    };
  });
}

/** The message when no platform is on: every variable and key that turns one on. */
export function noPlatformMessage(states: readonly PlatformState[]): string {
  const lines = ["No gateway platform is on. Turn one on with:"];
  for (const spec of SPECS) lines.push(`  ${spec.name}: ${spec.howToEnable}`);
  for (const s of states) if (!s.on && s.reason) lines.push(`(${s.name}: ${s.reason})`);
  lines.push("See docs/gateway.md.");
  return lines.join("\n");
}

/** Imports a chat platform's adapter module (and its SDK) on demand. */
export async function loadAdapterFactory(name: string): Promise<AdapterFactory> {
  switch (name) {
    case "telegram":
      return (await import("./telegram/adapter.js")).createTelegramAdapter;
    case "webhook":
      return (await import("./webhook/adapter.js")).createWebhookAdapter;
    default:
      throw new Error(`'${name}' is not a chat platform (known: telegram, webhook)`);
  }
}
