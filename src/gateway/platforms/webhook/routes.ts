/**
 * Webhook routes from `platforms.webhook.routes.<name>`: which secret signs a route's requests, how
 * its JSON payload becomes the agent's prompt, which events it takes, which skills its turns load,
 * and where answers go (a callback URL or a chat of another platform of the gateway).
 */

import { isRecord } from "../../../core/is-record.js";
import type { ChatAddress, GatewayLink } from "../../types.js";

export interface WebhookRoute {
  name: string;
  /** The route's own secret, else the platform's; undefined means the route refuses every request. */
  secret?: string;
  /** Requests must carry a signed X-Hermes-Timestamp (the route's own setting, else the platform's). */
  requireTimestamp: boolean;
  /** `{{field}}` / `{{nested.field}}` placeholders; undefined sends the payload pretty-printed. */
  prompt?: string;
  /** Event names accepted (X-GitHub-Event / X-Event-Type); undefined accepts all. */
  events?: string[];
  /** Where answers are POSTed; undefined logs them only (or sends them to `deliverChat`). */
  deliver?: { url: string; headers: Record<string, string>; timeoutMs: number };
  /** `deliver: <platform>` with `deliver_extra.chat_id`: answers go to that chat of the gateway. */
  deliverChat?: ChatAddress;
  /** Skills loaded for each turn of the route. */
  skills?: string[];
  /** `deliver_only`: the rendered template itself is delivered, and no agent runs. */
  deliverOnly: boolean;
  /**
   * Why the route cannot work as configured (a platform target without chat_id, deliver_only with
   * nowhere to deliver): it is refused at start, the other routes run.
   */
  problem?: string;
}

export interface WebhookSettings {
  host: string;
  port: number;
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  routes: Map<string, WebhookRoute>;
}

const ROUTE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_DELIVER_TIMEOUT_MS = 30_000;

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v : undefined);

function num(v: unknown, fallback: number, what: string): number {
  if (v === undefined || v === null || v === "") return fallback;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`platforms.webhook.${what} must be a number ≥ 0 (got ${JSON.stringify(v)})`);
  return n;
}

/**
 * Reads the adapter settings (`platforms.webhook` merged with `extra`). Throws an Error naming the
 * key when a route is malformed: a webhook that silently drops a misconfigured route is worse.
 */
export function parseWebhookSettings(
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): WebhookSettings {
  const defaultSecret = str(settings.secret) ?? str(env.WEBHOOK_SECRET);
  const requireTimestamp = flag(settings.require_timestamp, "platforms.webhook.require_timestamp") ?? false;
  const routes = new Map<string, WebhookRoute>();
  const raw = settings.routes ?? {};
  if (!isRecord(raw))
    throw new Error("platforms.webhook.routes must be a mapping of route names to settings");
  for (const [name, value] of Object.entries(raw)) {
    routes.set(name, parseRoute(name, value, { secret: defaultSecret, requireTimestamp }));
  }
  return {
    host: str(settings.host) ?? "0.0.0.0",
    port: num(settings.port, 8644, "port"),
    rateLimitPerMinute: num(settings.rate_limit, 30, "rate_limit"),
    maxBodyBytes: num(settings.max_body_bytes, 1024 * 1024, "max_body_bytes"),
    routes,
  };
}

/** A true/false setting; undefined when absent. */
function flag(v: unknown, where: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new Error(`${where} must be true or false`);
  return v;
}

function parseRoute(
  name: string,
  value: unknown,
  defaults: { secret: string | undefined; requireTimestamp: boolean },
): WebhookRoute {
  const where = `platforms.webhook.routes.${name}`;
  if (!ROUTE_NAME.test(name)) throw new Error(`${where}: route names use letters, digits, _ and - only`);
  if (value === null || value === undefined) value = {};
  if (!isRecord(value)) throw new Error(`${where} must be a mapping (secret, prompt, events, deliver)`);
  const requireTimestamp =
    flag(value.require_timestamp, `${where}.require_timestamp`) ?? defaults.requireTimestamp;
  const route: WebhookRoute = { name, requireTimestamp, deliverOnly: false };
  const secret = str(value.secret) ?? defaults.secret;
  if (secret) route.secret = secret;
  if (value.prompt !== undefined) {
    if (typeof value.prompt !== "string") throw new Error(`${where}.prompt must be a string`);
    route.prompt = value.prompt;
  }
  if (value.events !== undefined) route.events = names(value.events, `${where}.events`, "event names");
  if (value.skills !== undefined) route.skills = names(value.skills, `${where}.skills`, "skill names");
  route.deliverOnly = flag(value.deliver_only, `${where}.deliver_only`) ?? false;
  const target = value.deliver;
  if (typeof target === "string" && !target.includes("://")) {
    const platform = target.trim();
    if (platform !== "" && platform !== "log") {
      const chat = parseChat(where, platform, value.deliver_extra);
      if (typeof chat === "string") route.problem = chat;
      else route.deliverChat = chat;
    }
  } else if (target !== undefined && target !== null) {
    route.deliver = parseDeliver(where, target);
  }
  if (route.deliverOnly && !route.deliver && !route.deliverChat) {
    route.problem ??= "deliver_only is set but the route has no deliver target (a URL or a platform)";
  }
  return route;
}

/** A list of names, or one comma-separated string. */
function names(value: unknown, where: string, what: string): string[] {
  const list = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(list) || list.some((e) => typeof e !== "string")) {
    throw new Error(`${where} must be a list of ${what}`);
  }
  return list.map((e: string) => e.trim()).filter(Boolean);
}

/** `deliver: <platform>` + `deliver_extra`: the chat, or why the route cannot deliver there. */
function parseChat(where: string, platform: string, extra: unknown): ChatAddress | string {
  if (platform === "webhook") {
    return "deliver: webhook would hand the answer back to the webhook platform; use deliver.url for a callback";
  }
  if (extra !== undefined && extra !== null && !isRecord(extra)) {
    throw new Error(`${where}.deliver_extra must be a mapping (chat_id, thread_id)`);
  }
  const id = (v: unknown): string | undefined =>
    typeof v === "number" && Number.isFinite(v) ? String(v) : str(v)?.trim();
  const e = isRecord(extra) ? extra : {};
  const chatId = id(e.chat_id);
  if (!chatId) return `deliver: ${platform} needs deliver_extra.chat_id (the chat the answers go to)`;
  const threadId = id(e.thread_id);
  return { platform, chatId, ...(threadId ? { threadId } : {}) };
}

function parseDeliver(where: string, value: unknown): NonNullable<WebhookRoute["deliver"]> {
  const d = typeof value === "string" ? { url: value } : value;
  if (!isRecord(d) || typeof d.url !== "string") throw new Error(`${where}.deliver must have a url`);
  let url: URL;
  try {
    url = new URL(d.url);
  } catch {
    throw new Error(`${where}.deliver.url is not a URL: ${d.url}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`${where}.deliver.url must be http(s): ${d.url}`);
  }
  const headers: Record<string, string> = {};
  if (d.headers !== undefined) {
    if (!isRecord(d.headers)) throw new Error(`${where}.deliver.headers must be a mapping`);
    for (const [k, v] of Object.entries(d.headers)) headers[k] = String(v);
  }
  const timeoutMs =
    d.timeout === undefined
      ? DEFAULT_DELIVER_TIMEOUT_MS
      : num(d.timeout, 30, `routes deliver.timeout`) * 1000;
  return { url: url.toString(), headers, timeoutMs };
}

/**
 * Why `route` cannot run in this gateway, or undefined when it can: its own problem, a target
 * platform that is not part of the gateway, a skill that cannot be loaded. `link` is undefined when
 * the adapter runs outside a gateway, where neither other platforms nor skills are within reach.
 */
export function routeProblem(route: WebhookRoute, link: GatewayLink | undefined): string | undefined {
  if (route.problem) return route.problem;
  const needs = route.deliverChat
    ? `deliver: ${route.deliverChat.platform}`
    : route.deliverOnly
      ? "deliver_only"
      : route.skills?.length
        ? "skills"
        : "";
  if (!needs) return undefined;
  if (!link) return `${needs} needs the gateway (hermes gateway run)`;
  const platforms = link.platforms();
  if (route.deliverChat && !platforms.includes(route.deliverChat.platform)) {
    return `deliver: ${route.deliverChat.platform} is not a platform running in this gateway (running: ${platforms.join(", ")})`;
  }
  for (const skill of route.skills ?? []) {
    const why = link.skillProblem(skill);
    if (why) return `skills: ${why}`;
  }
  return undefined;
}

/**
 * The prompt for one payload: placeholders are replaced by the field's value (objects as JSON, a
 * missing field as an empty string); without a template, the whole payload pretty-printed.
 */
export function renderPrompt(template: string | undefined, payload: unknown): string {
  if (template === undefined) return JSON.stringify(payload, null, 2);
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, path: string) => {
    const value = lookup(payload, path.split("."));
    if (value === undefined || value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}

function lookup(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isRecord(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur;
}
