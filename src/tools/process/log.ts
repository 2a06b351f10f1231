import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { cleanTerminalOutput, cutLine } from "../output.js";

/**
 * Reading a background process's log as lines, with bounded memory however large the log or its
 * lines: a line longer than `maxLineLength` keeps its start and says how much was cut.
 */

export interface LogPage {
  lines: string[];
  /** Lines in the whole log (a last line without its newline counts). */
  totalLines: number;
  /** 1-based number of the first line returned. */
  offset: number;
}

/** Calls `onLine` for each line of the file, each cut to `maxLineLength` characters (cleaned of ANSI). */
async function scanLines(
  path: string,
  maxLineLength: number,
  onLine: (line: string, index: number) => void,
): Promise<number> {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  let partialExtra = 0;
  let index = 0;
  const keep = maxLineLength + 64;
  const emit = (raw: string, extra: number): void => {
    const line = cutLine(cleanTerminalOutput(raw), maxLineLength);
    onLine(extra > 0 ? `${line} [... ${extra} more chars cut]` : line, index);
    index += 1;
  };
  const take = (text: string): void => {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      const piece = nl < 0 ? text.slice(start) : text.slice(start, nl);
      if (partial.length < keep) {
        const room = keep - partial.length;
        partial += piece.slice(0, room);
        partialExtra += Math.max(0, piece.length - room);
      } else partialExtra += piece.length;
      if (nl < 0) return;
      emit(partial, partialExtra);
      partial = "";
      partialExtra = 0;
      start = nl + 1;
    }
  };
  try {
    for await (const chunk of createReadStream(path)) take(decoder.write(chunk as Buffer));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  take(decoder.end());
  if (partial || partialExtra) emit(partial, partialExtra);
  return index;
}

/**
 * Lines `offset`..`offset+limit-1` (1-based) of a log; without `offset`, its last `limit` lines.
 * A missing log reads as empty.
 */
export async function readLogPage(
  path: string,
  options: { offset?: number; limit: number; maxLineLength: number },
): Promise<LogPage> {
  const limit = Math.max(1, options.limit);
  const lines: string[] = [];
  if (options.offset !== undefined) {
    const first = Math.max(1, options.offset) - 1;
    const total = await scanLines(path, options.maxLineLength, (line, i) => {
      if (i >= first && i < first + limit) lines.push(line);
    });
    return { lines, totalLines: total, offset: first + 1 };
  }
  const total = await scanLines(path, options.maxLineLength, (line) => {
    lines.push(line);
    if (lines.length > limit) lines.shift();
  });
  return { lines, totalLines: total, offset: total - lines.length + 1 };
}

/** Bytes from `start` to the end of the file, at most `max`; an empty buffer when nothing is new. */
export async function readFrom(path: string, start: number, max: number): Promise<Buffer> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const size = (await handle.stat()).size;
    const length = Math.min(max, size - start);
    if (length <= 0) return Buffer.alloc(0);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, start);
    return buf.subarray(0, bytesRead);
  } catch {
    return Buffer.alloc(0);
  } finally {
    await handle?.close();
  }
}
