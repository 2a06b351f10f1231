/**
 * How a run that ended without an answer is answered over HTTP. The status decides what clients
 * do next: the OpenAI SDKs retry 408, 409, 429 and every 5xx (running the whole agent again), and
 * nothing else. So a request the model refused (a 400 upstream: too long, malformed, against its
 * policy) is a 4xx with the model's own message; only our own faults and the provider's 5xx are
 * 5xx; and a 5xx that no retry can fix (a wrong provider key, an unknown model) says
 * `x-should-retry: false`, which the SDKs obey.
 */
import type { ClassifiedError } from "../llm/types.js";
import { ApiError, type ApiErrorType } from "./http.js";
import { jitteredRetryMs, retryAfterHeaders } from "./run-queue.js";
import type { RunOutcome } from "./runs.js";

interface Mapping {
  status: number;
  type: ApiErrorType;
  code: string;
  /** false: the SDKs are told not to retry (`x-should-retry: false`). */
  retry?: boolean;
  /** The wait a 429/503 asks for. */
  retryAfterMs?: number;
}

const NO_RETRY = { "x-should-retry": "false" };
/** Longest wait passed on from a provider's reset time: past it the SDKs use their own backoff. */
const MAX_PASSED_WAIT_MS = 60_000;

/** The wait until the provider's reset time (clamped), else a jittered second or two. */
function waitOf(error: ClassifiedError): number {
  const untilReset = error.resetAt !== undefined ? error.resetAt - Date.now() : undefined;
  return untilReset !== undefined && untilReset > 0
    ? Math.min(untilReset, MAX_PASSED_WAIT_MS)
    : jitteredRetryMs();
}

/** The HTTP side of a provider failure, by its classified reason (exhaustive). */
export function mapProviderError(error: ClassifiedError): Mapping {
  const invalid = (code: string, status = 400): Mapping => ({ status, type: "invalid_request_error", code });
  const ours = (code: string): Mapping => ({ status: 502, type: "server_error", code, retry: false });
  switch (error.reason) {
    case "context_overflow":
    case "long_context_tier":
      return invalid("context_length_exceeded");
    case "payload_too_large":
      return invalid("request_too_large", 413);
    case "image_too_large":
      return invalid("image_too_large");
    case "content_policy_blocked":
      return invalid("content_policy_violation");
    case "format_error":
      // A 404 is a wrong base URL of ours, not the request's fault.
      if (error.status === 404) return ours("upstream_not_found");
      return invalid("upstream_rejected", error.status === 422 ? 422 : 400);
    case "auth":
    case "auth_permanent":
    case "billing":
    case "model_not_found":
    case "provider_policy_blocked":
    case "invalid_encrypted_content":
    case "multimodal_tool_content_unsupported":
    case "thinking_signature":
    case "llama_cpp_grammar_pattern":
    case "oauth_long_context_beta_forbidden":
      // The server's own set-up (key, account, model, stored history): the same request fails again.
      return ours(error.reason);
    case "rate_limit":
      return {
        status: 429,
        type: "rate_limit_error",
        code: "upstream_rate_limited",
        retryAfterMs: waitOf(error),
      };
    case "overloaded":
      return {
        status: 503,
        type: "service_unavailable",
        code: "upstream_overloaded",
        retryAfterMs: waitOf(error),
      };
    case "timeout":
      return { status: 504, type: "server_error", code: "upstream_timeout" };
    case "server_error":
    case "connection_refused":
    case "unknown":
      return {
        status: 502,
        type: "server_error",
        code: error.reason === "unknown" ? "no_answer" : error.reason,
      };
    case "aborted":
      return { status: 499, type: "server_error", code: "interrupted" };
  }
}

/**
 * The error a run without an answer ends in: 503 when the server stopped it, 499 when it was
 * interrupted, else the provider failure's mapping (a run that failed without one is a 502).
 */
export function runError(o: RunOutcome, headers: Record<string, string> = {}): ApiError {
  if (o.stopReason === "server_stopping")
    return new ApiError(
      503,
      "The API server stopped this run while shutting down",
      "service_unavailable",
      "server_stopping",
      null,
      headers,
    );
  if (o.formatProblem !== undefined)
    return new ApiError(
      502,
      `The model's answer did not match the requested response format after a repair turn: ${o.formatProblem}`,
      "server_error",
      "invalid_structured_output",
      null,
      { ...headers, ...NO_RETRY },
    );
  if (o.result.status === "interrupted")
    return new ApiError(499, "The run was interrupted", "server_error", "interrupted", null, headers);
  const error = o.result.error;
  if (!error)
    return new ApiError(502, "The model gave no answer", "server_error", "no_answer", null, headers);
  const m = mapProviderError(error);
  return new ApiError(m.status, error.message, m.type, m.code, null, {
    ...headers,
    ...(m.retry === false ? NO_RETRY : {}),
    ...(m.retryAfterMs !== undefined ? retryAfterHeaders(m.retryAfterMs) : {}),
  });
}
