import {
  atLineStart,
  fileUsesTabs,
  indentationTabs,
  literalTabLine,
  provenEscapes,
  undoEscapes,
} from "./escape-undo.js";
import { keepFileStyle, type MatchedLines } from "./file-style.js";
import { findLineMatches, findLineWindows, reindent } from "./fuzzy.js";
import {
  compile,
  hasTypography,
  type Tolerance,
  tolerantPattern,
  withoutZeroWidth,
} from "./tolerant-pattern.js";

/**
 * How `patch` finds old_string when it is not in the file exactly. Strategies run in order on the
 * file's LF text, from the strictest to the most forgiving; the first that finds anything decides
 * (exactly one match, or every match with replace_all). Each returns spans in LF offsets with the
 * replacement for each, written in the file's style where the match shows it (`file-style.ts`).
 */

export type StrategyName =
  | "exact"
  | "line_endings"
  | "trailing_whitespace"
  | "indentation"
  | "spacing"
  | "unicode"
  | "escapes"
  | "blank_lines";

/** How a strategy reads in a note: "matched ignoring <this>". */
export const STRATEGY_LABELS: Readonly<Record<StrategyName, string>> = {
  exact: "nothing",
  line_endings: "line endings (CRLF/LF)",
  trailing_whitespace: "trailing whitespace",
  indentation: "indentation",
  spacing: "spacing inside lines",
  unicode: "typographic characters (curly quotes, dashes, ellipses, non-breaking spaces) and spacing",
  escapes: 'escaping (\\n, \\t, \\" written literally)',
  blank_lines: "blank lines",
};

export interface Span {
  start: number;
  end: number;
  replacement: string;
}

export interface MatchInput {
  /** The file with CRLF turned into LF. */
  lf: string;
  /** old_string / new_string with CRLF turned into LF. */
  oldLf: string;
  newLf: string;
  /** The raw file contains the raw old_string byte for byte. */
  rawExact: boolean;
}

interface LineView {
  lines: string[];
  starts: number[];
}

function lineView(lf: string): LineView {
  const lines = lf.split("\n");
  const starts: number[] = [];
  let pos = 0;
  for (const l of lines) {
    starts.push(pos);
    pos += l.length + 1;
  }
  return { lines, starts };
}

function exactSpans(lf: string, needle: string, replacement: string): Span[] {
  const spans: Span[] = [];
  if (needle === "") return spans;
  for (let i = lf.indexOf(needle); i >= 0; i = lf.indexOf(needle, i + needle.length))
    spans.push({ start: i, end: i + needle.length, replacement });
  return spans;
}

/** Spans for whole-line windows starting at `starts`, `count` lines long. */
function lineSpans(
  view: LineView,
  starts: readonly number[],
  count: (start: number) => number,
  trailingNl: boolean,
  replacement: (start: number, n: number) => string,
): Span[] {
  return starts.map((s) => {
    const n = count(s);
    const last = s + n - 1;
    let end = view.starts[last]! + view.lines[last]!.length;
    if (trailingNl && last + 1 < view.lines.length) end += 1;
    return { start: view.starts[s]!, end, replacement: replacement(s, n) };
  });
}

const needleLines = (oldLf: string): { lines: string[]; trailingNl: boolean } => {
  const trailingNl = oldLf.endsWith("\n");
  return { lines: (trailingNl ? oldLf.slice(0, -1) : oldLf).split("\n"), trailingNl };
};

/**
 * Spans for old_string found as whole lines starting at `starts`, the replacement re-indented if
 * `shiftIndent`, then written in the file's style with what `style` adds about the match.
 */
function wholeLineSpans(
  input: MatchInput,
  view: LineView,
  starts: readonly number[],
  shiftIndent: boolean,
  style: (start: number) => Pick<MatchedLines, "forms" | "tolerance"> = () => ({}),
): Span[] {
  const { lines, trailingNl } = needleLines(input.oldLf);
  return lineSpans(
    view,
    starts,
    () => lines.length,
    trailingNl,
    (s) => {
      const fileLines = view.lines.slice(s, s + lines.length);
      const shift = (text: string): string => (shiftIndent ? reindent(text, lines, fileLines) : text);
      const needle = shiftIndent ? shift(lines.join("\n")).split("\n") : lines;
      return keepFileStyle(shift(input.newLf), { needleLines: needle, fileLines, ...style(s) });
    },
  );
}

function byLines(input: MatchInput, norm: (l: string) => string, reindentReplacement: boolean): Span[] {
  const view = lineView(input.lf);
  const starts = findLineMatches(view.lines, needleLines(input.oldLf).lines, norm);
  return wholeLineSpans(input, view, starts, reindentReplacement);
}

/**
 * old_string found with `t` forgiven, as a substring of the file; failing that (spacing only),
 * as whole lines whose indentation may differ too, the replacement then re-indented.
 */
function tolerantSpans(input: MatchInput, t: Tolerance): Span[] {
  const pattern = tolerantPattern(input.oldLf, t);
  const seen = t.typography ? withoutZeroWidth(input.lf) : { text: input.lf, back: (i: number) => i };
  if (pattern.tolerant || seen.text !== input.lf) {
    const found = compile(pattern)(seen.text).map((f) => {
      const start = seen.back(f.start);
      const end = seen.back(f.end);
      const fileLines = input.lf.slice(start, end).split("\n");
      const needleLines = input.oldLf.split("\n");
      return {
        start,
        end,
        replacement: keepFileStyle(input.newLf, { needleLines, fileLines, forms: f.forms, tolerance: t }),
      };
    });
    if (found.length > 0 || !t.spacing) return found;
  }
  if (!t.spacing) return [];
  const view = lineView(input.lf);
  const { lines } = needleLines(input.oldLf);
  const patterns = lines.map((l) => tolerantPattern(l.replace(/^[ \t]+|[ \t]+$/g, ""), t));
  if (patterns.every((p) => p.source === "")) return [];
  const searches = patterns.map((p) => compile(p, true));
  const lineMatch = (i: number, k: number) => searches[k]!(view.lines[i]!)[0];
  const starts = findLineWindows(view.lines.length, lines.length, (i, k) => lineMatch(i, k) !== undefined);
  return wholeLineSpans(input, view, starts, true, (s) => ({
    forms: lines.flatMap((_, k) => lineMatch(s + k, k)!.forms),
    tolerance: t,
  }));
}

function unicodeSpans(input: MatchInput): Span[] {
  if (!hasTypography(input.oldLf) && !hasTypography(input.lf)) return [];
  return tolerantSpans(input, { spacing: true, typography: true });
}

/** Literal escapes in old_string matched as the characters they stand for (or as themselves). */
function escapeSpans(input: MatchInput): Span[] {
  if (!/\\[ntr"'\\]/.test(input.oldLf)) return [];
  const found = compile(tolerantPattern(input.oldLf, { escapes: true }))(input.lf);
  const fileTabs = found.length > 0 && fileUsesTabs(input.lf);
  return found.map(({ start, end, forms }) => {
    const how = provenEscapes(forms, input.lf, fileTabs && !literalTabLine(input.lf, start, end));
    const lineStart = atLineStart(input.lf, start);
    const needleLines = undoEscapes(input.oldLf, how, lineStart).split("\n");
    const fileLines = input.lf.slice(start, end).split("\n");
    const replacement = undoEscapes(input.newLf, how, lineStart);
    return { start, end, replacement: keepFileStyle(replacement, { needleLines, fileLines }) };
  });
}

function blankLineSpans(input: MatchInput): Span[] {
  const view = lineView(input.lf);
  const { lines, trailingNl } = needleLines(input.oldLf);
  const want = lines.map((l) => l.trimEnd()).filter((l) => l !== "");
  // Also useful when old_string has no blank line at all: the file may have ones the model left out.
  if (want.length === 0) return [];
  const nonBlank: number[] = [];
  view.lines.forEach((l, i) => {
    if (l.trim() !== "") nonBlank.push(i);
  });
  const have = nonBlank.map((i) => view.lines[i]!.trimEnd());
  const hits = findLineMatches(have, want, (l) => l);
  const firstLines = hits.map((k) => nonBlank[k]!);
  const spanLength = new Map(
    hits.map((k) => [nonBlank[k]!, nonBlank[k + want.length - 1]! - nonBlank[k]! + 1]),
  );
  return lineSpans(
    view,
    firstLines,
    (s) => spanLength.get(s)!,
    trailingNl,
    () => input.newLf,
  );
}

/**
 * new_string indented with literal `\t` in a tab-indented file gets real tabs there (see
 * `escape-undo.ts`); the escapes strategy decides this itself, from what its match proved.
 */
function withIndentationTabs(find: (input: MatchInput) => Span[]): (input: MatchInput) => Span[] {
  return (input) => {
    const spans = find(input);
    if (spans.length === 0 || !input.newLf.includes("\\t") || !fileUsesTabs(input.lf)) return spans;
    return spans.map((s) =>
      literalTabLine(input.lf, s.start, s.end)
        ? s
        : { ...s, replacement: indentationTabs(s.replacement, atLineStart(input.lf, s.start)) },
    );
  };
}

interface Strategy {
  name: StrategyName;
  find: (input: MatchInput) => Span[];
}

const ORDER: readonly Strategy[] = [
  { name: "exact", find: (i) => (i.rawExact ? exactSpans(i.lf, i.oldLf, i.newLf) : []) },
  { name: "line_endings", find: (i) => exactSpans(i.lf, i.oldLf, i.newLf) },
  { name: "trailing_whitespace", find: (i) => byLines(i, (l) => l.trimEnd(), false) },
  { name: "indentation", find: (i) => byLines(i, (l) => l.trim(), true) },
  { name: "spacing", find: (i) => tolerantSpans(i, { spacing: true }) },
  { name: "unicode", find: unicodeSpans },
  { name: "escapes", find: escapeSpans },
  { name: "blank_lines", find: blankLineSpans },
];

/** In order: each is tried only when every earlier one found nothing. */
export const STRATEGIES: readonly Strategy[] = ORDER.map((s) =>
  s.name === "escapes" ? s : { ...s, find: withIndentationTabs(s.find) },
);
