/**
 * Webhook routes from `platforms.webhook.routes.<name>`: which secret signs a route's requests, how
 * its JSON payload becomes the agent's prompt, which events it takes, and where answers go.
 */

export interface WebhookRoute {
  name: string;
  /** The route's own secret, else the platform's; undefined means the route refuses every request. */
  secret?: string;
  /** `{{field}}` / `{{nested.field}}` placeholders; undefined sends the payload pretty-printed. */
  prompt?: string;
  /** Event names accepted (X-GitHub-Event / X-Event-Type); undefined accepts all. */
  events?: string[];
  /** Where answers are POSTed; undefined logs them only. */
  deliver?: { url: string; headers: Record<string, string>; timeoutMs: number };
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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

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
  const routes = new Map<string, WebhookRoute>();
  const raw = settings.routes ?? {};
  if (!isObject(raw))
    throw new Error("platforms.webhook.routes must be a mapping of route names to settings");
  for (const [name, value] of Object.entries(raw)) {
    routes.set(name, parseRoute(name, value, defaultSecret));
  }
  return {
    host: str(settings.host) ?? "0.0.0.0",
    port: num(settings.port, 8644, "port"),
    rateLimitPerMinute: num(settings.rate_limit, 30, "rate_limit"),
    maxBodyBytes: num(settings.max_body_bytes, 1024 * 1024, "max_body_bytes"),
    routes,
  };
}

function parseRoute(name: string, value: unknown, defaultSecret: string | undefined): WebhookRoute {
  const where = `platforms.webhook.routes.${name}`;
  if (!ROUTE_NAME.test(name)) throw new Error(`${where}: route names use letters, digits, _ and - only`);
  if (value === null || value === undefined) value = {};
  if (!isObject(value)) throw new Error(`${where} must be a mapping (secret, prompt, events, deliver)`);
  const route: WebhookRoute = { name };
  const secret = str(value.secret) ?? defaultSecret;
  if (secret) route.secret = secret;
  if (value.prompt !== undefined) {
    if (typeof value.prompt !== "string") throw new Error(`${where}.prompt must be a string`);
    route.prompt = value.prompt;
  }
  if (value.events !== undefined) {
    const events = typeof value.events === "string" ? value.events.split(",") : value.events;
    if (!Array.isArray(events) || events.some((e) => typeof e !== "string")) {
      throw new Error(`${where}.events must be a list of event names`);
    }
    route.events = events.map((e: string) => e.trim()).filter(Boolean);
  }
  if (value.deliver !== undefined) route.deliver = parseDeliver(where, value.deliver);
  return route;
}

function parseDeliver(where: string, value: unknown): NonNullable<WebhookRoute["deliver"]> {
  const d = typeof value === "string" ? { url: value } : value;
  if (!isObject(d) || typeof d.url !== "string") throw new Error(`${where}.deliver must have a url`);
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
    if (!isObject(d.headers)) throw new Error(`${where}.deliver.headers must be a mapping`);
    for (const [k, v] of Object.entries(d.headers)) headers[k] = String(v);
  }
  const timeoutMs =
    d.timeout === undefined
      ? DEFAULT_DELIVER_TIMEOUT_MS
      : num(d.timeout, 30, `routes deliver.timeout`) * 1000;
  return { url: url.toString(), headers, timeoutMs };
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
    else if (isObject(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return undefined;
  }
  return cur;
}
