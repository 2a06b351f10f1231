/**
 * What each failure reason lets the retry loop do (seed 004 §4.5), and the one constructor of
 * ClassifiedError that applies it.
 */
import type { ClassifiedError, FailoverReason } from "./types.js";

export type Flags = Pick<
  ClassifiedError,
  "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback"
>;

const flag = (retryable: boolean, compress = false, rotate = false, fallback = false): Flags => ({
  retryable,
  shouldCompress: compress,
  shouldRotateCredential: rotate,
  shouldFallback: fallback,
});

/**
 * Recovery hints per reason: the policy half of §4.5, kept in one table. A rate limit may rotate
 * to another key and, when no key can help, fall back rather than wait out a shared quota (PR
 * #12554); a policy block is account-wide, so neither helps, and a content-policy refusal is the
 * same for this prompt anywhere. Replayed reasoning and tool-result images are repaired once by the
 * model call; when that cannot help, they are format errors.
 */
const FLAGS: Record<FailoverReason, Flags> = {
  auth: flag(false, false, true, true),
  auth_permanent: flag(false, false, false, true),
  billing: flag(false, false, true, true),
  rate_limit: flag(true, false, true, true),
  overloaded: flag(true),
  server_error: flag(true),
  timeout: flag(true),
  connection_refused: flag(true),
  context_overflow: flag(true, true),
  payload_too_large: flag(true, true),
  image_too_large: flag(false),
  model_not_found: flag(false, false, false, true),
  provider_policy_blocked: flag(false),
  content_policy_blocked: flag(false),
  format_error: flag(false, false, false, true),
  invalid_encrypted_content: flag(false, false, false, true),
  multimodal_tool_content_unsupported: flag(false, false, false, true),
  thinking_signature: flag(true),
  long_context_tier: flag(true, true),
  oauth_long_context_beta_forbidden: flag(false, false, false, true),
  llama_cpp_grammar_pattern: flag(true),
  aborted: flag(false),
  unknown: flag(true),
};

/** Builds a ClassifiedError with the table's flags for `reason` (plus explicit overrides). */
export function classified(
  reason: FailoverReason,
  message: string,
  extra: {
    status?: number;
    resetAt?: number;
    flags?: Partial<Flags>;
    retryLimit?: number;
    retryDelayMs?: number;
  } = {},
): ClassifiedError {
  const out: ClassifiedError = { reason, message, ...FLAGS[reason], ...extra.flags };
  if (extra.status !== undefined) out.status = extra.status;
  if (extra.resetAt !== undefined) out.resetAt = extra.resetAt;
  if (extra.retryLimit !== undefined) out.retryLimit = extra.retryLimit;
  if (extra.retryDelayMs !== undefined) out.retryDelayMs = extra.retryDelayMs;
  return out;
}
