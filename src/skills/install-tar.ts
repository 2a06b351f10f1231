import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { gunzipSync } from "node:zlib";

/**
 * A small reader for `.tar.gz` skill archives (ustar, with pax and GNU long names). Extraction
 * writes regular files and folders only, inside the destination: an entry with an absolute path
 * or a `..` step refuses the whole archive, and links or devices are never created (they are
 * reported, so the scan can judge them).
 */

export interface TarLimits {
  /** Uncompressed bytes. */
  maxBytes: number;
  maxEntries: number;
}

export const DEFAULT_TAR_LIMITS: TarLimits = { maxBytes: 64 * 1024 * 1024, maxEntries: 5000 };

export interface SkippedEntry {
  path: string;
  kind: "symlink" | "hardlink" | "special";
  target?: string;
}

export interface ExtractResult {
  files: number;
  skipped: SkippedEntry[];
}

export class ArchiveError extends Error {
  override name = "ArchiveError";
}

const BLOCK = 512;

function field(buf: Buffer, start: number, length: number): string {
  const raw = buf.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString("utf8");
}

/** Octal number field, or the base-256 form GNU tar uses for large values. */
function numberField(buf: Buffer, start: number, length: number): number {
  const raw = buf.subarray(start, start + length);
  if (raw[0]! & 0x80) {
    let n = 0;
    for (let i = 1; i < raw.length; i++) n = n * 256 + raw[i]!;
    return n;
  }
  const text = field(buf, start, length).trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

/** `len key=value\n` records of a pax header. */
function paxRecords(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space === -1) break;
    const len = Number.parseInt(data.subarray(pos, space).toString("utf8"), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = data.subarray(space + 1, pos + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    pos += len;
  }
  return out;
}

/** The entry's path made relative and checked; throws when it would land outside the archive root. */
export function safeEntryPath(raw: string): string {
  const path = raw.replace(/^(?:\.\/)+/, "").replace(/\/+$/, "");
  if (path.includes("\0") || path.includes("\\"))
    throw new ArchiveError(`archive entry '${raw}' has a character not allowed in a path`);
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path))
    throw new ArchiveError(`archive entry '${raw}' has an absolute path`);
  if (path.split("/").some((part) => part === ".."))
    throw new ArchiveError(`archive entry '${raw}' climbs out of the archive ('..')`);
  return path;
}

/** Extracts a gzipped tar into `dest` (which should be empty). Throws ArchiveError on a bad or hostile archive. */
export function extractTarGz(
  gz: Buffer,
  dest: string,
  limits: TarLimits = DEFAULT_TAR_LIMITS,
): ExtractResult {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: limits.maxBytes });
  } catch (err) {
    const tooBig = (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
    throw new ArchiveError(
      tooBig ? `archive is larger than ${limits.maxBytes} bytes unpacked` : "not a gzip file",
    );
  }
  const root = resolve(dest);
  mkdirSync(root, { recursive: true });
  const result: ExtractResult = { files: 0, skipped: [] };
  let pos = 0;
  let entries = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  while (pos + BLOCK <= tar.length) {
    const header = tar.subarray(pos, pos + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (++entries > limits.maxEntries)
      throw new ArchiveError(`archive has more than ${limits.maxEntries} entries`);
    const size = numberField(header, 124, 12);
    const type = String.fromCharCode(header[156]!) || "0";
    const dataStart = pos + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new ArchiveError("archive is truncated");
    const data = tar.subarray(dataStart, dataEnd);
    pos = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === "x") {
      pax = paxRecords(data);
      continue;
    }
    if (type === "g") continue;
    if (type === "L" || type === "K") {
      const text = data.toString("utf8").replace(/\0+$/, "");
      if (type === "L") longName = text;
      else longLink = text;
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = field(header, 0, 100);
    const rawPath = pax.path ?? longName ?? (prefix ? `${prefix}/${name}` : name);
    const linkTarget = pax.linkpath ?? longLink ?? field(header, 157, 100);
    pax = {};
    longName = undefined;
    longLink = undefined;

    const path = safeEntryPath(rawPath);
    if (path === "") continue;
    const target = resolve(root, path);
    const rel = relative(root, target);
    if (rel.startsWith("..") || rel.split(sep).includes(".."))
      throw new ArchiveError(`archive entry '${rawPath}' escapes`);

    if (type === "5") {
      mkdirSync(target, { recursive: true });
    } else if (type === "0" || type === "\0" || type === "7") {
      mkdirSync(join(target, ".."), { recursive: true });
      const mode = numberField(header, 100, 8) & 0o111 ? 0o755 : 0o644;
      writeFileSync(target, data, { mode });
      result.files++;
    } else if (type === "2" || type === "1") {
      result.skipped.push({ path, kind: type === "2" ? "symlink" : "hardlink", target: linkTarget });
    } else {
      result.skipped.push({ path, kind: "special" });
    }
  }
  return result;
}
