/**
 * Pairing codes: short, unambiguous, random, and never stored in the clear. A code is only shown
 * once, in the reply to the user who asked; the owner types it into `hermes pairing approve`.
 */

import { randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto";
import type { HashedCode } from "../../state/pairing.js";

/** No 0/O, 1/I: a code read aloud or retyped from a phone screen survives the trip. */
export const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 8;

/**
 * scrypt rather than a plain hash: 32^8 ≈ 10^12 codes is few enough that a fast hash of a leaked
 * pending file could be brute-forced within the code's hour of life.
 */
const SCRYPT_COST = { N: 1 << 14, r: 8, p: 1 };
const HASH_BYTES = 32;

/** A fresh code from the crypto RNG. */
export function generateCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** The code as typed (any case, spaces or dashes between groups) in canonical form, or undefined if it cannot be one. */
export function normaliseCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, "").toUpperCase();
  if (code.length !== CODE_LENGTH) return undefined;
  for (const ch of code) if (!CODE_ALPHABET.includes(ch)) return undefined;
  return code;
}

/** Hashed on libuv's thread pool: the event loop never computes scrypt itself. */
export async function hashCode(code: string): Promise<HashedCode> {
  const salt = randomBytes(16).toString("hex");
  return { salt, hash: (await derive(code, salt)).toString("hex") };
}

/** Constant-time comparison of `code` with a stored hash. */
export async function codeMatches(code: string, stored: HashedCode): Promise<boolean> {
  const expected = Buffer.from(stored.hash, "hex");
  if (expected.length !== HASH_BYTES) return false;
  return timingSafeEqual(await derive(code, stored.salt), expected);
}

function derive(code: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(code, salt, HASH_BYTES, SCRYPT_COST, (err, key) => (err ? reject(err) : resolve(key))),
  );
}
