import {
  dashAt,
  ellipsisAt,
  type FoundForm,
  quoteSide,
  spacedHyphen,
  type Tolerance,
  tolerantPattern,
} from "./tolerant-pattern.js";

/**
 * After a tolerant match, new_string is written in the file's own style rather than the model's:
 *
 * 1. A line of new_string that repeats a line of old_string (in order) is written as the file
 *    has that line, so untouched lines stay byte-identical (their curly quotes, spacing, tabs).
 *    A changed line keeps the file's text for the start and end it shares with the line of
 *    old_string it resembles most (`x  =  1` changed to `x = 5` is written `x  =  5`).
 * 2. The rest of a changed line gets a character mapping learned from the match, one key at a time: when every
 *    occurrence of a key in old_string met the same different form in the file (each `"` that
 *    opens met `“`, each `--` met `—`), new_string's occurrences of that key take that form.
 *    Quotes keep their side: an opening `"` becomes the file's opening quote and a closing one
 *    its closing quote (the partner of the other side when only one side was seen). A key whose
 *    file forms disagree, or that the file also spells as written, is left alone, and so is its
 *    family (both sides of a quote): a file that mixes styles gives no rule. A plain hyphen only
 *    follows the rule when spaced (` - ` for ` — `), never inside a word; `--` and `...` only where
 *    they read as a dash or an ellipsis (not `--force`, `<!--`, `---` or a `...rest` spread).
 */

/** Closing quote for an opening one and back, for a side that old_string never showed. */
const PARTNER: Readonly<Record<string, string>> = {
  "\u201c": "\u201d",
  "\u201d": "\u201c",
  "\u2018": "\u2019",
  "\u2019": "\u2018",
  "\u201e": "\u201c",
  "\u201a": "\u2018",
};

/** Key → file form, for the keys whose every occurrence agreed on a form other than the written one. */
export function learnForms(forms: readonly FoundForm[]): Map<string, string> {
  const learned = new Map<string, string>();
  const familyOf = new Map<string, string>();
  const spoiled = new Set<string>();
  for (const { group, found } of forms) {
    if (group.kind !== "form") continue;
    familyOf.set(group.key, group.family);
    const seen = learned.get(group.key);
    if (found === group.written || (seen !== undefined && seen !== found)) spoiled.add(group.family);
    else learned.set(group.key, found);
  }
  for (const key of [...learned.keys()]) if (spoiled.has(familyOf.get(key)!)) learned.delete(key);
  return learned;
}

const QUOTES = /["'\u201c\u201d\u201e\u201f\u2033\u2018\u2019\u201a\u201b\u2032]/;

/** `line[from, to)` with each character that has a learned form written in that form. */
export function restyle(
  line: string,
  learned: ReadonlyMap<string, string>,
  from = 0,
  to = line.length,
): string {
  if (learned.size === 0) return line.slice(from, to);
  let out = "";
  for (let i = from; i < to; ) {
    const c = line[i]!;
    const run = ellipsisAt(line, i) ? "..." : dashAt(line, i) ? "--" : undefined;
    if (run !== undefined) {
      out += learned.get(run) ?? run;
      i += run.length;
      continue;
    }
    let form: string | undefined;
    if (QUOTES.test(c)) {
      const side = quoteSide(line, i);
      const other = learned.get(`${c} ${side === "open" ? "close" : "open"}`);
      form = learned.get(`${c} ${side}`) ?? (other === undefined ? undefined : (PARTNER[other] ?? other));
    } else if (c === "-") form = spacedHyphen(line, i) ? learned.get("- spaced") : undefined;
    else form = learned.get(c);
    out += form ?? c;
    i++;
  }
  return out;
}

/** Characters that form one token with a neighbour of the same class: a cut never falls between them. */
const classOf = (c: string | undefined): string | undefined =>
  c === " " || c === "\t" ? " " : c === "-" || c === "." || c === "\\" ? c : undefined;
const splits = (text: string, i: number): boolean =>
  i > 0 && i < text.length && classOf(text[i - 1]) !== undefined && classOf(text[i - 1]) === classOf(text[i]);

/** Length of the common prefix of `a` and `b`, shortened so that it splits no token of either. */
function sharedPrefix(a: string, b: string): number {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  while (p > 0 && (splits(a, p) || splits(b, p))) p--;
  return p;
}

const reverse = (s: string): string => [...s].reverse().join("");

/** Bounds on the work of matching changed lines to old_string's lines. */
const MAX_PAIRS = 40_000;

const source = (text: string, tolerance: Tolerance): string => tolerantPattern(text, tolerance).source;
const fileText = (pattern: string, f: string): string | undefined => new RegExp(pattern).exec(f)?.[0];

/** A changed line with the file's text for the start and end it shares with old_string (rule 1). */
function keepEnds(
  line: string,
  needleLines: readonly string[],
  fileLines: readonly string[],
  tolerance: Tolerance,
  learned: ReadonlyMap<string, string>,
): string {
  let best = { score: 0, j: -1, p: 0, s: 0 };
  needleLines.forEach((n, j) => {
    const p = sharedPrefix(line, n);
    const s = sharedPrefix(reverse(line.slice(p)), reverse(n.slice(p)));
    if (p + s > best.score) best = { score: p + s, j, p, s };
  });
  const n = needleLines[best.j];
  const f = fileLines[best.j];
  if (n === undefined || f === undefined) return restyle(line, learned);
  const head = best.p === 0 ? "" : fileText(`^(?:${source(n.slice(0, best.p), tolerance)})`, f);
  const tail =
    best.s === 0 ? "" : fileText(`(?:${source(n.slice(n.length - best.s), tolerance)})[ \\t]*$`, f);
  if (head === undefined || tail === undefined || head.length + tail.length > f.length)
    return restyle(line, learned);
  return head + restyle(line, learned, best.p, line.length - best.s) + tail;
}

/** Where the replacement comes from: old_string's lines as compared, and the file's text for each. */
export interface MatchedLines {
  /** old_string's line j, as the replacement is compared with it (re-indented like it, if so). */
  needleLines: readonly string[];
  /** The file's text for line j (the matched part only, for a first or last line matched partly). */
  fileLines: readonly string[];
  /** Capture groups of the match, to learn the file's typography from. */
  forms?: readonly FoundForm[];
  /** What the match forgave, to find the file's text for the unchanged ends of a changed line. */
  tolerance?: Tolerance;
}

/** `replacement` in the file's style (see the header). */
export function keepFileStyle(replacement: string, m: MatchedLines): string {
  const learned = learnForms(m.forms ?? []);
  const aligned = m.needleLines.length === m.fileLines.length;
  const lines = replacement.split("\n");
  const ends = aligned && m.tolerance !== undefined && lines.length * m.needleLines.length <= MAX_PAIRS;
  let next = 0;
  return lines
    .map((line, i) => {
      // What follows a final newline is not a line: it must stay empty.
      if (i === lines.length - 1 && i > 0 && line === "") return line;
      if (!aligned) return restyle(line, learned);
      const j = m.needleLines.indexOf(line, next);
      if (j >= 0) {
        next = j + 1;
        return m.fileLines[j]!;
      }
      return ends
        ? keepEnds(line, m.needleLines, m.fileLines, m.tolerance!, learned)
        : restyle(line, learned);
    })
    .join("\n");
}
