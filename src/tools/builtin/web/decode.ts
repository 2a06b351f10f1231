/**
 * Bytes of a fetched page to text. The encoding comes from, in order: a byte-order mark, the
 * Content-Type charset, a `<meta charset>` / XML declaration near the top, then UTF-8 when the
 * bytes are valid UTF-8 and windows-1252 (the web's legacy default) when they are not.
 */

const SNIFF_BYTES = 4096;

export interface DecodedText {
  text: string;
  /** The encoding label used (as TextDecoder names it). */
  encoding: string;
}

export function decodeBody(body: Uint8Array, contentType: string): DecodedText {
  const bom = bomEncoding(body);
  if (bom) return decodeWith(bom.encoding, body.subarray(bom.length));
  const declared = charsetParam(contentType) ?? sniffDeclared(body);
  if (declared) {
    const decoded = tryDecode(declared, body);
    if (decoded) return decoded;
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(body), encoding: "utf-8" };
  } catch {
    return decodeWith("windows-1252", body);
  }
}

/** The `charset=` parameter of a Content-Type value, if any. */
export function charsetParam(contentType: string): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return m?.[2]?.toLowerCase();
}

function bomEncoding(b: Uint8Array): { encoding: string; length: number } | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (b[0] === 0xff && b[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (b[0] === 0xfe && b[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return undefined;
}

/** A charset declared inside the document's first bytes (HTML meta or XML declaration). */
function sniffDeclared(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, SNIFF_BYTES)).toString("latin1");
  const meta =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head) ??
    /<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  const label = meta?.[1]?.toLowerCase();
  // A page that says UTF-16 in ASCII-compatible bytes cannot be UTF-16; browsers read it as UTF-8.
  return label?.startsWith("utf-16") ? "utf-8" : label;
}

function tryDecode(label: string, body: Uint8Array): DecodedText | undefined {
  try {
    return decodeWith(label, body);
  } catch {
    return undefined;
  }
}

function decodeWith(label: string, body: Uint8Array): DecodedText {
  const decoder = new TextDecoder(label);
  return { text: decoder.decode(body), encoding: decoder.encoding };
}
