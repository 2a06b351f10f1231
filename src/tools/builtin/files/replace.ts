import { detectEol } from "./common.js";
import { closestRegion, findLineMatches, reindent, showRegion, TOLERANCES } from "./fuzzy.js";

/**
 * The string-replacement edit: exact match first (on LF-normalised text, so CRLF never gets in the
 * way), then whitespace-tolerant line matching. Edits are spliced into the original bytes, so the
 * rest of the file (line endings included) is left exactly as it was.
 */

export type ReplaceOutcome =
  | { ok: true; text: string; replacements: number; tolerance?: string }
  | { ok: false; error: string };

interface Span {
  start: number;
  end: number;
  replacement: string;
}

/** LF view of `raw` plus a map from LF offsets back to raw offsets. */
function lfView(raw: string): { lf: string; toRaw: (i: number) => number } {
  const removed: number[] = [];
  let lf = "";
  let last = 0;
  for (let i = raw.indexOf("\r\n"); i >= 0; i = raw.indexOf("\r\n", i + 2)) {
    lf += raw.slice(last, i);
    removed.push(lf.length);
    last = i + 1;
  }
  lf += raw.slice(last);
  const toRaw = (x: number): number => {
    let lo = 0;
    let hi = removed.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (removed[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return x + lo;
  };
  return { lf, toRaw };
}

const lineOf = (text: string, index: number): number => {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
};

function exactSpans(lf: string, needle: string): number[] {
  const starts: number[] = [];
  for (let i = lf.indexOf(needle); i >= 0; i = lf.indexOf(needle, i + needle.length)) starts.push(i);
  return starts;
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, 10).join(", ");
  return lines.length > 10 ? `${shown}, ...` : shown;
}

export function applyReplace(
  raw: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  path: string,
): ReplaceOutcome {
  const { lf, toRaw } = lfView(raw);
  const eol = detectEol(raw);
  const oldLf = oldString.replace(/\r\n/g, "\n");
  const newLf = newString.replace(/\r\n/g, "\n");
  const uniqueHint =
    "Include more surrounding lines in old_string to make it unique, or set replace_all=true.";

  let spans: Span[] = [];
  let tolerance: string | undefined;
  const exact = exactSpans(lf, oldLf);
  if (exact.length > 1 && !replaceAll) {
    const lines = exact.map((i) => lineOf(lf, i));
    return {
      ok: false,
      error: `old_string matches ${exact.length} times in ${path} (lines ${listLines(lines)}). ${uniqueHint}`,
    };
  }
  if (exact.length > 0) spans = exact.map((s) => ({ start: s, end: s + oldLf.length, replacement: newLf }));

  if (spans.length === 0) {
    const fileLines = lf.split("\n");
    const lineStarts: number[] = [];
    let pos = 0;
    for (const l of fileLines) {
      lineStarts.push(pos);
      pos += l.length + 1;
    }
    const trailingNl = oldLf.endsWith("\n");
    const needle = (trailingNl ? oldLf.slice(0, -1) : oldLf).split("\n");
    for (const level of TOLERANCES) {
      const starts = findLineMatches(fileLines, needle, level.norm);
      if (starts.length === 0) continue;
      if (starts.length > 1 && !replaceAll) {
        return {
          ok: false,
          error:
            `old_string has no exact match in ${path}, and ignoring ${level.name} it matches ` +
            `${starts.length} times (lines ${listLines(starts.map((s) => s + 1))}). ${uniqueHint}`,
        };
      }
      tolerance = level.name;
      spans = starts.map((s) => {
        const lastLine = s + needle.length - 1;
        let end = lineStarts[lastLine]! + fileLines[lastLine]!.length;
        if (trailingNl && lastLine + 1 < fileLines.length) end += 1;
        const window = fileLines.slice(s, s + needle.length);
        return { start: lineStarts[s]!, end, replacement: reindent(newLf, needle, window) };
      });
      break;
    }
    if (spans.length === 0) {
      const region = closestRegion(fileLines, needle);
      const hint =
        region && region.score > 0.3
          ? ` The most similar region (lines ${region.start + 1}-${region.end}) is:\n${showRegion(fileLines, region.start, region.end)}\n`
          : " ";
      return {
        ok: false,
        error:
          `old_string not found in ${path} (0 exact matches, 0 ignoring whitespace).${hint}` +
          "Re-read the file with read_file and copy old_string exactly.",
      };
    }
  }

  let out = "";
  let last = 0;
  for (const span of spans) {
    const rs = toRaw(span.start);
    const re = toRaw(span.end);
    out +=
      raw.slice(last, rs) + (eol === "\r\n" ? span.replacement.replace(/\n/g, "\r\n") : span.replacement);
    last = re;
  }
  out += raw.slice(last);
  return tolerance
    ? { ok: true, text: out, replacements: spans.length, tolerance }
    : { ok: true, text: out, replacements: spans.length };
}
