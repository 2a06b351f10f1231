/**
 * Loading an image for a model: a file path, an http(s) URL (through the SSRF guard) or a data URL,
 * checked against what providers accept. No image codec ships with the project, so nothing is
 * re-encoded: the format and pixel size are read from the file's header, and an image over the
 * limits is refused with the reason rather than sent to fail at the provider.
 */
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { guardedFetch, type UrlGuardOptions } from "../web/url-guard.js";

/** Bytes of one image: Anthropic's per-image cap, the strictest of the supported providers. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Longest side in pixels the providers accept. */
export const MAX_IMAGE_SIDE = 8000;

export type ImageFormat = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ImageInfo {
  mimeType: ImageFormat;
  width: number;
  height: number;
}

export interface LoadedImage extends ImageInfo {
  data: Buffer;
  /** Where it came from, for messages (a path or URL; data URLs are shortened). */
  source: string;
}

export type ImageLoad = { ok: true; image: LoadedImage } | { ok: false; error: string };

export interface ImageLoadOptions {
  /** Relative paths resolve here. */
  cwd: string;
  guard?: UrlGuardOptions;
  signal?: AbortSignal;
}

const u16be = (b: Buffer, at: number): number => b.readUInt16BE(at);

/** PNG, JPEG, GIF or WebP: format and size from the header; undefined for anything else. */
export function sniffImage(b: Buffer): ImageInfo | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString("latin1", 12, 16) === "IHDR")
    return { mimeType: "image/png", width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString("latin1", 0, 6).match(/^GIF8[79]a$/))
    return { mimeType: "image/gif", width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
    return webpSize(b);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return undefined;
}

function webpSize(b: Buffer): ImageInfo | undefined {
  const chunk = b.toString("latin1", 12, 16);
  const mimeType = "image/webp";
  if (chunk === "VP8X") return { mimeType, width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === "VP8L") {
    const bits = b.readUInt32LE(21);
    return { mimeType, width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ")
    return { mimeType, width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/** Walks the JPEG segments to the first start-of-frame marker, which holds the size. */
function jpegSize(b: Buffer): ImageInfo | undefined {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const sof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (sof) return { mimeType: "image/jpeg", height: u16be(b, at + 5), width: u16be(b, at + 7) };
    at += 2 + u16be(b, at + 2);
  }
  return undefined;
}

/** Why an image cannot go to a provider as it is, or undefined when it can. */
export function imageProblem(info: ImageInfo, bytes: number): string | undefined {
  if (bytes > MAX_IMAGE_BYTES)
    return `the image is ${bytes} bytes; providers accept at most ${MAX_IMAGE_BYTES}. Save a smaller copy (for example with a resize command) and pass that.`;
  if (info.width > MAX_IMAGE_SIDE || info.height > MAX_IMAGE_SIDE)
    return `the image is ${info.width}x${info.height} pixels; providers accept at most ${MAX_IMAGE_SIDE} on a side. Save a scaled-down copy and pass that.`;
  if (info.width === 0 || info.height === 0) return "the image header gives it no size";
  return undefined;
}

const DATA_URL = /^data:([^;,]*)(;base64)?,(.*)$/s;

/** Reads, sniffs and checks one image. Never throws. */
export async function loadImage(input: string, opts: ImageLoadOptions): Promise<ImageLoad> {
  const source = input.startsWith("data:") ? `${input.slice(0, 32)}…` : input;
  let data: Buffer;
  try {
    const fetched = await readSource(input.trim(), opts);
    if (!fetched.ok) return fetched;
    data = fetched.data;
  } catch (err) {
    return { ok: false, error: `Could not read ${source}: ${(err as Error).message}` };
  }
  const info = sniffImage(data);
  if (!info) return { ok: false, error: `${source} is not a PNG, JPEG, GIF or WebP image.` };
  const problem = imageProblem(info, data.length);
  if (problem) return { ok: false, error: `Cannot use ${source}: ${problem}` };
  return { ok: true, image: { ...info, data, source } };
}

type Read = { ok: true; data: Buffer } | { ok: false; error: string };

async function readSource(input: string, opts: ImageLoadOptions): Promise<Read> {
  const dataUrl = DATA_URL.exec(input);
  if (dataUrl) {
    const payload = dataUrl[3] ?? "";
    return {
      ok: true,
      data: dataUrl[2] ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "latin1"),
    };
  }
  if (/^https?:\/\//i.test(input)) return fetchImage(input, opts);
  const expanded = input.startsWith("~/") ? `${homedir()}${input.slice(1)}` : input.replace(/^file:\/\//, "");
  const path = isAbsolute(expanded) ? expanded : resolve(opts.cwd, expanded);
  const size = (await stat(path)).size;
  // Header checks need the bytes; an oversized file is refused before it is read whole.
  if (size > MAX_IMAGE_BYTES * 4)
    return { ok: false, error: `Cannot use ${input}: the file is ${size} bytes, far over the image limit.` };
  return { ok: true, data: await readFile(path) };
}

async function fetchImage(url: string, opts: ImageLoadOptions): Promise<Read> {
  const res = await guardedFetch(url, { ...opts.guard, signal: opts.signal, timeoutMs: 30_000 });
  try {
    if (res.status >= 400) return { ok: false, error: `Could not fetch ${url}: HTTP ${res.status}` };
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      total += buf.length;
      if (total > MAX_IMAGE_BYTES)
        return { ok: false, error: `Cannot use ${url}: the image is over ${MAX_IMAGE_BYTES} bytes.` };
      chunks.push(buf);
    }
    return { ok: true, data: Buffer.concat(chunks) };
  } finally {
    await res.close();
  }
}

/** The image as a data URL for a request. */
export const dataUrl = (image: LoadedImage): string =>
  `data:${image.mimeType};base64,${image.data.toString("base64")}`;
