/**
 * The API server's settings: `platforms.api_server` (and its `extra` block) in config.yaml, the
 * API_SERVER_* environment variables (the real environment, then HERMES_HOME/.env), and the
 * command line. A missing or short key is refused here, before anything listens.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

/** Shortest bearer key accepted: a guessable key on an agent that runs shell commands is no key. */
export const MIN_KEY_LENGTH = 16;
/** Largest request body read (bytes); more is answered 413. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** The toolset API conversations get unless `platform_toolsets.api_server` names others. */
export const DEFAULT_API_TOOLSETS: readonly string[] = ["hermes-api-server"];

export interface ApiServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** The bearer key every request but /health must carry. */
  key: string;
  /** Origins answered with CORS headers ("*" for any); empty: none. */
  corsOrigins: string[];
  /** The one model id clients see. */
  modelName: string;
  maxConcurrentRuns: number;
  /** How long a request waits for a run slot before its 429 (ms; 0: refused at once). */
  queueTimeoutMs: number;
  /** Requests that may wait for a slot at once; more are refused at once. */
  maxQueuedRuns: number;
  /** Responses kept for previous_response_id (the newest ones). */
  maxStoredResponses: number;
  maxBodyBytes: number;
  /** Toolsets of every API conversation. */
  toolsets: string[];
}

/** The server cannot start with these settings; the message says what to set. */
export class ApiSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApiSetupError";
  }
}

export interface ResolveOptions {
  /** `platforms.api_server`, with or without its `extra` block merged in. */
  settings: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** HERMES_HOME/.env: read for API_SERVER_* when the environment lacks them. */
  dotEnvPath?: string;
  /** `platform_toolsets` of config.yaml. */
  platformToolsets?: Record<string, unknown>;
  /** --host / --port of `hermes api serve`. */
  overrides?: { host?: string; port?: number };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const stringList = (v: unknown): string[] | undefined => {
  if (typeof v === "string")
    return v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string" && x.trim() !== "");
  return undefined;
};

function readDotEnv(path: string | undefined): Record<string, string> {
  if (!path || !existsSync(path)) return {};
  try {
    return parseEnv(readFileSync(path, "utf8")) as Record<string, string>;
  } catch {
    return {};
  }
}

function portFrom(value: unknown, where: string): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(String(value).trim());
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ApiSetupError(`${where} must be a port number (0-65535), not ${JSON.stringify(value)}`);
  return n;
}

function positiveInt(value: unknown, fallback: number, where: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw new ApiSetupError(`${where} must be a whole number of at least 1, not ${JSON.stringify(value)}`);
  return value;
}

function seconds(value: unknown, fallback: number, where: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw new ApiSetupError(`${where} must be a number of seconds (0 or more), not ${JSON.stringify(value)}`);
  return value;
}

/** Merges settings, environment and flags; throws ApiSetupError when there is no usable key. */
export function resolveApiOptions(o: ResolveOptions): ApiServerOptions {
  const base = o.settings;
  // The original kept these keys under `extra`; read both, the top level winning.
  const s: Record<string, unknown> = { ...(isRecord(base.extra) ? base.extra : {}), ...base };
  const fileEnv = readDotEnv(o.dotEnvPath);
  const env = (name: string): string | undefined => {
    const v = o.env[name] ?? fileEnv[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const configKey = typeof s.key === "string" ? s.key.trim() : "";
  const key = env("API_SERVER_KEY") ?? configKey;
  if (!key)
    throw new ApiSetupError(
      "The API server needs a key: set API_SERVER_KEY (in the environment or HERMES_HOME/.env) or " +
        `platforms.api_server.key to a secret of at least ${MIN_KEY_LENGTH} characters.`,
    );
  if (key.length < MIN_KEY_LENGTH)
    throw new ApiSetupError(
      `The API server key is ${key.length} characters long; use at least ${MIN_KEY_LENGTH} ` +
        "(for example the output of `openssl rand -hex 24`).",
    );
  const host = o.overrides?.host ?? env("API_SERVER_HOST") ?? (typeof s.host === "string" ? s.host : "");
  const port =
    o.overrides?.port ??
    portFrom(env("API_SERVER_PORT"), "API_SERVER_PORT") ??
    portFrom(s.port, "platforms.api_server.port") ??
    8642;
  const configModel = typeof s.model_name === "string" ? s.model_name.trim() : "";
  const modelName = env("API_SERVER_MODEL_NAME") ?? configModel;
  const platformToolsets = stringList(o.platformToolsets?.api_server);
  return {
    host: host || "127.0.0.1",
    port,
    key,
    corsOrigins: stringList(env("API_SERVER_CORS_ORIGINS")) ?? stringList(s.cors_origins) ?? [],
    modelName: modelName || "hermes-agent",
    maxConcurrentRuns: positiveInt(s.max_concurrent_runs, 10, "platforms.api_server.max_concurrent_runs"),
    queueTimeoutMs: seconds(s.queue_timeout, 30, "platforms.api_server.queue_timeout") * 1000,
    maxQueuedRuns: positiveInt(s.max_queued_runs, 100, "platforms.api_server.max_queued_runs"),
    maxStoredResponses: positiveInt(s.max_stored_responses, 100, "platforms.api_server.max_stored_responses"),
    maxBodyBytes: MAX_BODY_BYTES,
    toolsets: platformToolsets && platformToolsets.length > 0 ? platformToolsets : [...DEFAULT_API_TOOLSETS],
  };
}
