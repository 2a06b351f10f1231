/**
 * Wire helpers of the fake Bot API (test/support/fake-telegram.ts): request bodies in the three
 * encodings the real server accepts (query string, JSON, urlencoded and multipart/form-data) and the
 * checks the real server makes on HTML-formatted text (allowed tags, nesting, visible length).
 */

/** A file part of a multipart upload. */
export interface UploadedFile {
  fileName: string;
  bytes: Buffer;
}

export interface ParsedBody {
  params: Record<string, unknown>;
  /** Upload parts by field name (`photo`, or the id an `attach://<id>` value points at). */
  files: Map<string, UploadedFile>;
}

/** Parameter values that arrive as JSON text in form encodings. */
const JSON_FIELDS = new Set([
  "reply_markup",
  "reply_parameters",
  "entities",
  "caption_entities",
  "allowed_updates",
  "commands",
  "scope",
  "link_preview_options",
]);

/** Form values are strings; numbers, booleans and JSON-typed fields get their JSON types back. */
function typed(key: string, value: string): unknown {
  if (JSON_FIELDS.has(key)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (/^-?\d+$/.test(value) && value.length < 16) return Number(value);
  if (value === "true") return true;
  if (value === "false") return false;
  return value;
}

export function parseBody(contentType: string, raw: Buffer, query: URLSearchParams): ParsedBody {
  const params: Record<string, unknown> = {};
  const files = new Map<string, UploadedFile>();
  for (const [k, v] of query) params[k] = typed(k, v);
  if (raw.length === 0) return { params, files };
  const type = contentType.toLowerCase();
  if (type.startsWith("application/json")) {
    const body = JSON.parse(raw.toString("utf8")) as unknown;
    if (body && typeof body === "object") Object.assign(params, body);
  } else if (type.startsWith("application/x-www-form-urlencoded")) {
    for (const [k, v] of new URLSearchParams(raw.toString("utf8"))) params[k] = typed(k, v);
  } else if (type.startsWith("multipart/form-data")) {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
    const marker = boundary?.[1] ?? boundary?.[2];
    if (!marker) throw new Error("multipart body without a boundary");
    for (const part of splitMultipart(raw, marker.trim())) {
      if (part.fileName !== undefined) files.set(part.name, { fileName: part.fileName, bytes: part.body });
      else params[part.name] = typed(part.name, part.body.toString("utf8"));
    }
  }
  return { params, files };
}

interface MultipartPart {
  name: string;
  fileName?: string;
  body: Buffer;
}

/** Splits a multipart/form-data body; header names are case-insensitive and filenames may be unquoted. */
function splitMultipart(raw: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let start = raw.indexOf(delimiter);
  while (start !== -1) {
    const afterDelimiter = start + delimiter.length;
    if (raw.subarray(afterDelimiter, afterDelimiter + 2).toString() === "--") break;
    const next = raw.indexOf(delimiter, afterDelimiter);
    if (next === -1) break;
    // The part runs from after the delimiter's CRLF to before the CRLF that precedes the next one.
    const part = raw.subarray(afterDelimiter + 2, next - 2);
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString("utf8");
      const disposition = /content-disposition:\s*form-data([^\r\n]*)/i.exec(headers)?.[1] ?? "";
      const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
      const file = /\bfilename=(?:"([^"]*)"|([^;\r\n]*))/i.exec(disposition);
      if (name !== undefined)
        parts.push({
          name,
          fileName: file ? (file[1] ?? file[2] ?? "").trim() : undefined,
          body: part.subarray(headerEnd + 4),
        });
    }
    start = next;
  }
  return parts;
}

/** Tags the Bot API's HTML parse mode accepts. */
const ALLOWED_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "tg-emoji",
  "code",
  "pre",
  "blockquote",
]);

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/**
 * Parses Bot API HTML the way the server does: returns the visible text, or the server's
 * "can't parse entities" reason.
 */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  const stack: string[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const ch = html[i]!;
    if (ch === "<") {
      const close = html.indexOf(">", i);
      if (close === -1) return { error: `Unclosed start tag at byte offset ${byteOffset(html, i)}` };
      const tag = html.slice(i + 1, close);
      if (tag.startsWith("/")) {
        const name = tag.slice(1).trim().toLowerCase();
        const open = stack.pop();
        if (open === undefined) return { error: `Unexpected end tag at byte offset ${byteOffset(html, i)}` };
        if (open !== name)
          return {
            error: `Unmatched end tag at byte offset ${byteOffset(html, i)}, expected "</${open}>", found "</${name}>"`,
          };
      } else {
        const name = (/^[a-zA-Z-]+/.exec(tag)?.[0] ?? "").toLowerCase();
        if (!ALLOWED_TAGS.has(name))
          return { error: `Unsupported start tag "${name || tag}" at byte offset ${byteOffset(html, i)}` };
        if (name === "a" && !/\bhref\s*=\s*"[^"]*"/.test(tag))
          return { error: `Can't find required attribute "href" of tag "a"` };
        stack.push(name);
      }
      i = close + 1;
    } else if (ch === "&") {
      const match = /^&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/.exec(html.slice(i, i + 12));
      const entity = match?.[1];
      if (entity === undefined) {
        text += "&"; // the server keeps a bare ampersand as text
        i++;
        continue;
      }
      if (entity.startsWith("#x")) text += String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
      else if (entity.startsWith("#")) text += String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
      else {
        const value = ENTITIES[entity.toLowerCase()];
        if (value === undefined)
          return { error: `Unsupported HTML entity "&${entity};" at byte offset ${byteOffset(html, i)}` };
        text += value;
      }
      i += match![0].length;
    } else {
      text += ch;
      i++;
    }
  }
  if (stack.length > 0) return { error: `Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  return { text };
}

function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), "utf8");
}
