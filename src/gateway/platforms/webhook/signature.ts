/**
 * HMAC-SHA256 request signatures: GitHub's `X-Hub-Signature-256: sha256=<hex>` or our own
 * `X-Hermes-Signature: <hex>`. Without a timestamp the signature covers the raw body. With
 * `X-Hermes-Timestamp: <unix seconds>` it covers `<timestamp>.<body>` (Stripe's scheme), and a
 * timestamp more than five minutes from the server's clock is refused, so a captured request cannot
 * be replayed later. Compared in constant time.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** How far a signed timestamp may be from the server's clock, either way. */
export const MAX_TIMESTAMP_SKEW_S = 300;

export function sign(secret: string, body: Buffer | string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/** A request whose signature checked out, and the key it is deduplicated by. */
export interface VerifiedRequest {
  ok: true;
  /** sha256 of what was signed (timestamp and body): the same bytes replayed give the same key. */
  contentHash: string;
  /** The signed timestamp, when the request carried one. */
  timestamp?: number;
}

export type SignatureCheck = VerifiedRequest | { ok: false; error: string };

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() || undefined;
};

/** The hex signature the request carries, or undefined when it has none. */
function claimed(headers: IncomingHttpHeaders): string | undefined {
  const github = header(headers, "x-hub-signature-256");
  if (github) return github.toLowerCase().startsWith("sha256=") ? github.slice(7) : undefined;
  return header(headers, "x-hermes-signature");
}

const MISSING = "missing or invalid signature";

/**
 * Checks the request's signature with `secret` (and its timestamp, when it has one, against
 * `nowMs`). `requireTimestamp` refuses requests without one.
 */
export function verifyRequest(
  secret: string,
  body: Buffer,
  headers: IncomingHttpHeaders,
  o: { nowMs: number; requireTimestamp?: boolean },
): SignatureCheck {
  const hex = claimed(headers);
  if (!hex || !/^[0-9a-fA-F]{64}$/.test(hex)) return { ok: false, error: MISSING };
  const stamp = header(headers, "x-hermes-timestamp");
  if (stamp === undefined && o.requireTimestamp) {
    return { ok: false, error: "this route needs a signed X-Hermes-Timestamp" };
  }
  if (stamp !== undefined && !/^\d{1,12}$/.test(stamp)) {
    return { ok: false, error: "X-Hermes-Timestamp must be whole seconds since 1970" };
  }
  const signed = stamp === undefined ? body : Buffer.concat([Buffer.from(`${stamp}.`), body]);
  const expected = Buffer.from(sign(secret, signed), "hex");
  if (!timingSafeEqual(expected, Buffer.from(hex, "hex"))) return { ok: false, error: MISSING };
  const contentHash = createHash("sha256").update(signed).digest("hex");
  if (stamp === undefined) return { ok: true, contentHash };
  const timestamp = Number(stamp);
  if (Math.abs(o.nowMs / 1000 - timestamp) > MAX_TIMESTAMP_SKEW_S) {
    return {
      ok: false,
      error: `stale timestamp: more than ${MAX_TIMESTAMP_SKEW_S} s from the server's clock`,
    };
  }
  return { ok: true, contentHash, timestamp };
}
