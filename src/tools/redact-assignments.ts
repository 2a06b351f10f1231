import {
  isPlaceholder,
  isSecretValue,
  marker,
  markerName,
  type Pass,
  rewrite,
  type SecretKind,
  secretKeyKind,
  splitTrailing,
  type ValueContext,
} from "./redact-keys.js";

/**
 * Values of keys that name a secret, in the places such pairs are written: `.env` and shell
 * lines, properties and INI files, YAML, JSON, HTTP headers, URL query strings, form bodies and
 * CLI flags. The key stays, the value becomes `[REDACTED:key]`. What counts as a secret key and
 * a secret value lives in redact-keys.ts; this file only finds the pairs.
 */

const KEY = "[A-Za-z_][\\w.-]{0,99}";
/** A key that may also be a percent-encoded query parameter name (`client%5Fsecret`). */
const PARAM_KEY = "[A-Za-z_][\\w.%-]{0,99}";
/** Quoted values, also JSON-escaped (`\"...\"`): bounded, a backslash escapes one character. */
const DQ = `"(?:[^"\\\\\\n]|\\\\.){0,4096}"`;
const SQ = `'(?:[^'\\\\\\n]|\\\\.){0,4096}'`;
const EDQ = `\\\\"(?:[^"\\\\\\n]|\\\\[^"\\n]){0,4096}\\\\"`;
const QUOTED = `${DQ}|${SQ}|${EDQ}`;
/** One character of an unquoted value: not a space, a quote or a JSON escape (`\n`, `\"`). */
const PLAIN = `[^\\s"'\`\\\\]|\\\\(?![nrt"\\\\])`;
/** An unquoted `.env`/URL value also stops before `&name=` or `?name=`, the next URL parameter. */
const BARE = `(?:[^?&\\s"'\`\\\\]|\\\\(?![nrt"\\\\])|[?&](?!${PARAM_KEY}=)){1,4096}`;
/** A line start, also one written as `\n` inside a JSON string. */
const BOL = "(?:^|\\\\n)";

/**
 * `KEY=value` with nothing around `=`: .env, shell, properties, URL and form parameters, kwargs.
 * The scan starts at `=` and looks back for the key: far cheaper than trying a key at every word.
 */
const ENV_ASSIGN = new RegExp(
  `=(?<=(?:^|[^\\w.$@/:%+\\\\-]|\\\\[nrt])(-{0,2})(${PARAM_KEY})=)(?!=)(${QUOTED}|${BARE})`,
  "gm",
);
const DECLARATION =
  "(?:(?:export|const|let|var|final|static|private|public|protected|readonly|val|my|our|local|String|string)[ \\t]+){0,4}";
/**
 * `key = value` opening a line (INI, TOML, ~/.aws/credentials, a declaration in source code).
 * A blank next to `=` is checked first: most `=` in a text fail there, before the long look back.
 */
const SPACED_ASSIGN = new RegExp(
  `=(?:(?<=[ \\t]=)|(?=[ \\t]))(?<=${BOL}[ \\t]*${DECLARATION}\\$?(${KEY})([ \\t]*)=)(?!=)([ \\t]*)(${QUOTED}|(?:${PLAIN}){1,4096})(?=[ \\t]*[;,]?[ \\t]*(?:(?:#|//)[^\\n]*)?(?:\\r?$|\\\\[rn]))`,
  "gm",
);
/** `"key": value` in JSON or a Python/JS literal: a quoted key before a string or a number. */
const QUOTED_KEY = new RegExp(
  `(\\\\?["'])([\\w.-]{1,100})\\1([ \\t]*:[ \\t]*)(${QUOTED}|[+-]?\\d+(?:\\.\\d+)?(?![\\w.]))`,
  "g",
);
/** `key: value` opening a line (YAML, headers, `> x-api-key: ...`), inside `{...}`, or in quotes. */
const COLON_ASSIGN = new RegExp(
  `:(?<=(${BOL}[ \\t]*(?:[-<>*+][ \\t]+)?|[{,(][ \\t]*|["'\`])(${KEY}):)([ \\t]+)(${QUOTED}|(?:${PLAIN}){1,4096})`,
  "gm",
);
/** `--password value` (a flag and its argument). `--password-file x` names a file, not a secret. */
const FLAG = new RegExp(
  `(?<=[ \\t])(--)([A-Za-z][\\w-]{0,60})([ \\t]+)(${QUOTED}|(?!-)(?:${PLAIN}){1,4096})`,
  "g",
);

/** What may stand between the start of a line and a key for the line to be a data line. */
const HEAD =
  "[ \\t]*(?:\\d+[ \\t]+|[-*>+][ \\t]+)?(?:(?:export|declare(?:[ \\t]+-x)?|set|setenv|ENV|local|readonly|typeset)[ \\t]+)?$";
const LINE_HEAD = new RegExp(`(?:^|\\n|\\\\n)${HEAD}`);
/** The same, for a window cut out of the middle of the text (where `^` is no line start). */
const LINE_HEAD_MID = new RegExp(`(?:\\n|\\\\n)${HEAD}`);

/** True when only indentation, a list marker or `export` precedes `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  const from = Math.max(0, offset - 120);
  return (from === 0 ? LINE_HEAD : LINE_HEAD_MID).test(text.slice(from, offset));
}

function unquote(v: string): { inner: string; quote: string } {
  if (v.length >= 4 && v.startsWith('\\"') && v.endsWith('\\"'))
    return { inner: v.slice(2, -2), quote: '\\"' };
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0])
    return { inner: v.slice(1, -1), quote: v[0] };
  return { inner: v, quote: "" };
}

/** The replacement for one `key<sep>value` pair, or undefined to leave it alone. */
function redactPair(
  key: string,
  raw: string,
  kind: SecretKind,
  ctx: ValueContext,
  cut?: RegExp,
): string | undefined {
  const { inner, quote } = unquote(raw);
  if (isPlaceholder(raw)) return undefined; // before trailing dots are split off `sk-...`
  if (quote)
    return isSecretValue(inner, kind, true, ctx) ? `${quote}${marker(markerName(key))}${quote}` : undefined;
  let [value, trail] = splitTrailing(raw);
  const at = cut ? value.search(cut) : -1;
  if (at >= 0) [value, trail] = [value.slice(0, at), value.slice(at) + trail];
  return isSecretValue(value, kind, false, ctx) ? marker(markerName(key)) + trail : undefined;
}

/**
 * A pass over `re`, whose last group is the value; `decide` gives the replacement or undefined.
 * A kept quoted value is scanned once more by the same pass, as it may hold pairs of its own
 * (`URL="https://x?token=..."`, a JSON document inside a JSON string).
 */
function pairPass(re: RegExp, decide: (m: RegExpExecArray, text: string) => string | undefined): Pass {
  const pass: Pass = (text) =>
    rewrite(text, re, (m) => {
      const out = decide(m, text);
      if (out !== undefined) return out;
      const value = m.at(-1) ?? "";
      const { inner, quote } = unquote(value);
      if (!quote || inner.length < 3) return undefined;
      const again = pass(inner);
      return again === inner ? undefined : m[0].slice(0, m[0].length - value.length) + quote + again + quote;
    });
  return pass;
}

/** Query parameters that carry a signature which grants access (`?sig=`, `&X-Amz-Signature=`). */
const URL_SIGNATURE = /^(?:x-amz-|x-goog-)?sig(?:nature)?$/i;

const envAssignments = pairPass(ENV_ASSIGN, (m, text) => {
  const [, dashes = "", key = "", value = ""] = m;
  const start = m.index - key.length - dashes.length;
  const before = text[start - 1];
  const inUrl = before === "?" || before === "&" || before === "#" || before === ";";
  const kind = secretKeyKind(key) ?? (inUrl && URL_SIGNATURE.test(key) ? "token" : undefined);
  if (!kind) return undefined;
  const data =
    inUrl ||
    dashes !== "" ||
    before === '"' ||
    before === "'" ||
    /^[A-Z][A-Z0-9_]*$/.test(key) ||
    startsLine(text, start);
  // In a URL a fragment or `;param` ends the value.
  const out = redactPair(key, value, kind, data ? "data" : "code", inUrl ? /[#;]/ : undefined);
  return out && `=${out}`;
});

const spacedAssignments = pairPass(SPACED_ASSIGN, ([, key = "", before = "", after = "", value = ""]) => {
  const kind = before || after ? secretKeyKind(key) : undefined; // `key=value` is envAssignments'
  const out = kind && redactPair(key, value, kind, "code");
  return out && `=${after}${out}`;
});

const quotedKeys = pairPass(QUOTED_KEY, (m, text) => {
  const [, q = "", key = "", sep = "", value = ""] = m;
  const kind = secretKeyKind(key);
  // `cond ? "token" : "key"` is a ternary, not a member.
  if (!kind || /\?[ \t]*$/.test(text.slice(Math.max(0, m.index - 8), m.index))) return undefined;
  const { inner, quote } = unquote(value);
  if (!isSecretValue(inner, kind, quote !== "", "data")) return undefined;
  const vq = quote || '"';
  return `${q}${key}${q}${sep}${vq}${marker(markerName(key))}${vq}`;
});

const colonAssignments = pairPass(COLON_ASSIGN, (m, text) => {
  const [all, head = "", key = "", space = "", value = ""] = m;
  const kind = secretKeyKind(key);
  if (!kind) return undefined;
  // A header in a string (`-H "x-api-key: ..."`) is data; a line or a `{...}` may be code.
  let ctx: ValueContext = head === '"' || head === "'" ? "data" : /^[{,(]/.test(head) ? "code" : "yaml";
  const end = m.index + all.length;
  // `apiKey: "k",` or `token: value;` ends like an object literal or a declaration: code.
  if (ctx === "yaml" && (/[,;]$/.test(value) || /^[,;]/.test(text.slice(end, end + 1)))) ctx = "code";
  // "Password: the one you set earlier" is a sentence, not a YAML value.
  if (/^[A-Za-z_]+$/.test(value) && /^[ \t]+[^\s#]/.test(text.slice(end, end + 2))) return undefined;
  const out = redactPair(key, value, kind, ctx);
  return out && `:${space}${out}`;
});

/** Flags that act on secrets rather than take one (`--delete-secret-keys KEYID`). */
const FLAG_VERB =
  /^(?:no|delete|del|list|show|get|gen|generate|import|export|revoke|rotate|remove|rm|create|reset|print|allow|skip|use|with|without)-/;

const flags = pairPass(FLAG, ([, dashes = "", name = "", space = "", value = ""]) => {
  const kind = FLAG_VERB.test(name) ? undefined : secretKeyKind(name);
  const out = kind && redactPair(name, value, kind, "code");
  return out && `${dashes}${name}${space}${out}`;
});

/** Every assignment pass; each one skips text without its separator. */
export const ASSIGNMENT_PASSES: readonly Pass[] = [
  (text) => (text.includes(":") ? quotedKeys(colonAssignments(text)) : text),
  (text) => (text.includes("=") ? envAssignments(spacedAssignments(text)) : text),
  (text) => (text.includes("--") ? flags(text) : text),
];
