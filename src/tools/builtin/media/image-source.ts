/**
 * Loading an image for a model: a file path, an http(s) URL (through the SSRF guard) or a data URL,
 * made to fit what the provider accepts (image-prepare.ts): scaled down, turned upright and
 * re-encoded when needed, sent as it is when it already fits.
 */
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { guardedFetch, type UrlGuardOptions } from "../web/url-guard.js";
import { DEFAULT_IMAGE_LIMITS, type ImageLimits, prepareImage } from "./image-prepare.js";

/** Bytes of an image file read at all (before scaling down): a camera photo fits many times over. */
export const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

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
  /** The original's size when it was scaled down to fit. */
  scaledFrom?: { width: number; height: number };
}

export type ImageLoad = { ok: true; image: LoadedImage } | { ok: false; error: string };

export interface ImageLoadOptions {
  /** Relative paths resolve here. */
  cwd: string;
  guard?: UrlGuardOptions;
  signal?: AbortSignal;
  /** What the receiving provider accepts (default: the strictest, Anthropic's). */
  limits?: ImageLimits;
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
  const prepared = await prepareImage(data, sniffImage(data), opts.limits ?? DEFAULT_IMAGE_LIMITS);
  if (!prepared.ok) return { ok: false, error: `Cannot use ${source}: ${prepared.error}.` };
  return { ok: true, image: { ...prepared.image, source } };
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
  if (size > MAX_IMAGE_BYTES)
    return {
      ok: false,
      error: `Cannot use ${input}: the file is ${size} bytes; images over ${MAX_IMAGE_BYTES} are not read.`,
    };
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
export const dataUrl = (image: Pick<LoadedImage, "mimeType" | "data">): string =>
  `data:${image.mimeType};base64,${image.data.toString("base64")}`;
