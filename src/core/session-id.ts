/**
 * Session ids: random UUIDs (version 4 layout, 122 random bits), whose first characters tell
 * sessions apart in listings and `/resume` prefixes. The bits come from Math.random, which V8 seeds
 * from the system's entropy in every process: these ids must be unique, not secret (nothing is
 * authorised by knowing one), and taking them from node:crypto would load it (~5 ms) on the way
 * to the first model request.
 */
export function newSessionId(): string {
  const hex = (digits: number, value: number) => value.toString(16).padStart(digits, "0");
  const random = (bits: number) => Math.floor(Math.random() * 2 ** bits);
  const variant = hex(4, 0x8000 | random(14));
  return `${hex(8, random(32))}-${hex(4, random(16))}-4${hex(3, random(12))}-${variant}-${hex(6, random(24))}${hex(6, random(24))}`;
}
