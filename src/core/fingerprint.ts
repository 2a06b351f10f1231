/**
 * A fast change detector for cache keys built from file paths, sizes and times: two 32-bit FNV-1a
 * lanes as 16 hex digits. Nobody forges these keys, so they need no cryptographic hash, and
 * node:crypto costs ~5 ms to load on the way to the first model request.
 */
export function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}
