import { findLineMatches, reindent } from "./fuzzy.js";

/**
 * How `patch` finds old_string when it is not in the file exactly. Strategies run in order on the
 * file's LF text; the first that finds anything decides (exactly one match, or every match with
 * replace_all). Each returns spans in LF offsets with the replacement for each.
 */

export type StrategyName =
  | "exact"
  | "line_endings"
  | "trailing_whitespace"
  | "indentation"
  | "unicode"
  | "escapes"
  | "blank_lines";

/** How a strategy reads in a note: "matched ignoring <this>". */
export const STRATEGY_LABELS: Readonly<Record<StrategyName, string>> = {
  exact: "nothing",
  line_endings: "line endings (CRLF/LF)",
  trailing_whitespace: "trailing whitespace",
  indentation: "indentation",
  unicode: "typographic characters (curly quotes, dashes, ellipses, non-breaking spaces)",
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

function byLines(input: MatchInput, norm: (l: string) => string, reindentReplacement: boolean): Span[] {
  const view = lineView(input.lf);
  const { lines, trailingNl } = needleLines(input.oldLf);
  const starts = findLineMatches(view.lines, lines, norm);
  return lineSpans(
    view,
    starts,
    () => lines.length,
    trailingNl,
    (s) =>
      reindentReplacement ? reindent(input.newLf, lines, view.lines.slice(s, s + lines.length)) : input.newLf,
  );
}

const TYPOGRAPHIC: Readonly<Record<string, string>> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u2032": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u201f": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2026": "...",
  "\u00a0": " ",
  "\u2007": " ",
  "\u202f": " ",
  "\u200b": "",
  "\ufeff": "",
};

/** Typographic characters replaced by ASCII, with a map from each normalised offset back. */
function asciiFold(text: string): { folded: string; back: number[] } {
  let folded = "";
  const back: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const r = TYPOGRAPHIC[c] ?? c;
    for (let k = 0; k < r.length; k++) back.push(i);
    folded += r;
  }
  back.push(text.length);
  return { folded, back };
}

const fold = (s: string): string => asciiFold(s).folded;

/** Replacement lines that differ from a matched line only typographically keep the file's line. */
function keepTypography(replacement: string, original: string): string {
  const originals = new Map<string, string>();
  for (const l of original.split("\n")) originals.set(fold(l), l);
  return replacement
    .split("\n")
    .map((l) => originals.get(l) ?? originals.get(fold(l)) ?? l)
    .join("\n");
}

function unicodeSpans(input: MatchInput): Span[] {
  if (fold(input.oldLf) === input.oldLf && fold(input.lf) === input.lf) return [];
  const file = asciiFold(input.lf);
  const needle = fold(input.oldLf);
  const spans = exactSpans(file.folded, needle, input.newLf).map((s) => {
    const start = file.back[s.start]!;
    const end = file.back[s.end]!;
    return { start, end, replacement: keepTypography(input.newLf, input.lf.slice(start, end)) };
  });
  if (spans.length > 0) return spans;
  // Typography and indentation together (a paragraph re-indented with smart quotes).
  return byLines(input, (l) => fold(l).trim(), true).map((s) => ({
    ...s,
    replacement: keepTypography(s.replacement, input.lf.slice(s.start, s.end)),
  }));
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "", '"': '"', "'": "'", "\\": "\\" };
const unescapeLiteral = (s: string): string =>
  s.replace(/\\([ntr"'\\])/g, (_m, c: string) => ESCAPES[c] ?? c);

function escapeSpans(input: MatchInput): Span[] {
  if (!/\\[ntr"'\\]/.test(input.oldLf)) return [];
  const needle = unescapeLiteral(input.oldLf);
  if (needle === input.oldLf) return [];
  // The model escaped both strings the same way: undo it on the replacement too.
  return exactSpans(input.lf, needle, unescapeLiteral(input.newLf));
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

interface Strategy {
  name: StrategyName;
  find: (input: MatchInput) => Span[];
}

/** In order: each is tried only when every earlier one found nothing. */
export const STRATEGIES: readonly Strategy[] = [
  { name: "exact", find: (i) => (i.rawExact ? exactSpans(i.lf, i.oldLf, i.newLf) : []) },
  { name: "line_endings", find: (i) => exactSpans(i.lf, i.oldLf, i.newLf) },
  { name: "trailing_whitespace", find: (i) => byLines(i, (l) => l.trimEnd(), false) },
  { name: "indentation", find: (i) => byLines(i, (l) => l.trim(), true) },
  { name: "unicode", find: unicodeSpans },
  { name: "escapes", find: escapeSpans },
  { name: "blank_lines", find: blankLineSpans },
];
