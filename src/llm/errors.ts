/**
 * Provider error classification (seed 004 §4). Every failure of a provider call becomes a
 * `ClassifiedError` whose flags the retry loop reads; nothing downstream matches error strings.
 * Works on both SDKs' errors by shape (status / headers / body / cause chain), so this module never
 * imports an SDK. The pipeline runs in the seed's priority order (§4.2):
 *
 *   1. provider-specific patterns     (content policy, replayed reasoning, tool-result images,
 *                                       thinking signatures, tier gates, grammar, OpenRouter)
 *   2. HTTP status + message refinement (402 billing vs quota, 429 quota vs billing, a bare 400
 *                                       on a nearly full window, ...)
 *   3. body error code                 (in-stream errors that carry no status)
 *   4. message patterns                (billing vs rate limit, context, auth, model)
 *   5. SSL/TLS transient               → timeout, never compression (§4.4)
 *   6. disconnect on a request filling most of the window → context overflow; any other
 *      disconnect, however large the request, → timeout
 *   7. transport error names / codes   → timeout with a useful message; a refused connection is
 *                                       connection_refused (one quick retry when the server is local)
 *   8. unknown                         → retryable
 */
import { collectFacts, type ErrorFacts } from "./error-facts.js";
import { classified, type Flags } from "./error-flags.js";
import * as P from "./error-patterns.js";
import { byTransport } from "./error-transport.js";
import { resetFromBody, resetFromHeaders, resetFromText } from "./reset-time.js";
import type { ClassifiedError, FailoverReason } from "./types.js";

export { classified } from "./error-flags.js";
export { LOCAL_REFUSED_RETRY_DELAY_MS } from "./error-transport.js";

export interface ClassifyContext {
  provider?: string;
  /** Base URL of the endpoint, named in transport-error messages. */
  baseUrl?: string;
  /** Rough size of the request in tokens, read against contextLength (disconnects, bare 400s). */
  approxTokens?: number;
  contextLength?: number;
  /** Clock for resetAt (tests). */
  now?: number;
}

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

/** Makes results for one error: the API's words, status and provider in every message. */
type Make = (reason: FailoverReason, prefix: string, flags?: Partial<Flags>) => ClassifiedError;

function classifyUnsafe(err: unknown, ctx: ClassifyContext): ClassifiedError {
  const f = collectFacts(err);
  if (f.names.some((n) => n === "AbortError" || n === "APIUserAbortError")) {
    return classified("aborted", "Request cancelled.");
  }
  const now = ctx.now ?? Date.now();
  const make: Make = (reason, prefix, flags) => {
    const extra: { status?: number; resetAt?: number; flags?: Partial<Flags> } = {};
    if (f.status !== undefined) extra.status = f.status;
    if (flags) extra.flags = flags;
    if (reason === "rate_limit" || reason === "overloaded" || reason === "long_context_tier") {
      const at = resetFromHeaders(f.headers, now) ?? resetFromBody(f.body, now) ?? resetFromText(f.text, now);
      if (at !== undefined) extra.resetAt = at;
    }
    return classified(reason, `${prefix}${describeApi(f, ctx)}`, extra);
  };
  return (
    byProviderPattern(f, make) ??
    (f.status !== undefined ? byStatus(f.status, f, make, ctx) : undefined) ??
    byBodyCode(f, make, ctx) ??
    byMessage(f, make) ??
    byTransport(f, ctx, windowFill(ctx))
  );
}

/** Step 1: vendor-specific wordings that must win over the status code. */
function byProviderPattern(f: ErrorFacts, make: Make): ClassifiedError | undefined {
  const t = f.text;
  const clientError = f.status === undefined || f.status === 400;
  // A safety refusal comes with any status (400, 403, none in-stream): its words say it all.
  if (P.hasAny(t, P.CONTENT_POLICY_PATTERNS)) {
    return make("content_policy_blocked", "Refused by the provider's content policy");
  }
  if (clientError && t.includes("thinking") && P.hasAny(t, P.THINKING_PATTERNS)) {
    return make("thinking_signature", "Thinking block signature rejected");
  }
  const requestShape = clientError || f.status === 422;
  if (requestShape && P.hasAny(t, P.ENCRYPTED_REPLAY_PATTERNS)) {
    return make("invalid_encrypted_content", "Replayed reasoning rejected");
  }
  if (requestShape && P.hasAny(t, P.TOOL_CONTENT_PATTERNS)) {
    return make("multimodal_tool_content_unsupported", "Images in tool results are not accepted");
  }
  if (f.status === 429 && t.includes("extra usage") && t.includes("long context")) {
    return make("long_context_tier", "Long-context requests need the provider's extra-usage tier");
  }
  // Any status (400 from the API, 403 from relays): a plan limit, not a bad key.
  if (P.hasAny(t, P.LONG_CONTEXT_BETA_PATTERNS) && P.hasAny(t, P.NOT_AVAILABLE_PATTERNS)) {
    return make(
      "oauth_long_context_beta_forbidden",
      "The subscription does not include the 1M-token context beta (Hermes does not ask for it: turn it off in the relay that adds it, or use a plan that includes it)",
    );
  }
  if ((clientError || f.status === 500) && P.hasAny(t, P.GRAMMAR_PATTERNS)) {
    return make("llama_cpp_grammar_pattern", "Server could not compile the tool schemas into a grammar");
  }
  if (P.hasAny(t, P.POLICY_PATTERNS)) {
    return make(
      "provider_policy_blocked",
      "Blocked by the account's data policy (change it in the provider's privacy settings)",
    );
  }
  // OpenRouter relays an upstream provider's 429: the user's key is healthy, so do not bench it;
  // another model or provider can answer (PR #55580).
  if ((f.status === 429 || f.code === "429") && f.upstreamWrapped) {
    const who = f.upstreamProvider ? `Upstream provider ${f.upstreamProvider}` : "The upstream provider";
    return make("rate_limit", `${who} is rate-limiting this model`, { shouldRotateCredential: false });
  }
  return undefined;
}

/** Step 2 (and step 3 with a status implied by the body code): status plus the body's words. */
function byStatus(status: number, f: ErrorFacts, make: Make, ctx: ClassifyContext): ClassifiedError {
  const t = f.text;
  const billing = P.hasAny(t, P.BILLING_PATTERNS);
  const rateLimit = P.hasAny(t, P.RATE_LIMIT_PATTERNS);
  const usageLimit = P.hasAny(t, P.USAGE_LIMIT_PATTERNS) || rateLimit;
  const transient = P.hasAny(t, P.TRANSIENT_PATTERNS);
  // A usage cap that says nothing of lifting (no words, no reset time) is the plan's end: money.
  const capForGood = !rateLimit && P.hasAny(t, P.USAGE_LIMIT_PATTERNS) && !transient && !liftsAt(f, ctx);
  switch (status) {
    case 401:
    case 403:
      // Quota windows are sometimes sent as 401/403; "check your key" would send users the wrong way.
      if (f.code === "server_error" || f.type === "server_error")
        return make("server_error", "Provider server error");
      if ((billing && !transient) || capForGood) return make("billing", "Billing problem");
      if (usageLimit) return make("rate_limit", "Usage limit reached");
      if (P.hasAny(t, P.AUTH_PERMANENT_PATTERNS))
        return make("auth_permanent", "Access refused for this account");
      return make("auth", "Authentication failed");
    case 402:
      // §4.3: a 402 is billing unless it reads like a quota window that resets.
      return usageLimit && transient
        ? make("rate_limit", "Usage limit reached")
        : make("billing", "Billing problem");
    case 404:
      if (billing) return make("billing", "Billing problem");
      // Anthropic says only "model: claude-x"; a 404 naming no model is a wrong URL instead.
      if (P.hasAny(t, P.MODEL_MISSING_PATTERNS) || t.includes("model"))
        return make("model_not_found", "Model not found");
      return make("format_error", "Not found (check model.base_url)");
    case 408:
    case 504:
    case 524:
      return make("timeout", "Provider timed out");
    case 413:
      if (P.hasAny(t, P.IMAGE_PATTERNS)) return make("image_too_large", "Image too large");
      return make("payload_too_large", "Request too large");
    case 429:
      if (P.hasAny(t, P.OVERLOADED_PATTERNS) && !billing) return make("overloaded", "Provider overloaded");
      if (f.code === "insufficient_quota" || (billing && !transient) || capForGood)
        return make("billing", "Quota exhausted");
      return make(
        "rate_limit",
        !P.hasAny(t, P.RATE_LIMIT_PATTERNS) && P.hasAny(t, P.USAGE_LIMIT_PATTERNS)
          ? "Usage limit reached"
          : "Rate limited",
      );
    case 400:
    case 422:
      return byBadRequest(f, make, ctx);
    case 500:
    case 502:
      if (P.hasAny(t, P.REQUEST_VALIDATION_PATTERNS)) return make("format_error", "Request rejected");
      if (P.hasAny(t, P.CONTEXT_PATTERNS)) return make("context_overflow", "Context too long for the model");
      return make("server_error", "Provider server error");
    case 503:
    case 529:
      if (P.hasAny(t, P.CONTEXT_PATTERNS)) return make("context_overflow", "Context too long for the model");
      return make("overloaded", "Provider overloaded");
    default:
      if (status >= 500) return make("server_error", "Provider server error");
      if (status >= 400) return make("format_error", "Request rejected");
      return byMessage(f, make) ?? byTransport(f, ctx, windowFill(ctx));
  }
}

/** A 400 is a context overflow, an image, a wrong model, money or throttling before it is a format error. */
function byBadRequest(f: ErrorFacts, make: Make, ctx: ClassifyContext): ClassifiedError {
  const t = f.text;
  if (P.hasAny(t, P.IMAGE_PATTERNS)) return make("image_too_large", "Image too large");
  // "Unsupported parameter: 'max_tokens'" must not read as a context overflow.
  if (P.hasAny(t, P.REQUEST_VALIDATION_PATTERNS)) return make("format_error", "Request rejected");
  if (P.hasAny(t, P.CONTEXT_PATTERNS)) return make("context_overflow", "Context too long for the model");
  if (P.hasAny(t, P.MODEL_MISSING_PATTERNS)) return make("model_not_found", "Model not found");
  // Anthropic sends "Your credit balance is too low" as a 400.
  if (P.hasAny(t, P.BILLING_PATTERNS) && !P.hasAny(t, P.TRANSIENT_PATTERNS))
    return make("billing", "Billing problem");
  if (P.hasAny(t, P.RATE_LIMIT_PATTERNS)) return make("rate_limit", "Rate limited");
  // Google answers a bad key with 400 INVALID_ARGUMENT "API key not valid".
  if (P.hasAny(t, P.AUTH_PATTERNS)) return make("auth", "Authentication failed");
  // Some servers answer an over-long prompt with a bare "Bad Request"; near the window that is far
  // likelier than a malformed request, which comes with a reason.
  const fill = windowFill(ctx);
  if (fill >= BARE_400_OVERFLOW_FILL && isBareMessage(f.message)) {
    const percent = Math.round(fill * 100);
    return make("context_overflow", `Context probably too long for the model (~${percent}% of its window)`);
  }
  return make("format_error", "Request rejected");
}

/**
 * A 400 without a reason is read as an overflow from this share of the context window up: the
 * estimate counts characters, and tool schemas and tokenisation add to what the model sees.
 */
const BARE_400_OVERFLOW_FILL = 0.6;

/** The request's estimated share of the context window; 0 when either number is unknown. */
function windowFill(ctx: ClassifyContext): number {
  const { approxTokens, contextLength } = ctx;
  return approxTokens !== undefined && contextLength ? approxTokens / contextLength : 0;
}

/**
 * Words that say nothing beyond "400": what empty bodies, status lines and SDK wrappers are made
 * of ("400 status code (no body)", "Error code: 400 - Bad Request", "HTTP 400: invalid_request").
 */
const FILLER = new Set(
  "error errors code status http https bad request requests invalid failed failure with the a an no body response unknown argument arguments message badrequesterror invalid_request_error invalid_request invalid_argument bad_request null undefined".split(
    " ",
  ),
);

function isBareMessage(message: string): boolean {
  return message
    .toLowerCase()
    .split(/[^a-z_]+/)
    .every((w) => w === "" || FILLER.has(w));
}

/** When the provider says the limit lifts (headers, body fields or words), if it does. */
function liftsAt(f: ErrorFacts, ctx: ClassifyContext): number | undefined {
  const now = ctx.now ?? Date.now();
  return resetFromHeaders(f.headers, now) ?? resetFromBody(f.body, now) ?? resetFromText(f.text, now);
}

/** Step 3: no HTTP status (an error event inside a 200 stream): the body's code stands for one. */
function byBodyCode(f: ErrorFacts, make: Make, ctx: ClassifyContext): ClassifiedError | undefined {
  const keys = [f.code, f.type, f.rpcStatus].map((k) => k.toLowerCase()).filter(Boolean);
  for (const key of keys) {
    const implied = P.CODE_STATUS[key] ?? (/^[45]\d\d$/.test(key) ? Number(key) : undefined);
    if (implied !== undefined) return byStatus(implied, f, make, ctx);
  }
  return undefined;
}

/** Step 4: only words to go on. Billing before rate limit: "exceeded your quota" is money. */
function byMessage(f: ErrorFacts, make: Make): ClassifiedError | undefined {
  const t = f.text;
  const transient = P.hasAny(t, P.TRANSIENT_PATTERNS);
  if (P.hasAny(t, P.BILLING_PATTERNS) && !transient) return make("billing", "Billing problem");
  // "usage limit reached" and nothing about when it lifts: the plan is used up.
  if (P.hasAny(t, P.USAGE_LIMIT_PATTERNS) && !transient && !P.hasAny(t, P.RATE_LIMIT_PATTERNS))
    return make("billing", "Usage limit reached");
  if (P.hasAny(t, P.RATE_LIMIT_PATTERNS) || (P.hasAny(t, P.USAGE_LIMIT_PATTERNS) && transient)) {
    return make("rate_limit", "Rate limited");
  }
  if (P.hasAny(t, P.CONTEXT_PATTERNS)) return make("context_overflow", "Context too long for the model");
  if (P.hasAny(t, P.PAYLOAD_PATTERNS)) return make("payload_too_large", "Request too large");
  if (P.hasAny(t, P.OVERLOADED_PATTERNS)) return make("overloaded", "Provider overloaded");
  if (P.hasAny(t, P.AUTH_PATTERNS)) return make("auth", "Authentication failed");
  if (P.hasAny(t, P.MODEL_MISSING_PATTERNS)) return make("model_not_found", "Model not found");
  return undefined;
}

function describeApi(f: ErrorFacts, ctx: ClassifyContext): string {
  const parts: string[] = [];
  if (f.status !== undefined) parts.push(`HTTP ${f.status}`);
  if (ctx.provider) parts.push(ctx.provider);
  const head = parts.length > 0 ? ` (${parts.join(", ")})` : "";
  return f.message ? `${head}: ${f.message}` : head;
}

/** Epoch ms from the first rate-limit reset header of an error; undefined when none parses. */
export function parseResetAt(err: unknown, now: number): number | undefined {
  const headers =
    typeof err === "object" && err !== null ? (err as { headers?: unknown }).headers : undefined;
  return resetFromHeaders(headers, now);
}

function safeString(v: unknown): string {
  try {
    return v instanceof Error ? v.message : String(v);
  } catch {
    return "unprintable error";
  }
}
