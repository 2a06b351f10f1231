import { detectEol } from "./common.js";
import { closestRegion, showRegion } from "./fuzzy.js";
import { type Span, STRATEGIES, STRATEGY_LABELS, type StrategyName } from "./strategies.js";

/**
 * The string-replacement edit: the strategies of `strategies.ts` in order (exact first, then line
 * endings, trailing whitespace, indentation, spacing inside lines, typography, escaping, blank
 * lines), each accepted only when it is unambiguous. Matching happens on LF-normalised text; edits
 * are spliced into the original bytes, so the rest of the file (line endings included) is left
 * exactly as it was.
 */

export type ReplaceOutcome =
  | { ok: true; text: string; replacements: number; strategy: StrategyName }
  | { ok: false; error: string };

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
  const input = {
    lf,
    oldLf: oldString.replace(/\r\n/g, "\n"),
    newLf: newString.replace(/\r\n/g, "\n"),
    rawExact: raw.includes(oldString),
  };
  const uniqueHint =
    "Include more surrounding lines in old_string to make it unique, or set replace_all=true.";

  let spans: Span[] = [];
  let strategy: StrategyName = "exact";
  for (const s of STRATEGIES) {
    const found = s.find(input);
    if (found.length === 0) continue;
    if (found.length > 1 && !replaceAll) {
      const lines = listLines(found.map((f) => lineOf(lf, f.start)));
      const how =
        s.name === "exact" || s.name === "line_endings" ? "" : ` ignoring ${STRATEGY_LABELS[s.name]}`;
      return {
        ok: false,
        error: `old_string matches ${found.length} times${how} in ${path} (lines ${lines}). ${uniqueHint}`,
      };
    }
    spans = found;
    strategy = s.name;
    break;
  }

  if (spans.length === 0) {
    const fileLines = lf.split("\n");
    const needle = input.oldLf.replace(/\n$/, "").split("\n");
    const region = closestRegion(fileLines, needle);
    const hint =
      region && region.score > 0.3
        ? ` The most similar region (lines ${region.start + 1}-${region.end}) is:\n${showRegion(fileLines, region.start, region.end)}\n`
        : " ";
    return {
      ok: false,
      error:
        `old_string not found in ${path} (0 exact matches, none ignoring whitespace, indentation, ` +
        `typography, escaping or blank lines).${hint}Re-read the file with read_file and copy old_string exactly.`,
    };
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
  return { ok: true, text: out, replacements: spans.length, strategy };
}
