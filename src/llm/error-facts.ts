/**
 * Reads what a failed provider call tells us, by shape only (no SDK imports): HTTP status,
 * headers, the vendor's error body (OpenAI, Anthropic, OpenRouter with `metadata.raw`, Google RPC,
 * Ollama's bare string), the cause chain's error names and codes, and one lower-cased haystack
 * for pattern matching.
 */
import { isRecord } from "../core/is-record.js";

export interface ErrorFacts {
  status: number | undefined;
  headers: unknown;
  /** The vendor's error object, unwrapped from `{error: {...}}` / `{type:"error", error}` / `[...]`. */
  body: Record<string, unknown> | undefined;
  /** The API's own words, without the SDK's "429 " prefix. */
  message: string;
  /** Body `type` (Anthropic error type, OpenAI type). */
  type: string;
  /** Body `code` as text (OpenAI code, Google numeric code). */
  code: string;
  /** Google RPC status, e.g. RESOURCE_EXHAUSTED, INVALID_ARGUMENT. */
  rpcStatus: string;
  /** OpenRouter: the upstream provider that produced the error, when it says. */
  upstreamProvider: string;
  /** OpenRouter wraps upstream failures as "Provider returned error" + metadata.raw. */
  upstreamWrapped: boolean;
  names: string[];
  codes: string[];
  /** Lower-cased: every message of the cause chain plus body fields, for pattern matching. */
  text: string;
}

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** Walks the error, its causes and AggregateError members (bounded), collecting facts. */
export function collectFacts(err: unknown): ErrorFacts {
  const names: string[] = [];
  const codes: string[] = [];
  const messages: string[] = [];
  let status: number | undefined;
  let headers: unknown;
  let rawBody: unknown;
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
    if (headers === undefined && r.headers) headers = r.headers;
    if (rawBody === undefined && r.error !== undefined && r.error !== null) rawBody = r.error;
    queue.push(r.cause);
    if (Array.isArray(r.errors)) queue.push(...r.errors);
  }
  const body = unwrapBody(rawBody) ?? bodyFromMessage(messages[0]);
  const bodyMessage = body ? str(body.message) || (typeof rawBody === "string" ? rawBody : "") : "";
  const upstream = upstreamOf(body);
  // A JSON error document inside the message (LiteLLM, gemini-cli proxies) carries the real words.
  const nested = bodyFromMessage(bodyMessage);
  const nestedMessage = nested ? str(nested.message) : "";
  // OpenRouter's "Provider returned error" says nothing; the upstream's own words do.
  const upstreamWords = upstream.wrapped ? upstream.innerMessage : "";
  const message = humanText(
    upstreamWords ||
      nestedMessage ||
      bodyMessage ||
      (typeof rawBody === "string" ? rawBody : "") ||
      messages[0] ||
      "",
  );
  const rpcStatus = str(nested?.status) || str(body?.status);
  const bodyText = body ? [str(body.type), str(body.code), str(body.param), rpcStatus] : [];
  return {
    status,
    headers,
    body,
    message,
    type: str(body?.type),
    code: str(body?.code),
    rpcStatus: /^[A-Z_]+$/.test(rpcStatus) ? rpcStatus : "",
    upstreamProvider: upstream.provider,
    upstreamWrapped: upstream.wrapped,
    names,
    codes,
    text: [...messages, bodyMessage, nestedMessage, upstream.message, ...bodyText].join(" \n ").toLowerCase(),
  };
}

/**
 * Reads OpenAI `{message,type,code}`, Anthropic `{type:"error",error:{type,message}}`, Google
 * `[{error:{code,message,status}}]` and Ollama `"model not found"` bodies into one record.
 */
function unwrapBody(body: unknown): Record<string, unknown> | undefined {
  let b = Array.isArray(body) ? body[0] : body;
  if (isRecord(b) && isRecord(b.error)) b = b.error;
  if (isRecord(b)) return b;
  if (typeof b === "string" && b.trim()) return bodyFromMessage(b) ?? { message: b };
  return undefined;
}

/** A message that is itself a JSON error document → its error object. */
function bodyFromMessage(text: string | undefined): Record<string, unknown> | undefined {
  const t = text?.replace(/^\d{3}\s+/, "").trim();
  if (!t || (t[0] !== "{" && t[0] !== "[")) return undefined;
  try {
    const parsed: unknown = JSON.parse(t);
    const inner = Array.isArray(parsed) ? parsed[0] : parsed;
    if (isRecord(inner) && isRecord(inner.error)) return inner.error;
    return isRecord(inner) && typeof inner.message === "string" ? inner : undefined;
  } catch {
    return undefined;
  }
}

/** OpenRouter: `{message: "Provider returned error", metadata: {raw, provider_name}}`. */
function upstreamOf(body: Record<string, unknown> | undefined): {
  provider: string;
  /** Everything the upstream said, for pattern matching. */
  message: string;
  /** The upstream's error message alone, for people. */
  innerMessage: string;
  wrapped: boolean;
} {
  const meta = body && isRecord(body.metadata) ? body.metadata : undefined;
  const wrapped = str(body?.message).toLowerCase().includes("provider returned error");
  if (!meta) return { provider: "", message: "", innerMessage: "", wrapped };
  const raw = meta.raw;
  const rawText = typeof raw === "string" ? raw : raw === undefined ? "" : JSON.stringify(raw);
  const inner = typeof raw === "string" ? bodyFromMessage(raw) : isRecord(raw) ? unwrapBody(raw) : undefined;
  const innerMessage = inner && typeof inner.message === "string" ? inner.message : rawText;
  return {
    provider: str(meta.provider_name),
    message: `${innerMessage} ${rawText}`,
    innerMessage,
    wrapped: wrapped || raw !== undefined,
  };
}

const MAX_MESSAGE_CHARS = 400;

/**
 * One readable line: no SDK "429 " prefix (we print the status ourselves), HTML error pages
 * reduced to their text, whitespace collapsed, very long bodies cut.
 */
function humanText(message: string): string {
  let text = message.replace(/^\d{3}\s+/, "");
  if (/<(html|!doctype|head|body)\b/i.test(text)) {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
    text = title ?? text.replace(/<[^>]*>/g, " ");
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}
