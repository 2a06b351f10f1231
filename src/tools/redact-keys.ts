/**
 * Which key names hold secrets and which of their values are worth hiding, used by the
 * assignment passes (`KEY=value`, `key: value`, `"key": "value"`, URL parameters, CLI flags) and
 * by the walk over JSON tool results; plus what every pass shares: the marker and the scan loop.
 */

/** Rewrites text; returns the same string when nothing matched. */
export type Pass = (text: string) => string;

/**
 * Replaces each match of the global `re` with `fn`'s answer (undefined keeps it). An exec loop:
 * String.replace with a callback costs several times more when most matches are kept.
 */
export function rewrite(text: string, re: RegExp, fn: (m: RegExpExecArray) => string | undefined): string {
  let out = "";
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const end = m.index + m[0].length;
    const replacement = fn(m);
    re.lastIndex = end; // fn may have run this same pattern over a part of the match
    if (replacement === undefined || replacement === m[0]) continue;
    out += text.slice(last, m.index) + replacement;
    last = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** The marker that replaces a secret: `[REDACTED:NAME]` names the key or the kind of token. */
export const marker = (name: string): string => `[REDACTED:${name}]`;

/**
 * `password`: the value is a secret even when it is a number (a PIN, a numeric password).
 * `token`: a number is a count or an id (`"tokens": 1024`, `prompt_tokens=12`), not a secret.
 * `key`: a bare `*_key` name (`sort_key`, `cache_key`) that counts only for opaque-looking values.
 */
export type SecretKind = "password" | "token" | "key";

const PASSWORD_WORDS = new Set(["password", "passwords", "passwd", "passphrase", "secret", "secrets"]);
/** Short forms that count only as a key's last word (`DB_PASS`, `MYSQL_PWD`), never alone as `PWD`. */
const PASSWORD_TAILS = new Set(["pass", "pw", "pwd"]);
const TOKEN_WORDS = new Set([
  "token",
  "tokens",
  "apikey",
  "apikeys",
  "credential",
  "credentials",
  "creds",
  "bearer",
]);
/** Words in front of `key` that make it a credential (`api_key`, `private_key`, `X-Goog-Api-Key`). */
const KEY_OWNERS = new Set([
  "api",
  "secret",
  "private",
  "access",
  "signing",
  "encryption",
  "master",
  "client",
  "app",
  "service",
  "license",
  "admin",
  "account",
  "consumer",
  "session",
  "shared",
  "webhook",
  "jwt",
  "hmac",
  "subscription",
  "auth",
  "deploy",
]);
/** Words in front of `key` that make it a lookup key or a public half, never a secret. */
const KEY_NOT_OWNERS = new Set([
  "primary",
  "foreign",
  "sort",
  "partition",
  "hash",
  "cache",
  "routing",
  "public",
  "pub",
  "group",
  "lookup",
  "map",
  "row",
  "index",
  "unique",
  "composite",
  "hot",
  "shortcut",
  "storage",
  "idempotency",
  "dedup",
  "object",
  "s3",
  "token",
  "password",
  "secret",
]);
/** Anywhere in a key, these make it a count, a limit or a size (`max_tokens`, `TOKEN_LIMIT`). */
const COUNT_WORDS = new Set([
  "count",
  "counts",
  "limit",
  "limits",
  "length",
  "len",
  "size",
  "max",
  "min",
  "num",
  "number",
  "total",
  "budget",
  "ttl",
  "timeout",
  "expiry",
  "expires",
  "expiration",
  "lifetime",
  "rate",
  "ratelimit",
  "usage",
  "placeholder",
  "example",
]);
/** As a key's last word, these make it a pointer to or a description of the secret (`password_file`). */
const POINTER_WORDS = new Set([
  "file",
  "files",
  "path",
  "paths",
  "dir",
  "url",
  "uri",
  "endpoint",
  "id",
  "ids",
  "type",
  "kind",
  "name",
  "names",
  "env",
  "var",
  "field",
  "param",
  "column",
  "attr",
  "header",
  "prefix",
  "format",
  "mode",
  "version",
  "policy",
  "enabled",
  "required",
  "hint",
  "label",
  "prompt",
  "message",
  "msg",
  "text",
  "placeholder",
  "description",
  "pattern",
  "regex",
  "error",
  "helper",
  "command",
  "cmd",
  "provider",
  "source",
  "location",
  "scope",
  "scopes",
  "store",
  "stdin",
]);

/** `clientSecret` → client, secret; `APIToken` → api, token; `spring.datasource.password` → 3 words. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

const decodeName = (key: string): string => {
  if (!key.includes("%")) return key;
  try {
    return decodeURIComponent(decodeURIComponent(key));
  } catch {
    return key;
  }
};

const kindCache = new Map<string, SecretKind | null>();

/** What a key name says about its value; undefined for ordinary keys. Memoised: keys repeat. */
export function secretKeyKind(key: string): SecretKind | undefined {
  let kind = kindCache.get(key);
  if (kind === undefined) {
    kind = classify(keyWords(decodeName(key)), key) ?? null;
    if (kindCache.size < 20_000) kindCache.set(key, kind);
  }
  return kind ?? undefined;
}

function classify(words: string[], key: string): SecretKind | undefined {
  const last = words.at(-1);
  if (!last || words.length > 12 || POINTER_WORDS.has(last)) return undefined;
  if (words.some((w) => COUNT_WORDS.has(w))) return undefined;
  let kind: SecretKind | undefined;
  for (const [i, w] of words.entries()) {
    if (PASSWORD_WORDS.has(w) || /(?:password|passwd|secret)s?$/.test(w)) return "password";
    if (i === words.length - 1 && i > 0 && PASSWORD_TAILS.has(w)) return "password";
    if (TOKEN_WORDS.has(w) || /(?:token|apikey|privatekey|accesskey)s?$/.test(w)) kind = "token";
    else if ((w === "key" || w === "keys") && i > 0) {
      const owner = words[i - 1]!;
      if (KEY_OWNERS.has(owner)) kind = "token";
      else if (!KEY_NOT_OWNERS.has(owner)) kind ??= /^[A-Z0-9_]+$/.test(key) ? "token" : "key";
    }
  }
  // `tokenKey`, `PASSWORD_FIELD_KEY`: the name of a key that stores a token, not the token.
  if (last === "key" && words.length >= 2 && /token|password|secret/.test(words.at(-2)!)) return undefined;
  return kind;
}

/** Where an assignment was found; decides whether an unquoted bare word is a secret or code. */
export type ValueContext =
  /** A data line: .env/properties/JSON, a URL or form parameter, a header. Every literal counts. */
  | "data"
  /** `key: value` opening a line: YAML as often as a TypeScript or Python declaration. */
  | "yaml"
  /** `key = value`, `{key: value,}`, `f(key=value)`: a bare identifier there is a variable. */
  | "code";

const PLACEHOLDER =
  /^(?:[$%<{`@&|>]|\*+$|x{3,}$|\.{3}|\[REDACTED|your[_-]|(?:changeme|change[_-]me|replace[_-]?me|placeholder|redacted|hidden|none|null|nil|undefined|true|false|yes|no|on|off|empty|required|optional|todo|tbd|password|passwd|secret|token)$)|(?:\.{3}|…)$/i;
/** A reference, a template or a placeholder (`$TOKEN`, `{{ pw }}`, `<token>`, `***`, `changeme`). */
export const isPlaceholder = (v: string): boolean => PLACEHOLDER.test(v);
const MIN_CODE_LITERAL = 8;
const LABEL = /^[a-z]+(?:[-_. ][a-z]+)*$|\s/;
const PATH = /^(?:~?\/|\.{1,2}\/|[A-Za-z]:\\)/;
const NUMBER = /^[+-]?\d[\d_,]*(?:\.\d+)?$/;
/** `30s`, `1.5h`, `6m0s`, `10MB`, `85%`: a quantity under a `*_tokens`/`*_key` name, never a secret. */
const QUANTITY = /^\d+(?:\.\d+)?(?:ms|[smhdw]|[kmgt]i?b|[kmgt]|%)(?:\d+(?:\.\d+)?(?:ms|[smh]))?$/i;
/** Type names after `key:` in TypeScript, Python or Go declarations. */
const TYPE_WORDS =
  /^(?:string|str|number|int|integer|float|bool|boolean|any|unknown|bytes|object|text|varchar|char|buffer|never|void)$/i;
/** `self.token`, `process.env.API_KEY`, `u.usage?.tokens`: attribute access, not a literal. */
const ATTRIBUTE_CHAIN = /^[A-Za-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)+$/;
/** `SecretStr`, `CancellationToken`: a type or variable name, hardly a password. */
const CAMEL_COMPOUND = /^[A-Za-z][a-z]+(?:[A-Z][a-z]+)+$/;

/**
 * True when `value` (unquoted unless `quoted`) is worth hiding under a key of this kind:
 * references (`$VAR`, `${x}`, `{{ x }}`, `<token>`), placeholders, booleans, paths, counts and
 * code (calls, indexing, generics, attribute access, type names) stay visible.
 */
export function isSecretValue(value: string, kind: SecretKind, quoted: boolean, ctx: ValueContext): boolean {
  if (value === "" || PLACEHOLDER.test(value)) return false;
  if (NUMBER.test(value)) return kind === "password" && value.replace(/\D/g, "").length >= 4;
  if (QUANTITY.test(value)) return false;
  if (PATH.test(value)) return false;
  if (kind === "key" && !looksOpaque(value)) return false;
  if (quoted && /^\s|\s$/.test(value)) return false; // `"pw=" + pw + "&"`: code around the quotes
  // In code a quoted literal is a hard-coded secret unless it is short (a test's "k"), a sentence
  // or reads as a label ("not-needed", "test-key").
  if (quoted) return ctx !== "code" || (value.length >= MIN_CODE_LITERAL && !LABEL.test(value));
  if (/[()[\]<>]/.test(value) || ATTRIBUTE_CHAIN.test(value)) return false;
  if (ctx === "data") return true;
  if (TYPE_WORDS.test(value)) return false;
  if (!/^[A-Za-z_]+$/.test(value)) return true;
  return ctx === "yaml" && !CAMEL_COMPOUND.test(value);
}

/** A value with the look of a generated credential: long, one word, letters and digits. */
export function looksOpaque(v: string): boolean {
  return v.length >= 16 && /^[\w+/=.:~-]+$/.test(v) && /[A-Za-z]/.test(v) && /\d/.test(v);
}

/** Splits trailing punctuation that closes the surrounding text (`pw=x),` → `x` + `),`). */
export function splitTrailing(value: string): [string, string] {
  const m = /[.,;:)\]}>]+$/.exec(value);
  return m ? [value.slice(0, m.index), m[0]] : [value, ""];
}

/** The key as it appears in a marker: without CLI dashes or characters a marker cannot hold. */
export const markerName = (key: string): string => key.replace(/^-+/, "").replace(/[^\w.%-]/g, "_");
