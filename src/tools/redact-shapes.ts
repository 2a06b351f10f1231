import { isPlaceholder, looksOpaque, marker, type Pass, rewrite } from "./redact-keys.js";

/**
 * Secrets recognised by their shape wherever they appear: provider key prefixes, JWTs, Telegram
 * bot tokens, private key blocks, `Authorization` headers and credentials inside URLs. Every
 * pattern is linear: bounded or single-class quantifiers, no nested unbounded repetition.
 */

/** Provider keys by prefix. Bodies are long enough that words and identifiers never qualify. */
const TOKEN_PREFIXES: readonly [name: string, source: string][] = [
  ["anthropic_key", "sk-ant-[A-Za-z0-9_-]{20,}"],
  ["openrouter_key", "sk-or-[A-Za-z0-9_-]{20,}"],
  ["openai_key", "sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"],
  ["stripe_key", "(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{20,}"],
  // ElevenLabs: `sk_` and a long body of letters and digits (Stripe's `sk_live_`/`sk_test_` come first).
  ["elevenlabs_key", "sk_(?=[a-z0-9]*[0-9])[a-z0-9]{24,}(?![A-Za-z0-9])"],
  ["github_token", "gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}"],
  [
    "gitlab_token",
    "gl(?:pat|dt|rt|rtr|cbt|ptt|ft|imt|soat|ffct|wt|oas|agent)-[A-Za-z0-9_-]{16,}(?:\\.[A-Za-z0-9_-]{1,64}){0,4}|GR1348941[A-Za-z0-9_-]{20,}",
  ],
  ["slack_token", "xox[abprse]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}"],
  ["aws_access_key", "(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])"],
  // 35 characters after the prefix; cut or run-on copies are hidden too.
  ["google_api_key", "AIza[0-9A-Za-z_-]{30,}"],
  ["hf_token", "hf_[A-Za-z0-9]{20,}"],
  ["npm_token", "npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"],
  ["xai_key", "xai-[A-Za-z0-9]{20,}"],
  ["fireworks_key", "fw_[A-Za-z0-9]{20,}|fpk_[A-Za-z0-9]{20,}"],
  ["tavily_key", "tvly-[A-Za-z0-9_-]{16,}"],
  ["exa_key", "exa_[A-Za-z0-9]{16,}"],
  ["perplexity_key", "pplx-[A-Za-z0-9]{20,}"],
  ["fal_key", "fal_[A-Za-z0-9]{20,}"],
  ["notion_token", "ntn_(?=[A-Za-z]*[0-9])[A-Za-z0-9]{20,}|secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])"],
  ["groq_key", "gsk_[A-Za-z0-9]{20,}"],
  ["digitalocean_token", "do[opr]_v1_[a-f0-9]{32,}"],
  ["replicate_token", "r8_[A-Za-z0-9]{30,}"],
  ["linear_key", "lin_api_[A-Za-z0-9]{30,}"],
  ["shopify_token", "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"],
  ["sendgrid_key", "SG\\.[\\w-]{16,}\\.[\\w-]{16,}"],
  ["age_secret_key", "AGE-SECRET-KEY-1[02-9ac-hj-np-zAC-HJ-NP-Z]{58}(?![0-9A-Za-z])"],
];

/** One alternation, one scan; only a match pays for finding out which provider it was. */
const PREFIXED = new RegExp(`\\b(?:${TOKEN_PREFIXES.map(([, source]) => `(?:${source})`).join("|")})`, "g");
const PREFIX_NAMES = TOKEN_PREFIXES.map(([name, source]) => [name, new RegExp(`^(?:${source})`)] as const);

const prefixedTokens: Pass = (text) =>
  rewrite(text, PREFIXED, ([m]) => marker(PREFIX_NAMES.find(([, re]) => re.test(m))?.[0] ?? "token"));

const PRIVATE_KEY =
  /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----[\s\S]{0,65536}?-----END \1-----/g;

/** Three (or two, unsigned) base64url segments, the first one a JSON header: `eyJ...`. */
const JWT = /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]{2,})?/g;

/**
 * One segment of a JWT on its own (a header or claims printed alone, a token cut at its first
 * dot): base64url of a JSON object whose first member is a JWT field. Other base64 JSON (source
 * maps, Kubernetes data) starts with other members and stays.
 */
const JWT_PART = /\beyJ[A-Za-z0-9_-]{12,}(?:={1,2}|(?![A-Za-z0-9_-]))/g;
const JWT_FIELD = /^\{\s*"(?:alg|typ|kid|enc|cty|iss|sub|aud|exp|nbf|iat|jti)"\s*:/;

const jwtParts: Pass = (text) =>
  rewrite(text, JWT_PART, ([segment]) => {
    const decoded = Buffer.from(segment.replace(/=+$/, ""), "base64url").toString("latin1");
    return JWT_FIELD.test(decoded) ? marker("jwt") : undefined;
  });

/** `123456789:AA...`: the numeric bot id stays, the secret half goes. */
const TELEGRAM = /:(?<=(?:^|[^\w:-])(?:bot)?\d{8,12}:)([A-Za-z0-9_-]{30,50})(?![\w-])/g;

const telegramTokens: Pass = (text) =>
  rewrite(text, TELEGRAM, ([, body = ""]) =>
    // Mixed case tells a token from `timestamp:hexdigest`.
    /[A-Z]/.test(body) && /[a-z]/.test(body) ? `:${marker("telegram_token")}` : undefined,
  );

const AUTH_SCHEMES = "basic|bearer|token|negotiate|ntlm|apikey|api-key|key|sso-key|ssws|hmac|otp";
/** `Authorization: <scheme> <credentials>` in any case, also quoted (`-H '...'`) or as a JSON member. */
const AUTHORIZATION = new RegExp(
  // The value may be an f-string or other prefixed literal: `"Authorization": f"Bearer sk-..."`.
  `(\\b(?:proxy-)?authorization["']?[ \\t]*:[ \\t]*(?:[fFrRbBuU]{1,2}(?=["']))?["']?)(?:(${AUTH_SCHEMES})([ \\t]+))?([^\\s"'\\\\,;{}]+)`,
  "gi",
);
const AUTHORIZATION_VALUE = new RegExp(`^(?:(${AUTH_SCHEMES})([ \\t]+))?(\\S+)$`, "i");
const schemeMarker = (scheme: string): string =>
  scheme === "bearer" ? "bearer_token" : scheme === "basic" ? "basic_auth" : "authorization";

/** The credentials of an Authorization value (`Bearer x`, `token x`, or a bare key); `undefined` if none. */
export function redactAuthorizationValue(value: string): string | undefined {
  const m = AUTHORIZATION_VALUE.exec(value.trim());
  if (!m || isPlaceholder(m[3]!)) return undefined;
  if (m[1]) return `${m[1]}${m[2]}${marker(schemeMarker(m[1].toLowerCase()))}`;
  return looksOpaque(m[3]!) ? marker("authorization") : undefined;
}

const authorizationHeaders: Pass = (text) =>
  rewrite(text, AUTHORIZATION, ([, head, scheme, space, cred = ""]) => {
    if (isPlaceholder(cred)) return undefined;
    if (scheme) return `${head}${scheme}${space}${marker(schemeMarker(scheme.toLowerCase()))}`;
    // Without a scheme only an opaque credential counts: "Authorization: required" is prose.
    return looksOpaque(cred) ? `${head}${marker("authorization")}` : undefined;
  });

const BEARER = /\b([Bb]earer[ \t]+)([A-Za-z0-9._~+/=-]{16,})/g;
/** A shorter literal token in a string that starts with the scheme: `f"Bearer abc123def456"`. */
const QUOTED_BEARER = /((?:\b[fFrRbBuU]{1,2})?["'`][Bb]earer[ \t]+)([A-Za-z0-9._~+/=-]{8,15})(?=["'`{])/g;

/**
 * A provider key shorter than PREFIXED's bodies (`sk-abc123def456`) right after a name that
 * says key, token or secret (`key=`, `"api_key": "`, `--key `): a test key, or a real one cut short.
 */
const SHORT_KEY = /(?<![\w-])sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9][A-Za-z0-9_-]{5,18}(?![\w-])/g;
const KEY_BEFORE = /(?:key|token|secret|password|auth)["']?[ \t]*[:=][ \t]*["']?$|--[\w-]*key[ \t]+["']?$/i;

/** A JSON member's value that is such a short key (the member's name is checked by the caller). */
export const isShortProviderKey = (value: string): boolean =>
  /^sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9][A-Za-z0-9_-]{5,18}$/.test(value);
/** Names a short key may follow: `key`, `api_key`, `token`, `--key`. */
export const KEY_NAME = /(?:key|token|secret|password|auth)$/i;

/** Runs after the assignment passes, which name the key (`OPENAI_KEY=[REDACTED:OPENAI_KEY]`) where they can. */
export const shortProviderKeys: Pass = (text) =>
  text.includes("sk-")
    ? rewrite(text, SHORT_KEY, (m) =>
        KEY_BEFORE.test(m.input.slice(Math.max(0, m.index - 60), m.index)) ? marker("openai_key") : undefined,
      )
    : text;

/** `scheme://user:password@host` and `scheme://TOKEN@host` (a git remote with a token in it). */
const USERINFO = /:\/\/([^\s/?#@"'<>`\\]{1,512})@(?=[\w[])/g;

const urlCredentials: Pass = (text) =>
  rewrite(text, USERINFO, ([, info = ""]) => {
    if (info.includes("[REDACTED")) return undefined;
    const colon = info.indexOf(":");
    if (colon >= 0) {
      const password = info.slice(colon + 1);
      if (password === "" || isPlaceholder(password)) return undefined;
      return `://${info.slice(0, colon)}:${marker("password")}@`;
    }
    // A bare user name (`git@`, `admin@`) stays; a token-length one does not.
    const token = (info.length >= 12 && /\d/.test(info) && /[A-Za-z]/.test(info)) || info.length >= 20;
    return token && !isPlaceholder(info) ? `://${marker("url_token")}@` : undefined;
  });

/** `curl -u user:password` and `curl --user user:password`. */
const CURL_USER = /(?<=\bcurl\b[^\n]{0,300}[ \t])(-u[ \t]*|--user[ \t]+)(['"]?)([^\s:'"`]+):([^\s'"`]+)/g;
/** A .netrc entry: `machine host login user password secret`. */
const NETRC = /\b(login[ \t]+\S+[ \t]+password[ \t]+)([^\s'"`]+)/g;

const loginPasswords: Pass = (text) =>
  rewrite(
    rewrite(text, CURL_USER, ([, flag, quote, user, password = ""]) =>
      isPlaceholder(password) ? undefined : `${flag}${quote}${user}:${marker("password")}`,
    ),
    NETRC,
    ([, head, password = ""]) => (isPlaceholder(password) ? undefined : `${head}${marker("password")}`),
  );

/** Every shape pass, in order: whole blocks first, then tokens, then the places credentials sit in. */
export const SHAPE_PASSES: readonly Pass[] = [
  (text) => (text.includes("-----BEGIN ") ? rewrite(text, PRIVATE_KEY, () => marker("private_key")) : text),
  prefixedTokens,
  (text) => (text.includes("eyJ") ? jwtParts(rewrite(text, JWT, () => marker("jwt"))) : text),
  telegramTokens,
  authorizationHeaders,
  (text) =>
    rewrite(text, BEARER, ([, prefix, cred = ""]) =>
      isPlaceholder(cred) ? undefined : `${prefix}${marker("bearer_token")}`,
    ),
  (text) =>
    rewrite(text, QUOTED_BEARER, ([, prefix, cred = ""]) =>
      isPlaceholder(cred) || !/\d/.test(cred) ? undefined : `${prefix}${marker("bearer_token")}`,
    ),
  (text) => (text.includes("://") ? urlCredentials(text) : text),
  loginPasswords,
];
