/**
 * Who is calling the API server. The bearer key says whose scope a request works in: the owner's
 * key (`key` / API_SERVER_KEY) the profile owner's, a named key (`keys`) user `api:<name>`'s, with
 * a folder, memory, background processes, sessions and stored responses of its own. Within a key,
 * the end user a request names (OpenAI's `user` field, `safety_identifier` in the Responses API)
 * separates conversations and idempotency keys; it is not a credential (anyone holding the key may
 * send any `user`), so it never grants a scope.
 */
import { createHash } from "node:crypto";

/** Longest `user` kept in a caller id; longer values are hashed to this size. */
const MAX_USER_CHARS = 64;

/** The platform of the API server's named-key users (their folders: HERMES_HOME/users/api/<name>). */
export const API_USER_PLATFORM = "api";

/** The key a request authenticated with. */
export interface ApiPrincipal {
  /** The named key's name; undefined for the owner's key. */
  keyName: string | undefined;
  /** What idempotency and continuation records of this key are filed under. */
  recordPrefix: string;
}

/** A short, stable fingerprint of the bearer key (sha256, 16 hex characters). */
export const keyFingerprint = (key: string): string =>
  createHash("sha256").update(key).digest("hex").slice(0, 16);

/** The owner's key: records under its fingerprint (as before named keys existed). */
export const ownerPrincipal = (key: string): ApiPrincipal => ({
  keyName: undefined,
  recordPrefix: `key:${keyFingerprint(key)}`,
});

/** A named key: records under its name, so rotating the key keeps its conversations. */
export const namedPrincipal = (name: string): ApiPrincipal => ({
  keyName: name,
  recordPrefix: `${API_USER_PLATFORM}:${name}`,
});

/** The end user a request body names, if any. */
function endUserOf(body: Record<string, unknown>): string | undefined {
  for (const field of ["user", "safety_identifier"]) {
    const v = body[field];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return undefined;
}

/** The caller id of a request authenticated as `principal`. */
export function callerIdOf(principal: ApiPrincipal, body: Record<string, unknown>): string {
  const user = endUserOf(body);
  if (user === undefined) return principal.recordPrefix;
  const safe =
    user.length <= MAX_USER_CHARS
      ? user
      : `sha256:${createHash("sha256").update(user).digest("hex").slice(0, 32)}`;
  return `${principal.recordPrefix}/user:${safe}`;
}
