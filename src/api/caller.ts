/**
 * Who is calling the API server. Idempotency keys and the conversations a request may continue
 * are scoped by it: one caller never replays or continues another's. A caller is the bearer key
 * it authenticated with (a fingerprint of it, never the key) and, when the request names one, the
 * end user it acts for (OpenAI's `user` field, `safety_identifier` in the Responses API). The end
 * user separates conversations of one key; it is not a credential: anyone holding the key may
 * send any `user`.
 */
import { createHash } from "node:crypto";

/** Longest `user` kept in a caller id; longer values are hashed to this size. */
const MAX_USER_CHARS = 64;

/** A short, stable fingerprint of the bearer key (sha256, 16 hex characters). */
export const keyFingerprint = (key: string): string =>
  createHash("sha256").update(key).digest("hex").slice(0, 16);

/** The end user a request body names, if any. */
function endUserOf(body: Record<string, unknown>): string | undefined {
  for (const field of ["user", "safety_identifier"]) {
    const v = body[field];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return undefined;
}

/** The caller id of a request authenticated with the key whose fingerprint is `keyPrint`. */
export function callerIdOf(keyPrint: string, body: Record<string, unknown>): string {
  const user = endUserOf(body);
  if (user === undefined) return `key:${keyPrint}`;
  const safe =
    user.length <= MAX_USER_CHARS
      ? user
      : `sha256:${createHash("sha256").update(user).digest("hex").slice(0, 32)}`;
  return `key:${keyPrint}/user:${safe}`;
}
