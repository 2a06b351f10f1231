import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { isCredentialName } from "./environments/shell-state.js";
import { ASSIGNMENT_PASSES } from "./redact-assignments.js";
import { isSecretValue, marker, markerName, secretKeyKind } from "./redact-keys.js";
import {
  isShortProviderKey,
  KEY_NAME,
  redactAuthorizationValue,
  SHAPE_PASSES,
  shortProviderKeys,
} from "./redact-shapes.js";

/**
 * Secret redaction for everything a tool returns, applied once by the agent's tool runner before a
 * result enters the history. Three layers:
 * - known values: credential-shaped variables of the process environment, every value in
 *   HERMES_HOME/.env and the keys pooled in HERMES_HOME/auth.json (both re-read only when their
 *   mtime or size changes) → `[REDACTED:NAME]`;
 * - shapes (redact-shapes.ts): provider key prefixes, JWTs, Telegram bot tokens, private key
 *   blocks, Authorization headers, passwords and tokens inside URLs → `[REDACTED:kind]`;
 * - assignments (redact-assignments.ts): the value of a key that names a secret, in .env, YAML,
 *   JSON, properties, headers, query strings, form bodies and flags → `KEY=[REDACTED:KEY]`.
 * Text without a secret comes back byte-identical. A JSON result (what tools return) is walked
 * string by string, so a `\n` inside a string still ends a line for the line-based patterns.
 */

interface Secret {
  name: string;
  value: string;
}

/** Values too short or too ordinary to be worth replacing (they would mangle unrelated text). */
const MIN_SECRET_LENGTH = 8;
const looksLikeSecretValue = (v: string): boolean =>
  v.length >= MIN_SECRET_LENGTH &&
  !/^(?:true|false|null|none|changeme|\d+)$/i.test(v) &&
  !/^(?:\/|~\/|\.\/|[A-Za-z]:\\)/.test(v) &&
  !/\s/.test(v.trim());

const ENV_REFRESH_MS = 1000;

/** isCredentialName, memoised: the environment is scanned on every tool result. */
const nameCache = new Map<string, boolean>();
function credentialName(name: string): boolean {
  let v = nameCache.get(name);
  if (v === undefined) {
    v = isCredentialName(name);
    if (nameCache.size < 10_000) nameCache.set(name, v);
  }
  return v;
}

interface FileSecrets {
  mtimeMs: number;
  size: number;
  secrets: Secret[];
}

const SECRET_FIELD = /(?:api_?key|token|secret|password|passwd|credential)/i;

function authSecrets(text: string): Secret[] {
  const out: Secret[] = [];
  const walk = (v: unknown, path: string[]): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, path);
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    } else if (typeof v === "string" && SECRET_FIELD.test(path.at(-1) ?? "") && looksLikeSecretValue(v)) {
      const name = path[0] === "credential_pool" && path[1] ? path[1] : (path.at(-1) ?? "key");
      out.push({ name: `auth.json:${name}`, value: v });
    }
  };
  try {
    walk(JSON.parse(text), []);
  } catch {
    // a broken auth.json has nothing usable to hide
  }
  return out;
}

function dotenvSecrets(text: string): Secret[] {
  try {
    const parsed = parseEnv(text) as Record<string, string>;
    return Object.entries(parsed)
      .filter(([, v]) => looksLikeSecretValue(v))
      .map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

const PASSES = [...SHAPE_PASSES, ...ASSIGNMENT_PASSES, shortProviderKeys];
/** No secret pattern fits in fewer characters than this (known values are at least 8). */
const MIN_SCANNED = 8;

/**
 * Redacts a JSON document string by string and member by member. Undefined when `text` is no
 * JSON, or needs a change but is not compact JSON that serialises back to itself byte for byte
 * (pretty-printed output): the caller then treats it as plain text.
 */
function redactJson(text: string, plain: (s: string) => string): string | undefined {
  const first = text.charCodeAt(0);
  if (first !== 0x7b && first !== 0x5b) return undefined; // { or [
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const out = v.length < MIN_SCANNED ? v : plain(v);
      if (out !== v) changed = true;
      return out;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = Object.create(null); // keeps a "__proto__" member a member
    for (const [k, x] of Object.entries(v)) {
      const hidden = member(k, x);
      if (hidden !== undefined) changed = true;
      out[walk(k) as string] = hidden ?? walk(x);
    }
    return out;
  };
  const result = walk(parsed);
  if (!changed) return text;
  // Re-serialising keeps every other byte only for compact JSON (what JSON.stringify wrote).
  return JSON.stringify(parsed) === text ? JSON.stringify(result) : undefined;
}

/** The replacement for the value of a JSON member whose key names a secret, or undefined. */
function member(key: string, value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  if (typeof value === "string" && /^(?:proxy-)?authorization$/i.test(key))
    return redactAuthorizationValue(value);
  const kind = secretKeyKind(key);
  if (!kind)
    return typeof value === "string" && KEY_NAME.test(key) && isShortProviderKey(value)
      ? marker("openai_key")
      : undefined;
  const hide = isSecretValue(String(value), kind, typeof value === "string", "data");
  return hide ? marker(markerName(key)) : undefined;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export interface RedactorOptions {
  /** HERMES_HOME: its .env and auth.json are read. */
  home: string;
  /** Environment whose credential-shaped variables are hidden (default process.env, re-read each second). */
  env?: NodeJS.ProcessEnv;
}

/** Replaces secrets in text. Cheap when nothing changed: files are stat'ed, not re-read. */
export class SecretRedactor {
  private readonly files = new Map<string, FileSecrets>();
  private env: { at: number; secrets: Secret[] } | undefined;
  private compiled: { key: string; re: RegExp | undefined; names: Map<string, string> } | undefined;
  private checkedThisRun = false;

  constructor(private readonly opts: RedactorOptions) {}

  redact(text: string): string {
    if (text === "") return text;
    const known = this.knownPattern();
    const plain = (t: string): string => {
      let out = known.re ? t.replace(known.re, (m) => marker(known.names.get(m) ?? "secret")) : t;
      for (const pass of PASSES) out = pass(out);
      return out;
    };
    return redactJson(text, plain) ?? plain(text);
  }

  /** Every known secret value with its name (environment, .env, auth.json). */
  knownSecrets(): Secret[] {
    const secrets: Secret[] = [...this.envSecrets()];
    secrets.push(...this.fileSecrets(join(this.opts.home, ".env"), dotenvSecrets));
    secrets.push(...this.fileSecrets(join(this.opts.home, "auth.json"), authSecrets));
    return secrets;
  }

  /** Credential-shaped variables; enumerating process.env is slow, so re-read at most once a second. */
  private envSecrets(): Secret[] {
    const now = Date.now();
    if (this.env && now - this.env.at < ENV_REFRESH_MS) return this.env.secrets;
    const secrets: Secret[] = [];
    for (const [name, value] of Object.entries(this.opts.env ?? process.env)) {
      if (value !== undefined && credentialName(name) && looksLikeSecretValue(value))
        secrets.push({ name, value });
    }
    this.env = { at: now, secrets };
    return secrets;
  }

  private fileSecrets(path: string, parse: (text: string) => Secret[]): Secret[] {
    let st: { mtimeMs: number; size: number } | undefined;
    try {
      st = statSync(path, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st) {
      this.files.delete(path);
      return [];
    }
    const cached = this.files.get(path);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.secrets;
    let secrets: Secret[] = [];
    try {
      secrets = parse(readFileSync(path, "utf8"));
    } catch {
      secrets = [];
    }
    this.files.set(path, { mtimeMs: st.mtimeMs, size: st.size, secrets });
    return secrets;
  }

  /**
   * One alternation of all known values, longest first; rebuilt only when the set changes. Looked
   * up once per synchronous run: a stored turn redacts many strings in one go, and the sources
   * cannot be seen to change in between (the next run stats them again).
   */
  private knownPattern(): { re: RegExp | undefined; names: Map<string, string> } {
    if (this.compiled && this.checkedThisRun) return this.compiled;
    this.checkedThisRun = true;
    queueMicrotask(() => {
      this.checkedThisRun = false;
    });
    const names = new Map<string, string>();
    for (const s of this.knownSecrets()) {
      // Tool results are mostly JSON: a value with quotes or backslashes appears escaped there.
      for (const form of [s.value, JSON.stringify(s.value).slice(1, -1)])
        if (!names.has(form)) names.set(form, s.name);
    }
    const values = [...names.keys()].sort((a, b) => b.length - a.length);
    const key = values.join("\u0000");
    if (this.compiled?.key !== key) {
      this.compiled = {
        key,
        re: values.length > 0 ? new RegExp(values.map(escapeRe).join("|"), "g") : undefined,
        names,
      };
    }
    return this.compiled;
  }
}

const redactors = new Map<string, SecretRedactor>();

/** Redacts with the process environment and `home`'s files (one cached redactor per home). */
export function redactSecrets(text: string, home: string): string {
  let r = redactors.get(home);
  if (!r) {
    r = new SecretRedactor({ home });
    redactors.set(home, r);
  }
  return r.redact(text);
}
