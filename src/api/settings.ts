/**
 * The API server's settings: `platforms.api_server` (and its `extra` block) in config.yaml, the
 * API_SERVER_* environment variables (the real environment, then HERMES_HOME/.env), and the
 * command line. A missing or short key is refused here, before anything listens.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { isRecord } from "../core/is-record.js";

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
  /** The owner's bearer key: requests with it work for the profile's owner. */
  key: string;
  /** Named keys (`platforms.api_server.keys`): each one's requests work as user `api:<name>`. */
  keys: NamedKey[];
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

/** A named bearer key: its requests get a scope of their own (user `api:<name>`). */
export interface NamedKey {
  name: string;
  key: string;
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

/** A key name is a folder name under HERMES_HOME/users/api/: letters, digits, `.`, `_`, `-`. */
const KEY_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/**
 * `platforms.api_server.keys`: a mapping name → key, or a list of {name, key}; a key written
 * `env:VAR` is read from that variable. Throws ApiSetupError naming the entry that is wrong.
 */
export function namedKeysOf(
  value: unknown,
  env: (name: string) => string | undefined,
  ownerKey: string,
): NamedKey[] {
  const where = "platforms.api_server.keys";
  if (value === undefined || value === null) return [];
  let entries: Array<[unknown, unknown]>;
  if (Array.isArray(value))
    entries = value.map((item, i) => {
      if (!isRecord(item))
        throw new ApiSetupError(
          `${where} item ${i + 1} must be a mapping like {name: alice, key: env:ALICE_KEY}`,
        );
      return [item.name, item.key];
    });
  else if (isRecord(value)) entries = Object.entries(value);
  else throw new ApiSetupError(`${where} must be a mapping of name: key, or a list of {name, key}`);
  const seenNames = new Set<string>();
  const seenKeys = new Set<string>([ownerKey]);
  return entries.map(([rawName, rawKey]) => {
    const name = typeof rawName === "string" ? rawName.trim() : "";
    if (!KEY_NAME.test(name))
      throw new ApiSetupError(
        `${where}: ${JSON.stringify(rawName)} is not a usable key name (letters, digits, ".", "_" and "-", at most 64)`,
      );
    if (seenNames.has(name))
      throw new ApiSetupError(`${where}: the name ${JSON.stringify(name)} is given twice`);
    seenNames.add(name);
    const written = typeof rawKey === "string" ? rawKey.trim() : "";
    const variable = written.startsWith("env:") ? written.slice(4).trim() : undefined;
    const key = variable !== undefined ? (env(variable) ?? "") : written;
    if (!key)
      throw new ApiSetupError(
        variable !== undefined
          ? `${where}.${name}: the variable ${variable} is not set`
          : `${where}.${name} has no key`,
      );
    if (key.length < MIN_KEY_LENGTH)
      throw new ApiSetupError(
        `${where}.${name} is ${key.length} characters long; use at least ${MIN_KEY_LENGTH} ` +
          "(for example the output of `openssl rand -hex 24`).",
      );
    if (seenKeys.has(key))
      throw new ApiSetupError(`${where}.${name} is the same key as another one: every key must be its own`);
    seenKeys.add(key);
    return { name, key };
  });
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
    keys: namedKeysOf(s.keys, env, key),
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
