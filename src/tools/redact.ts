import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { isCredentialName } from "./environments/shell-state.js";

/**
 * Secret redaction for everything a tool returns, applied once by the agent's tool runner before a
 * result enters the history. Two layers:
 * - known values: credential-shaped variables of the process environment, every value in
 *   HERMES_HOME/.env and the keys pooled in HERMES_HOME/auth.json (both re-read only when their
 *   mtime or size changes) → `[REDACTED:NAME]`;
 * - shapes: provider keys (sk-..., sk-ant-..., sk-or-...), GitHub, Slack, AWS, Google, Hugging Face,
 *   Stripe and npm tokens, `Bearer` tokens and private key blocks → `[REDACTED:kind]`.
 * Generic "password = ..." assignments are deliberately not touched: source code the model reads
 * must stay editable.
 */

interface Secret {
  name: string;
  value: string;
}

interface Shape {
  name: string;
  re: RegExp;
  /** Keeps a prefix (e.g. "Bearer ") in front of the marker. */
  keep?: (match: string, ...groups: string[]) => string;
}

const SHAPES: readonly Shape[] = [
  {
    name: "private_key",
    re: /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?-----END \1-----/g,
  },
  { name: "anthropic_key", re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "openrouter_key", re: /\bsk-or-[A-Za-z0-9_-]{20,}/g },
  { name: "openai_key", re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: "github_token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b/g },
  { name: "slack_token", re: /\bxox[abprse]-[A-Za-z0-9-]{10,}/g },
  { name: "aws_access_key", re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: "google_api_key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "hf_token", re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { name: "stripe_key", re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}\b/g },
  { name: "npm_token", re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  {
    name: "bearer_token",
    re: /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{16,})/g,
    keep: (_m, prefix) => prefix ?? "",
  },
];

/** Values too short or too ordinary to be worth replacing (they would mangle unrelated text). */
const MIN_SECRET_LENGTH = 8;
const looksLikeSecretValue = (v: string): boolean =>
  v.length >= MIN_SECRET_LENGTH &&
  !/^(?:true|false|null|none|changeme|\d+)$/i.test(v) &&
  !/^(?:\/|~\/|\.\/|[A-Za-z]:\\)/.test(v) &&
  !/\s/.test(v.trim());

const marker = (name: string): string => `[REDACTED:${name}]`;
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

  constructor(private readonly opts: RedactorOptions) {}

  redact(text: string): string {
    if (text === "") return text;
    let out = text;
    const known = this.knownPattern();
    if (known.re) out = out.replace(known.re, (m) => marker(known.names.get(m) ?? "secret"));
    for (const shape of SHAPES) {
      shape.re.lastIndex = 0;
      out = out.replace(shape.re, (m, ...groups: string[]) =>
        shape.keep ? shape.keep(m, ...groups) + marker(shape.name) : marker(shape.name),
      );
    }
    return out;
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

  /** One alternation of all known values, longest first; rebuilt only when the set changes. */
  private knownPattern(): { re: RegExp | undefined; names: Map<string, string> } {
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
