/**
 * HMAC-SHA256 request signatures: GitHub's `X-Hub-Signature-256: sha256=<hex>` or our own
 * `X-Hermes-Signature: <hex>`, both over the raw body. Compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export function sign(secret: string, body: Buffer | string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The hex signature the request carries, or undefined when it has none. */
function claimed(headers: IncomingHttpHeaders): string | undefined {
  const github = header(headers, "x-hub-signature-256")?.trim();
  if (github) return github.toLowerCase().startsWith("sha256=") ? github.slice(7) : undefined;
  return header(headers, "x-hermes-signature")?.trim();
}

/** True when the request is signed with `secret`. */
export function verifySignature(secret: string, body: Buffer, headers: IncomingHttpHeaders): boolean {
  const hex = claimed(headers);
  if (!hex || !/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = Buffer.from(sign(secret, body), "hex");
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
}
