/**
 * Regular expressions that find old_string while forgiving what a careful reader forgives: the
 * amount of spacing inside a line, typographic twins of ASCII characters, escapes written
 * literally. Line structure is never forgiven: a newline only matches a newline, and indentation
 * at the start of a line must be the same. Each forgiving token that can teach something (which
 * quote the file uses, whether `\t` stood for a tab) is a capture group, so a match also reports
 * the form the file used there.
 */

export interface Tolerance {
  /** Runs of spaces/tabs inside a line match any such run; trailing ones may be absent. */
  spacing?: boolean;
  /** Typographic characters match their ASCII spellings and each other (see the table below). */
  typography?: boolean;
  /** `\n` `\t` `\r` `\"` `\'` `\\` written literally match the character or themselves. */
  escapes?: boolean;
}

/** A capture group of a pattern: one token of old_string whose file form is worth knowing. */
export interface Group {
  kind: "form" | "escape";
  /** The token as old_string wrote it: `"`, `--`, `…`, `\t`. */
  written: string;
  /** Tokens with the same key must map to one file form (a quote's key includes its side). */
  key: string;
  /** Keys that stand or fall together: the opening and closing side of one quote. */
  family: string;
}

export interface Pattern {
  source: string;
  groups: Group[];
  /** Whether anything in the pattern forgives: if not, it finds only what exact search finds. */
  tolerant: boolean;
}

/** One capture group of one match: the group, the text the file has there, its offset. */
export interface FoundForm {
  group: Group;
  found: string;
  at: number;
}

export interface Found {
  start: number;
  end: number;
  forms: FoundForm[];
}

// The table of typographic twins: what each ASCII spelling may appear as in a file.
const DOUBLE_QUOTES = '"\u201c\u201d\u201e\u201f\u2033';
const SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b\u2032";
const DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212";
/** The dashes that `--` stands for (en, em, horizontal bar). */
const LONG_DASHES = "\u2013\u2014\u2015";
const ELLIPSIS = "\u2026";
const FANCY_SPACES = "\u00a0\u2000-\u200a\u202f\u205f\u3000";
const ZERO_WIDTH = /[\u200b\u2060\ufeff]/;
const FANCY_SPACE = new RegExp(`[${FANCY_SPACES}]`);

const TYPOGRAPHIC = new RegExp(
  `[${DOUBLE_QUOTES.slice(1)}${SINGLE_QUOTES.slice(1)}${DASHES.slice(1)}${ELLIPSIS}${FANCY_SPACES}\u200b\u2060\ufeff]`,
);

/** Whether `text` has any character of the typographic table. */
export const hasTypography = (text: string): boolean => TYPOGRAPHIC.test(text);

const classOf = (chars: string): string => `[${chars.replace(/[-\]\\^]/g, "\\$&")}]`;
const DASH_CLASS = classOf(DASHES);
const DQ_CLASS = classOf(DOUBLE_QUOTES);
const SQ_CLASS = classOf(SINGLE_QUOTES);
const ELLIPSIS_SOURCE = "\\.\\.\\.|\u2026";
const LONG_DASH_SOURCE = `--|${classOf(LONG_DASHES)}`;

const reEscape = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** What a literal escape stands for. `\r` may also stand for nothing: files are compared as LF. */
const ESCAPED: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r?",
  '"': '"',
  "'": "'",
  "\\": "\\\\",
};

/**
 * Whether a quote at `i` opens (start of text, after whitespace, a bracket or a dash) or closes;
 * an apostrophe inside a word counts as closing, as typographers set it.
 */
export function quoteSide(text: string, i: number): "open" | "close" {
  const prev = text[i - 1];
  return prev === undefined || /[\s([{<\u2013\u2014]/.test(prev) ? "open" : "close";
}

/** A lone hyphen with a space on each side: the only hyphen a dash may stand in for. */
export const spacedHyphen = (text: string, i: number): boolean => text[i - 1] === " " && text[i + 1] === " ";

/** `--` or `...` not part of a longer run (`---` is a rule, `....` is not an ellipsis). */
const isolatedRun = (text: string, i: number, run: string): boolean =>
  text.startsWith(run, i) && text[i - 1] !== run[0] && text[i + run.length] !== run[0];

const isWord = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/**
 * `--` used as a dash: spaced (` -- `) or between two words (`value--fallback`). Not an option
 * (`--force`), a decrement (`i--`), an SQL comment at a line start or an HTML comment (`<!--`).
 */
export function dashAt(text: string, i: number): boolean {
  if (!isolatedRun(text, i, "--")) return false;
  const prev = text[i - 1];
  const next = text[i + 2];
  return (
    (prev === " " && (next === " " || next === "\n" || next === undefined)) || (isWord(prev) && isWord(next))
  );
}

/** `...` used as an ellipsis: not a spread or rest (`(...args`, `[...a]`, `, ...rest`). */
export function ellipsisAt(text: string, i: number): boolean {
  if (!isolatedRun(text, i, "...")) return false;
  const prev = text[i - 1];
  const next = text[i + 3];
  const opens = prev === undefined || /[\s([{,]/.test(prev);
  return !(opens && (isWord(next) || (next !== undefined && /[[{(_$]/.test(next))));
}

/**
 * The typographic token of old_string at `i`, if any: its source, the group that learns the
 * file's form of it (what new_string may be restyled by), and its length.
 */
function typographicToken(
  needle: string,
  i: number,
): { source: string; group?: Group; length: number } | undefined {
  const c = needle[i]!;
  const form = (source: string, written: string, key = written, family = key) => ({
    source,
    group: { kind: "form" as const, written, key, family },
    length: written.length,
  });
  if (ZERO_WIDTH.test(c)) return { source: "", length: 1 };
  if (ellipsisAt(needle, i)) return form(ELLIPSIS_SOURCE, "...");
  if (dashAt(needle, i)) return form(LONG_DASH_SOURCE, "--");
  if (c === ELLIPSIS) return form(ELLIPSIS_SOURCE, c);
  if (LONG_DASHES.includes(c)) return form(`--|${DASH_CLASS}`, c);
  if (c === "-" && spacedHyphen(needle, i)) return form(DASH_CLASS, c, "- spaced");
  if (DASHES.includes(c)) return { source: DASH_CLASS, length: 1 };
  if (DOUBLE_QUOTES.includes(c)) return form(DQ_CLASS, c, `${c} ${quoteSide(needle, i)}`, c);
  if (SINGLE_QUOTES.includes(c)) return form(SQ_CLASS, c, `${c} ${quoteSide(needle, i)}`, c);
  return undefined;
}

/** Capture groups a pattern may hold; beyond this, tokens still match but teach nothing. */
const MAX_GROUPS = 1000;

export function tolerantPattern(needle: string, t: Tolerance): Pattern {
  const parts: string[] = [];
  const groups: Group[] = [];
  let tolerant = false;
  const loose = (source: string): void => {
    parts.push(`(?:${source})`);
    tolerant = true;
  };
  const group = (source: string, g: Group): void => {
    if (groups.length >= MAX_GROUPS) {
      loose(source);
      return;
    }
    parts.push(`(${source})`);
    groups.push(g);
    tolerant = true;
  };
  const isSpace = (c: string): boolean =>
    c === " " || c === "\t" || (t.typography === true && FANCY_SPACE.test(c));
  const spaceClass = t.typography ? `[ \\t${FANCY_SPACES}]` : "[ \\t]";

  for (let i = 0; i < needle.length; ) {
    const c = needle[i]!;
    if (t.escapes && c === "\\" && ESCAPED[needle[i + 1] ?? ""] !== undefined) {
      const e = needle[i + 1]!;
      group(`${reEscape(`\\${e}`)}|${ESCAPED[e]}`, { kind: "escape", written: `\\${e}`, key: e, family: e });
      i += 2;
      continue;
    }
    if (t.spacing && isSpace(c)) {
      let j = i;
      while (j < needle.length && isSpace(needle[j]!)) j++;
      const lineStart = i === 0 || needle[i - 1] === "\n";
      if (needle[j] === "\n") loose(`${spaceClass}*`);
      else if (lineStart) parts.push(reEscape(needle.slice(i, j)));
      else loose(`${spaceClass}+`);
      i = j;
      continue;
    }
    if (t.spacing && c === "\n") {
      // A run just before already allows trailing spaces; two in a row would backtrack badly.
      loose(i > 0 && isSpace(needle[i - 1]!) ? "\\n" : "[ \\t]*\\n");
      i++;
      continue;
    }
    const typo = t.typography ? typographicToken(needle, i) : undefined;
    if (typo !== undefined) {
      if (typo.group !== undefined) group(typo.source, typo.group);
      else if (typo.source !== "") loose(typo.source);
      i += typo.length;
      continue;
    }
    parts.push(reEscape(c));
    i++;
  }
  return { source: parts.join(""), groups, tolerant };
}

/**
 * A search for `pattern`: every non-overlapping match in a text, left to right; or, `anchored`,
 * the match of a whole line (indentation and trailing whitespace aside) if there is one.
 */
export function compile(pattern: Pattern, anchored = false): (text: string) => Found[] {
  const re = new RegExp(anchored ? `^[ \\t]*(?:${pattern.source})[ \\t]*$` : pattern.source, "gd");
  return (text) => {
    const out: Found[] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (m[0].length === 0 && !anchored) {
        re.lastIndex++;
        continue;
      }
      const indices = m.indices!;
      out.push({
        start: m.index,
        end: m.index + m[0].length,
        forms: pattern.groups.map((group, k) => ({
          group,
          found: m[k + 1] ?? "",
          at: indices[k + 1]?.[0] ?? -1,
        })),
      });
      if (anchored) break;
    }
    return out;
  };
}

/**
 * `text` without zero-width characters (which a reader cannot see, so old_string cannot hold
 * them), with a map from offsets in the result back to offsets in `text`.
 */
export function withoutZeroWidth(text: string): { text: string; back: (i: number) => number } {
  if (!ZERO_WIDTH.test(text)) return { text, back: (i) => i };
  const kept: number[] = [];
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (ZERO_WIDTH.test(c)) continue;
    kept.push(i);
    out += c;
  }
  kept.push(text.length);
  return { text: out, back: (i) => kept[i]! };
}
