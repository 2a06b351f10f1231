/**
 * Files in both directions. Inbound: getFile, then a streamed download from /file/bot<token>/<path>
 * into the gateway's download folder, stopped as soon as it passes the size cap (a self-hosted Bot
 * API server in --local mode answers with a path on its own disk, which is copied instead). Outbound:
 * which send method a file goes through.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { basename, extname, isAbsolute, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { InboundAttachment, OutboundFile } from "../../types.js";

/** A file an update carries, before download. */
export interface TelegramFileRef {
  kind: InboundAttachment["kind"];
  fileId: string;
  fileName: string;
  mimeType?: string;
  /** What the update declared (may be absent). */
  size?: number;
}

export interface FileSource {
  getFile(fileId: string): Promise<{ file_path?: string; file_size?: number }>;
  /** The download URL of a Bot API file path. */
  fileUrl(filePath: string): string;
}

/** A clear reason an attachment was not downloaded; becomes a note in the user message. */
export class AttachmentSkipped extends Error {}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Keeps a platform-supplied file name from escaping the folder or confusing a shell. */
export function safeFileName(name: string): string {
  const cleaned = basename(name)
    .replace(/[^\w.-]+/g, "_")
    .replace(/^\.+/, "");
  return (cleaned || "file").slice(-80);
}

/** Downloads one file into `dir`; throws AttachmentSkipped (too big, unavailable) with a reason. */
export async function downloadFile(
  source: FileSource,
  ref: TelegramFileRef,
  o: { dir: string; prefix: string; maxBytes: number; signal?: AbortSignal },
): Promise<InboundAttachment> {
  const tooBig = (size: number): AttachmentSkipped =>
    new AttachmentSkipped(`${ref.fileName} is ${humanSize(size)}, over the ${humanSize(o.maxBytes)} limit`);
  if (ref.size !== undefined && ref.size > o.maxBytes) throw tooBig(ref.size);
  let info: { file_path?: string; file_size?: number };
  try {
    info = await source.getFile(ref.fileId);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AttachmentSkipped(`${ref.fileName} could not be fetched from Telegram (${reason})`);
  }
  if (info.file_size !== undefined && info.file_size > o.maxBytes) throw tooBig(info.file_size);
  if (!info.file_path) throw new AttachmentSkipped(`${ref.fileName} has no download path`);
  await mkdir(o.dir, { recursive: true });
  const target = join(o.dir, `${o.prefix}-${safeFileName(ref.fileName)}`);
  const partial = `${target}.part`;
  let received = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > o.maxBytes ? tooBig(received) : null, chunk);
    },
  });
  try {
    if (isAbsolute(info.file_path)) {
      await pipeline(createReadStream(info.file_path), cap, createWriteStream(partial));
    } else {
      const response = await fetch(source.fileUrl(info.file_path), o.signal ? { signal: o.signal } : {});
      if (!response.ok || !response.body)
        throw new AttachmentSkipped(`${ref.fileName} could not be downloaded (HTTP ${response.status})`);
      await pipeline(Readable.fromWeb(response.body), cap, createWriteStream(partial));
    }
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof AttachmentSkipped) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AttachmentSkipped(`${ref.fileName} could not be downloaded (${reason})`);
  }
  return {
    kind: ref.kind,
    path: target,
    fileName: ref.fileName,
    bytes: (await stat(target)).size,
    ...(ref.mimeType ? { mimeType: ref.mimeType } : {}),
  };
}

export type SendMethod = "sendPhoto" | "sendDocument" | "sendVoice" | "sendAudio" | "sendVideo";

const BY_EXTENSION: Record<string, NonNullable<OutboundFile["kind"]>> = {
  ".jpg": "photo",
  ".jpeg": "photo",
  ".png": "photo",
  ".webp": "photo",
  ".ogg": "voice",
  ".oga": "voice",
  ".opus": "voice",
  ".mp3": "audio",
  ".m4a": "audio",
  ".wav": "audio",
  ".flac": "audio",
  ".aac": "audio",
  ".mp4": "video",
  ".mov": "video",
  ".webm": "video",
  ".mkv": "video",
};

/** Telegram refuses photos over 10 MB: they go as documents. */
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

/** The send method and the parameter name that carries the file. */
export function sendMethodFor(file: OutboundFile, size: number): { method: SendMethod; field: string } {
  let kind = file.kind ?? BY_EXTENSION[extname(file.path).toLowerCase()] ?? "document";
  if (kind === "photo" && size > MAX_PHOTO_BYTES) kind = "document";
  switch (kind) {
    case "photo":
      return { method: "sendPhoto", field: "photo" };
    case "voice":
      return { method: "sendVoice", field: "voice" };
    case "audio":
      return { method: "sendAudio", field: "audio" };
    case "video":
      return { method: "sendVideo", field: "video" };
    case "document":
      return { method: "sendDocument", field: "document" };
  }
}
