/**
 * Text hidden inside a line: base64, hex or octal escapes, character codes, hex strings, reversed
 * and ROT13 strings. The scan reads what they decode to with the same rules, so an encoded
 * `curl … | sh` is judged like a plain one.
 */

export type PayloadKind = "base64" | "hex" | "char-codes" | "reversed" | "rot13";

export interface Payload {
  kind: PayloadKind;
  /** Offset of the encoded text in the segment. */
  offset: number;
  text: string;
}

export interface LongBlob {
  offset: number;
  length: number;
  /** media: a picture or font (data the skill displays); opaque: bytes that are neither text nor media. */
  content: "text" | "media" | "opaque";
}

const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])/g;
/** Runs this long are reported even when they decode to nothing readable. */
export const LONG_BLOB = 200;

const MEDIA_MAGIC: readonly number[][] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP, WAV)
  [0x25, 0x50, 0x44, 0x46], // PDF
  [0x77, 0x4f, 0x46], // WOFF / WOFF2
  [0x00, 0x01, 0x00, 0x00], // TrueType
  [0x4f, 0x54, 0x54, 0x4f], // OpenType
  [0x3c, 0x73, 0x76, 0x67], // <svg
];

const isMedia = (bytes: Buffer): boolean =>
  MEDIA_MAGIC.some((magic) => magic.every((b, i) => bytes[i] === b));

/** Mostly printable ASCII with some word breaks: what an encoded command looks like decoded. */
function readable(text: string): boolean {
  if (text.length < 8) return false;
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13) printable++;
  }
  // Base64 inside base64 is decoded again by the caller.
  return printable / text.length > 0.95 && (/[\s/;|.]/.test(text) || /^[A-Za-z0-9+/]{16,}={0,2}$/.test(text));
}

/** A run of letters only (an identifier, a word) is not base64 worth decoding. */
const looksEncoded = (run: string): boolean =>
  /[0-9+/]/.test(run) || (/[a-z]/.test(run) && /[A-Z]/.test(run) && run.length >= 24);

export function base64Payloads(text: string): { payloads: Payload[]; blobs: LongBlob[] } {
  const payloads: Payload[] = [];
  const blobs: LongBlob[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    const run = m[0];
    if (!looksEncoded(run)) continue;
    const bytes = Buffer.from(run, "base64");
    const decoded = bytes.toString("latin1");
    const isText = readable(decoded);
    if (isText) payloads.push({ kind: "base64", offset: m.index, text: decoded });
    if (run.length >= LONG_BLOB) {
      const before = text.slice(Math.max(0, m.index - 80), m.index);
      const media = isMedia(bytes) || /data:(?:image|font|audio|video)\/[\w.+-]+;base64,$/i.test(before);
      blobs.push({
        offset: m.index,
        length: run.length,
        content: isText ? "text" : media ? "media" : "opaque",
      });
    }
  }
  return { payloads, blobs };
}

const HEX_ESCAPES = /(?:\\x[0-9a-fA-F]{2}){6,}|(?:\\u00[0-9a-fA-F]{2}){6,}|(?:\\[0-7]{3}){6,}/g;
const CHAR_CODES =
  /fromCharCode\s*\(\s*((?:\d{1,3}\s*,\s*){5,}\d{1,3})\s*\)|((?:chr\(\s*\d{1,3}\s*\)\s*[+.,]\s*){5,}chr\(\s*\d{1,3}\s*\))/g;
const HEX_STRING = /["']([0-9a-fA-F]{16,})["']|\b([0-9a-fA-F]{24,})\b/g;
const HEX_DECODERS =
  /\b(?:fromhex|unhexlify|xxd\s+-r|Buffer\.from\([^)]*["']hex["']|hex2bin|pack\s*\(\s*["']H)/i;
const REVERSERS = /\[::-1\]|\|\s*rev\b|\.reverse\(\)|\breverse\s*\(|\bstrrev\s*\(/;
const ROT13 = /\brot_?13\b|\btr\s+['"]?A-Za-z['"]?\s+['"]?N-ZA-Mn-za-m/i;
const QUOTED = /"([^"\n]{6,})"|'([^'\n]{6,})'/g;

function unescapeRun(run: string): string {
  return run
    .replace(/\\x([0-9a-fA-F]{2})|\\u00([0-9a-fA-F]{2})/g, (_m, a?: string, b?: string) =>
      String.fromCharCode(Number.parseInt((a ?? b)!, 16)),
    )
    .replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

const rot13 = (s: string): string =>
  s.replace(/[a-zA-Z]/g, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

/** Every decodable payload of a segment (base64 included). */
export function hiddenPayloads(text: string): { payloads: Payload[]; blobs: LongBlob[] } {
  const { payloads, blobs } = base64Payloads(text);
  for (const m of text.matchAll(HEX_ESCAPES))
    payloads.push({ kind: "hex", offset: m.index, text: unescapeRun(m[0]) });
  for (const m of text.matchAll(CHAR_CODES)) {
    const codes = (m[1] ?? m[2] ?? "").match(/\d{1,3}/g) ?? [];
    payloads.push({ kind: "char-codes", offset: m.index, text: String.fromCharCode(...codes.map(Number)) });
  }
  if (HEX_DECODERS.test(text))
    for (const m of text.matchAll(HEX_STRING)) {
      const hex = m[1] ?? m[2] ?? "";
      if (hex.length % 2 === 0)
        payloads.push({ kind: "hex", offset: m.index, text: Buffer.from(hex, "hex").toString("latin1") });
    }
  const reversed = REVERSERS.test(text);
  const rotated = ROT13.test(text);
  if (reversed || rotated)
    for (const m of text.matchAll(QUOTED)) {
      const q = m[1] ?? m[2] ?? "";
      if (reversed) payloads.push({ kind: "reversed", offset: m.index, text: [...q].reverse().join("") });
      if (rotated) payloads.push({ kind: "rot13", offset: m.index, text: rot13(q) });
    }
  return { payloads: payloads.filter((p) => p.text.trim().length >= 6), blobs };
}
