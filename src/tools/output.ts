import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureDir } from "../core/fs.js";
import { homePaths } from "../core/home.js";

/**
 * Shaping of command output for the model: ANSI removal, head+tail truncation with an explicit
 * marker, and spilling the full text to a file the model can page through with read_file.
 */

export interface TruncateLimits {
  maxBytes: number;
  maxLines: number;
  maxLineLength: number;
}

export interface TruncateResult {
  text: string;
  /** True when anything was dropped or cut. */
  truncated: boolean;
  omittedLines: number;
  omittedBytes: number;
}

/** Share of the budget kept from the start; the rest goes to the tail, where errors and results usually are. */
const HEAD_SHARE = 0.4;

// CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, two-byte escapes, 8-bit CSI. A string
// never runs past the end of its line: an unterminated one (binary garbage) must not eat the lines after it.
const ANSI_RE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b\n]*(?:\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;
const CONTROL_RE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Removes ANSI escape sequences (colours, cursor movement, titles, hyperlinks). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, "");
}

/**
 * What a terminal would show: ANSI removed, CRLF folded, `\r`-overwritten progress lines reduced to
 * their final state, stray control characters dropped.
 */
export function cleanTerminalOutput(text: string): string {
  return collapseCarriageReturns(stripAnsi(text)).replace(CONTROL_RE, "");
}

/** Each line keeps only what follows its last `\r` (line by line: a regex here would backtrack). */
function collapseCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text
    .split("\n")
    .map((line) => {
      let end = line.length;
      while (end > 0 && line[end - 1] === "\r") end--;
      const body = line.slice(0, end);
      return body.slice(body.lastIndexOf("\r") + 1);
    })
    .join("\n");
}

/** Cuts a line longer than `max` characters, saying how much was cut. */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)} [... ${line.length - max} more chars cut]`;
}

const bytesOf = (s: string): number => Buffer.byteLength(s, "utf8");

/** First `n` bytes of `s`, never splitting a UTF-8 sequence. */
function headBytes(s: string, n: number): string {
  return Buffer.from(s, "utf8")
    .subarray(0, Math.max(0, n))
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
}

/** Last `n` bytes of `s`, never splitting a UTF-8 sequence. */
function tailBytes(s: string, n: number): string {
  const buf = Buffer.from(s, "utf8");
  return buf
    .subarray(Math.max(0, buf.length - n))
    .toString("utf8")
    .replace(/^\uFFFD+/, "");
}

/**
 * Keeps the head and tail of `text` within the line and byte limits, with one marker in the middle
 * (`[... 1234 lines / 56789 bytes omitted ...]`); lines over `maxLineLength` are cut with a marker.
 */
export function truncateOutput(text: string, limits: TruncateLimits): TruncateResult {
  const maxBytes = Math.max(200, limits.maxBytes);
  const maxLines = Math.max(2, limits.maxLines);
  const rawLines = text.split("\n");
  let lineCut = false;
  const lines = rawLines.map((l) => {
    const cut = cutLine(l, limits.maxLineLength);
    if (cut !== l) lineCut = true;
    return cut;
  });
  const joined = lineCut ? lines.join("\n") : text;
  if (lines.length <= maxLines && bytesOf(joined) <= maxBytes) {
    return { text: joined, truncated: lineCut, omittedLines: 0, omittedBytes: 0 };
  }

  const headLineBudget = Math.floor(maxLines * HEAD_SHARE);
  const tailLineBudget = maxLines - headLineBudget;
  const headByteBudget = Math.floor(maxBytes * HEAD_SHARE);
  const tailByteBudget = maxBytes - headByteBudget;

  let h = 0;
  let hBytes = 0;
  while (h < lines.length && h < headLineBudget) {
    const b = bytesOf(lines[h]!) + 1;
    if (hBytes + b > headByteBudget) break;
    hBytes += b;
    h += 1;
  }
  let t = 0;
  let tBytes = 0;
  while (t < lines.length - h && t < tailLineBudget) {
    const b = bytesOf(lines[lines.length - 1 - t]!) + 1;
    if (tBytes + b > tailByteBudget) break;
    tBytes += b;
    t += 1;
  }

  let head = lines.slice(0, h).join("\n");
  let tail = lines.slice(lines.length - t).join("\n");
  const middle = lines.slice(h, lines.length - t);
  // A single line too big for its share: keep a byte slice of it rather than nothing.
  if (h === 0 && middle.length > 0) head = headBytes(middle[0]!, headByteBudget);
  if (t === 0 && middle.length > 0) tail = tailBytes(middle[middle.length - 1]!, tailByteBudget);
  const keptBytes = bytesOf(head) + bytesOf(tail);
  const omittedBytes = Math.max(0, bytesOf(joined) - keptBytes);
  const omittedLines = middle.length;
  const marker = `[... ${omittedLines} lines / ${omittedBytes} bytes omitted ...]`;
  const parts = [head, marker, tail].filter((p) => p !== "");
  return { text: parts.join("\n"), truncated: true, omittedLines, omittedBytes };
}

/**
 * Writes `text` to `HERMES_HOME/cache/tool-output/<timestamp>-<label>.txt` and returns the path.
 * Throws on I/O failure (callers treat the spill as best effort).
 */
export async function spillToFile(home: string, text: string, label: string): Promise<string> {
  const dir = homePaths(home).toolOutput;
  await ensureDir(dir);
  const file = spillFilePath(dir, label);
  await writeFile(file, text, { encoding: "utf8", mode: 0o600 });
  return file;
}

/** A fresh `<dir>/<UTC stamp>-<label>-<6 hex>.txt` name for spilled output. */
export function spillFilePath(dir: string, label: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(".", "");
  const safe = label.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 40) || "output";
  return join(dir, `${stamp}-${safe}-${randomBytes(3).toString("hex")}.txt`);
}
