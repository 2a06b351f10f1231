/**
 * Making an image fit what a provider accepts: decoded (any format sharp reads; the first frame of
 * an animation), turned upright by its EXIF orientation, scaled down to the wire protocol's size,
 * re-encoded as JPEG (PNG when it has transparency and stays small) under the byte limit, metadata
 * dropped. sharp is a native module loaded on first need: an image already within the limits and
 * without EXIF data goes as it is, without loading it.
 */
import type { Sharp } from "sharp";
import { hasExif } from "./image-exif.js";

/** What one image may be for a provider. */
export interface ImageLimits {
  /** Longest side, in pixels. */
  maxSide: number;
  /** Shortest side, in pixels (OpenAI scales to 768 for high detail: sending more only costs bytes). */
  maxShortSide?: number;
  /** Bytes of the encoded image (base64 adds a third on the wire). */
  maxBytes: number;
}

/** 5 MB as base64, Anthropic's per-image cap and the strictest of the providers. */
const MAX_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

/** Anthropic (and Bedrock, which serves Claude): 1568 px on the long side; larger is scaled by the API anyway. */
const ANTHROPIC_LIMITS: ImageLimits = { maxSide: 1568, maxBytes: MAX_BYTES };
/** OpenAI high detail: within 2048 x 2048, then 768 px on the short side. */
const OPENAI_LIMITS: ImageLimits = { maxSide: 2048, maxShortSide: 768, maxBytes: MAX_BYTES };

/**
 * The limits for a wire protocol. Chat completions endpoints front any vendor (OpenRouter serves
 * Claude too), so they, and an unknown protocol, get the strictest: Anthropic's.
 */
export function imageLimitsFor(apiMode: string | undefined): ImageLimits {
  return apiMode === "codex_responses" ? OPENAI_LIMITS : ANTHROPIC_LIMITS;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = ANTHROPIC_LIMITS;

export type SendableFormat = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface PreparedImage {
  data: Buffer;
  mimeType: SendableFormat;
  width: number;
  height: number;
  /** The decoded image's size when it was scaled down. */
  scaledFrom?: { width: number; height: number };
}

export type PrepareResult = { ok: true; image: PreparedImage } | { ok: false; error: string };

/** What the header says of an image that may go unchanged (see image-source.ts). */
export interface HeaderInfo {
  mimeType: SendableFormat;
  width: number;
  height: number;
}

/** Scale factor (at most 1) that brings `width` x `height` within `limits`. */
export function scaleFor(width: number, height: number, limits: ImageLimits): number {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  return Math.min(1, limits.maxSide / long, limits.maxShortSide ? limits.maxShortSide / short : 1);
}

/** True when the bytes can go as they are: a format every provider takes, within the limits, no EXIF. */
export function sendsAsIs(data: Buffer, info: HeaderInfo | undefined, limits: ImageLimits): boolean {
  if (!info || info.mimeType === "image/gif") return false; // a GIF may be animated: first frame only
  if (info.width === 0 || info.height === 0) return false;
  if (data.length > limits.maxBytes || scaleFor(info.width, info.height, limits) < 1) return false;
  return !hasExif(data, info.mimeType);
}

type SharpFactory = typeof import("sharp")["default"];
let sharpModule: Promise<SharpFactory> | undefined;

/** sharp, imported once, on the first image that needs work. */
function loadSharp(): Promise<SharpFactory> {
  sharpModule ??= import("sharp").then((m) => m.default);
  return sharpModule;
}

/** JPEG qualities tried in turn until the image fits; then the size steps down. */
const QUALITIES = [85, 75, 65, 50, 35] as const;
/** A transparent image stays PNG only while it is this small (PNG of a photo is several times a JPEG). */
const MAX_PNG_BYTES = 1024 * 1024;

/** Decodes, orients, scales and re-encodes `data` within `limits`. Never throws. */
export async function prepareImage(
  data: Buffer,
  info: HeaderInfo | undefined,
  limits: ImageLimits,
): Promise<PrepareResult> {
  if (sendsAsIs(data, info, limits))
    return { ok: true, image: { data, mimeType: info!.mimeType, width: info!.width, height: info!.height } };
  let sharp: SharpFactory;
  try {
    sharp = await loadSharp();
  } catch (err) {
    return {
      ok: false,
      error: `the image needs resizing and the image library failed to load: ${(err as Error).message}`,
    };
  }
  try {
    return { ok: true, image: await reencode(sharp, data, limits) };
  } catch (err) {
    return { ok: false, error: `it could not be decoded as an image (${firstLine(err)})` };
  }
}

const firstLine = (err: unknown): string =>
  String((err as Error)?.message ?? err)
    .split("\n")[0]!
    .trim();

/** Pixels of the output: `width` x `height` scaled, at least one each way. */
const scaled = (width: number, height: number, scale: number): [number, number] => [
  Math.max(1, Math.round(width * scale)),
  Math.max(1, Math.round(height * scale)),
];

async function reencode(sharp: SharpFactory, data: Buffer, limits: ImageLimits): Promise<PreparedImage> {
  const meta = await sharp(data, { pages: 1 }).metadata();
  const { width, height } = meta.autoOrient;
  const scale = scaleFor(width, height, limits);
  // One decode (truncated files fail here), turned upright and scaled: later steps start from these pixels.
  const [w0, h0] = scaled(width, height, scale);
  const first = await sharp(data, { pages: 1, failOn: "truncated" })
    .rotate()
    .resize(w0, h0, { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { channels } = first.info;
  const pixels = (): Sharp =>
    sharp(first.data, { raw: { width: first.info.width, height: first.info.height, channels } });
  const transparent = channels === 4 && !(await pixels().stats()).isOpaque;
  for (let step = 1; ; step *= 0.75) {
    const [w, h] = scaled(w0, h0, step);
    const sized = (): Sharp => (step < 1 ? pixels().resize(w, h, { fit: "fill" }) : pixels());
    const done = (out: Buffer, mimeType: SendableFormat): PreparedImage => ({
      data: out,
      mimeType,
      width: w,
      height: h,
      ...(w !== width || h !== height ? { scaledFrom: { width, height } } : {}),
    });
    if (transparent) {
      const png = await sized().png({ compressionLevel: 9 }).toBuffer();
      if (png.length <= Math.min(MAX_PNG_BYTES, limits.maxBytes)) return done(png, "image/png");
    }
    for (const quality of QUALITIES) {
      const jpeg = await sized()
        .flatten({ background: "#ffffff" })
        .jpeg({ quality, mozjpeg: true })
        .toBuffer();
      if (jpeg.length <= limits.maxBytes) return done(jpeg, "image/jpeg");
    }
    if (w === 1 && h === 1) throw new Error("it does not fit the byte limit at any size");
  }
}
