/**
 * Provider error classification (seed 004 §4). Every failure of a provider call becomes a
 * `ClassifiedError` whose flags the retry loop reads; nothing downstream matches error strings.
 * Works on both SDKs' errors by shape (status / headers / body / cause chain), so this module never
 * imports an SDK.
 */
import type { ClassifiedError, FailoverReason } from "./types.js";

export interface ClassifyContext {
  provider?: string;
  /** Base URL of the endpoint, named in transport-error messages. */
  baseUrl?: string;
  /** Rough size of the request in tokens: a disconnect on a large session means overflow. */
  approxTokens?: number;
  contextLength?: number;
  /** Clock for resetAt (tests). */
  now?: number;
}

type Flags = Pick<
  ClassifiedError,
  "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback"
>;

const flag = (retryable: boolean, compress = false, rotate = false, fallback = false): Flags => ({
  retryable,
  shouldCompress: compress,
  shouldRotateCredential: rotate,
  shouldFallback: fallback,
});

/** Recovery hints per reason: the policy half of §4.5, kept in one table. */
const FLAGS: Record<FailoverReason, Flags> = {
  auth: flag(false, false, true, true),
  auth_permanent: flag(false, false, false, true),
  billing: flag(false, false, true, true),
  rate_limit: flag(true, false, true, false),
  overloaded: flag(true),
  server_error: flag(true),
  timeout: flag(true),
  context_overflow: flag(true, true),
  payload_too_large: flag(true, true),
  image_too_large: flag(false),
  model_not_found: flag(false, false, false, true),
  provider_policy_blocked: flag(false),
  format_error: flag(false),
  thinking_signature: flag(true),
  long_context_tier: flag(true, true),
  llama_cpp_grammar_pattern: flag(true),
  aborted: flag(false),
  unknown: flag(true),
};

/** Builds a ClassifiedError with the table's flags for `reason`. */
export function classified(
  reason: FailoverReason,
  message: string,
  extra: { status?: number; resetAt?: number } = {},
): ClassifiedError {
  const out: ClassifiedError = { reason, message, ...FLAGS[reason] };
  if (extra.status !== undefined) out.status = extra.status;
  if (extra.resetAt !== undefined) out.resetAt = extra.resetAt;
  return out;
}

const CONTEXT_PATTERNS = [
  "maximum context length",
  "context_length_exceeded",
  "context length",
  "context window",
  "prompt is too long",
  "too many tokens",
  "input is too long",
  "exceeds the context",
  "reduce the length",
];
const IMAGE_PATTERNS = ["image exceeds", "image too large", "image is too large", "image dimensions"];
/** A 402 is billing unless it reads like a quota window that resets (§4.3). */
const USAGE_LIMIT_PATTERNS = ["usage limit", "limit reached", "quota"];
const TRANSIENT_PATTERNS = ["try again", "resets", "reset at", "retry after", "retry in"];
const MODEL_MISSING_PATTERNS = ["model not found", "does not exist", "not a valid model", "unknown model"];
const SSL_PATTERNS = ["ssl", "tls", "certificate", "cert_", "eproto", "bad record mac"];
const DISCONNECT_CODES = ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ECONNABORTED"];
const DISCONNECT_PATTERNS = ["terminated", "other side closed", "socket hang up", "premature close"];
const TIMEOUT_CODES = [
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
];

const hasAny = (text: string, patterns: readonly string[]): boolean => patterns.some((p) => text.includes(p));

/**
 * Classifies anything a provider call can throw: SDK APIErrors (OpenAI or Anthropic), fetch/undici
 * transport errors, aborts, or plain values. Pure and total: never throws.
 */
export function classifyError(err: unknown, ctx: ClassifyContext = {}): ClassifiedError {
  try {
    return classifyUnsafe(err, ctx);
  } catch {
    return classified("unknown", `Unexpected error: ${safeString(err)}`);
  }
}

interface Facts {
  status: number | undefined;
  apiMessage: string;
  bodyType: string;
  code: string;
  names: string[];
  codes: string[];
  /** Lower-cased messages of the whole cause chain plus body fields, for pattern matching. */
  haystack: string;
}

function classifyUnsafe(err: unknown, ctx: ClassifyContext): ClassifiedError {
  const facts = collectFacts(err);
  if (facts.names.some((n) => n === "AbortError" || n === "APIUserAbortError")) {
    return classified("aborted", "Request cancelled.");
  }
  if (facts.status !== undefined || facts.bodyType !== "" || facts.code !== "") {
    const fromHttp = classifyHttp(err, facts, ctx);
    if (fromHttp) return fromHttp;
  }
  return classifyTransport(facts, ctx);
}

function classifyHttp(err: unknown, f: Facts, ctx: ClassifyContext): ClassifiedError | undefined {
  const { status, haystack: h } = f;
  const text = describeApi(f, ctx);
  const at = (reason: FailoverReason, prefix: string, extra: { resetAt?: number } = {}) =>
    classified(reason, `${prefix}${text}`, status === undefined ? extra : { ...extra, status });

  // 1. Provider-specific patterns, before the status code (§4.2).
  if (h.includes("signature") && h.includes("thinking"))
    return at("thinking_signature", "Thinking signature rejected");
  if (status === 429 && (h.includes("extra usage") || h.includes("long context"))) {
    return at("long_context_tier", "Long-context tier not available");
  }
  if (h.includes("grammar") && (h.includes("pattern") || h.includes("parse"))) {
    return at("llama_cpp_grammar_pattern", "Server could not compile the tool schema grammar");
  }
  // 2. Status + message refinement, then 3. body type / code.
  const key = status ?? bodyTypeStatus(f.bodyType, f.code);
  switch (key) {
    case 401:
    case 403:
      return at("auth", "Authentication failed");
    case 402:
      return hasAny(h, USAGE_LIMIT_PATTERNS) && hasAny(h, TRANSIENT_PATTERNS)
        ? at("rate_limit", "Usage limit reached")
        : at("billing", "Billing problem");
    case 404:
      if (h.includes("data policy"))
        return at("provider_policy_blocked", "Blocked by the provider's data policy");
      return at("model_not_found", "Model not found");
    case 408:
    case 504:
      return at("timeout", "Provider timed out");
    case 413:
      return at("payload_too_large", "Request too large");
    case 429:
      if (h.includes("insufficient_quota")) return at("billing", "Quota exhausted");
      return at("rate_limit", "Rate limited", { resetAt: parseResetAt(err, ctx.now ?? Date.now()) });
    case 400:
    case 422:
      if (hasAny(h, CONTEXT_PATTERNS)) return at("context_overflow", "Context too long for the model");
      if (hasAny(h, IMAGE_PATTERNS)) return at("image_too_large", "Image too large");
      if (hasAny(h, MODEL_MISSING_PATTERNS)) return at("model_not_found", "Model not found");
      return at("format_error", "Request rejected");
    case 503:
    case 529:
      return at("overloaded", "Provider overloaded");
    default:
      if (key !== undefined && key >= 500) return at("server_error", "Provider server error");
      // 4. Message patterns when neither status nor body type decided.
      if (hasAny(h, CONTEXT_PATTERNS)) return at("context_overflow", "Context too long for the model");
      if (status === undefined) return undefined;
      return at("unknown", "Unexpected provider response");
  }
}

/** Maps in-stream error bodies (no HTTP status) and body codes to the status they stand for. */
function bodyTypeStatus(type: string, code: string): number | undefined {
  const map: Record<string, number> = {
    overloaded_error: 529,
    rate_limit_error: 429,
    rate_limit_exceeded: 429,
    insufficient_quota: 429,
    api_error: 500,
    server_error: 500,
    authentication_error: 401,
    invalid_api_key: 401,
    permission_error: 403,
    billing_error: 402,
    not_found_error: 404,
    model_not_found: 404,
    request_too_large: 413,
    invalid_request_error: 400,
    context_length_exceeded: 400,
    timeout_error: 504,
  };
  return map[code] ?? map[type];
}

function classifyTransport(f: Facts, ctx: ClassifyContext): ClassifiedError {
  const where = ctx.baseUrl ?? "the provider";
  const h = f.haystack;
  const hasCode = (codes: readonly string[]) => f.codes.some((c) => codes.includes(c));
  if (hasCode(["ECONNREFUSED"])) {
    return classified("timeout", `Cannot reach ${where} (connection refused). Is the server running?`);
  }
  // fetch refuses "unsafe" ports (e.g. 9, 25, 6000) before connecting: retrying cannot help.
  if (h.includes("bad port")) {
    return classified(
      "format_error",
      `Cannot reach ${where}: fetch blocks this port as unsafe. Use another port.`,
    );
  }
  if (hasCode(["ENOTFOUND", "EAI_AGAIN"])) {
    return classified(
      "timeout",
      `Cannot reach ${where} (host name not found). Check model.base_url and DNS.`,
    );
  }
  // 5. SSL hiccups are transport noise: retry, never compress (§4.4).
  if (hasAny(h, SSL_PATTERNS) || f.codes.some((c) => c.startsWith("ERR_SSL") || c.startsWith("CERT_"))) {
    return classified("timeout", `TLS error talking to ${where}: ${firstMessage(f)}`);
  }
  // 6. A disconnect on a large session usually means the server choked on the context size.
  if (hasCode(DISCONNECT_CODES) || hasAny(h, DISCONNECT_PATTERNS)) {
    const large =
      ctx.approxTokens !== undefined &&
      ctx.contextLength !== undefined &&
      ctx.contextLength > 0 &&
      ctx.approxTokens > ctx.contextLength * 0.6;
    if (large) {
      return classified(
        "context_overflow",
        `${where} closed the connection on a large request (~${ctx.approxTokens} tokens); compressing.`,
      );
    }
    return classified("timeout", `Connection to ${where} was closed mid-response. Retrying may help.`);
  }
  // 7. Transport error names.
  if (
    hasCode(TIMEOUT_CODES) ||
    f.names.some((n) => n === "APIConnectionTimeoutError" || n === "TimeoutError")
  ) {
    return classified("timeout", `Request to ${where} timed out.`);
  }
  if (f.names.includes("APIConnectionError") || h.includes("fetch failed")) {
    return classified("timeout", `Cannot reach ${where}: ${firstMessage(f)}`);
  }
  // 8. Fallback.
  return classified("unknown", `Unexpected error from ${where}: ${firstMessage(f)}`);
}

function describeApi(f: Facts, ctx: ClassifyContext): string {
  const parts: string[] = [];
  if (f.status !== undefined) parts.push(`HTTP ${f.status}`);
  if (ctx.provider) parts.push(ctx.provider);
  const head = parts.length > 0 ? ` (${parts.join(", ")})` : "";
  return f.apiMessage ? `${head}: ${f.apiMessage}` : head;
}

function firstMessage(f: Facts): string {
  return f.apiMessage || "unknown error";
}

function collectFacts(err: unknown): Facts {
  const names: string[] = [];
  const codes: string[] = [];
  const messages: string[] = [];
  let status: number | undefined;
  let body: unknown;
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 20) {
    const e = queue.shift();
    if (e === undefined || e === null || seen.has(e)) continue;
    seen.add(e);
    if (typeof e !== "object") {
      messages.push(String(e));
      continue;
    }
    const r = e as Record<string, unknown>;
    if (typeof r.name === "string") names.push(r.name);
    if (e.constructor?.name) names.push(e.constructor.name);
    if (typeof r.code === "string") codes.push(r.code);
    if (typeof r.message === "string" && r.message) messages.push(r.message);
    if (status === undefined && typeof r.status === "number") status = r.status;
    if (body === undefined && r.error !== undefined && r.error !== null) body = r.error;
    queue.push(r.cause);
    if (Array.isArray(r.errors)) queue.push(...r.errors);
  }
  const b = unwrapBody(body);
  const apiMessage = b.message || messages[0] || "";
  return {
    status,
    apiMessage: stripStatusPrefix(apiMessage),
    bodyType: b.type,
    code: b.code,
    names,
    codes,
    haystack: [...messages, b.message, b.type, b.code].join(" \n ").toLowerCase(),
  };
}

/** Reads OpenAI `{message,type,code}` and Anthropic `{type:"error",error:{type,message}}` bodies. */
function unwrapBody(body: unknown): { message: string; type: string; code: string } {
  let b = body;
  if (isRecord(b) && isRecord(b.error)) b = b.error;
  if (!isRecord(b)) return { message: typeof b === "string" ? b : "", type: "", code: "" };
  const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
  return { message: str(b.message), type: str(b.type), code: str(b.code) };
}

/** SDK messages start with "429 ..." and we print the status ourselves. */
function stripStatusPrefix(message: string): string {
  return message.replace(/^\d{3}\s+/, "").trim();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const RESET_HEADERS = [
  "retry-after-ms",
  "retry-after",
  "x-ratelimit-reset",
  "x-ratelimit-reset-tokens",
  "x-ratelimit-reset-requests",
  "anthropic-ratelimit-tokens-reset",
  "anthropic-ratelimit-requests-reset",
];

/** Epoch ms from the first rate-limit reset header present; undefined when none parses. */
export function parseResetAt(err: unknown, now: number): number | undefined {
  const headers = isRecord(err) ? err.headers : undefined;
  for (const name of RESET_HEADERS) {
    const value = readHeader(headers, name);
    if (!value) continue;
    const at = parseResetValue(name, value.trim(), now);
    if (at !== undefined) return at;
  }
  return undefined;
}

function parseResetValue(name: string, value: string, now: number): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    if (name === "retry-after-ms") return now + n;
    if (n > 1e12) return n; // epoch ms
    if (n > 1e9) return n * 1000; // epoch seconds
    return now + n * 1000; // delta seconds
  }
  // OpenAI style durations: "1s", "6m0s", "250ms".
  const duration = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$/.exec(value);
  if (duration && value !== "") {
    const [, h = "0", m = "0", s = "0", ms = "0"] = duration;
    return now + Number(h) * 3_600_000 + Number(m) * 60_000 + Number(s) * 1000 + Number(ms);
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

function readHeader(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== "object") return undefined;
  const h = headers as { get?: unknown } & Record<string, unknown>;
  if (typeof h.get === "function") {
    const v = (h.get as (n: string) => unknown).call(headers, name);
    return typeof v === "string" ? v : undefined;
  }
  for (const [k, v] of Object.entries(h)) {
    if (k.toLowerCase() === name)
      return Array.isArray(v) ? String(v[0]) : typeof v === "string" ? v : undefined;
  }
  return undefined;
}

function safeString(v: unknown): string {
  try {
    return v instanceof Error ? v.message : String(v);
  } catch {
    return "unprintable error";
  }
}
