import { createHash } from "node:crypto";

/**
 * Hashes of every prefix of a conversation in one pass: `result[i]` covers `canonical[0..i]`
 * (i + 1 messages), each the SHA-256 of the previous hash and the next message, so a 3 MB history
 * is hashed once, not once per prefix. `canonical` holds one string per message, made the same way
 * when recording and when looking up (see continuations.ts). `after` continues a chain: the hash of
 * the prefix before `canonical[0]` (so a long history can be hashed in pieces).
 */
export function prefixHashes(canonical: readonly string[], after = ""): string[] {
  const out: string[] = [];
  let previous = after;
  for (const message of canonical) {
    previous = createHash("sha256").update(previous).update("\u0000").update(message).digest("hex");
    out.push(previous);
  }
  return out;
}
