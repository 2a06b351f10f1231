import type { FoundForm } from "./tolerant-pattern.js";

/**
 * Escapes typed literally in new_string (backslash + `t`, `n`, `"`...) are undone only as far as
 * the evidence goes, because the same two characters are also real code: `"a\tb"` in a source
 * file must stay a backslash and a `t`.
 *
 * - An escape kind is undone everywhere only when every one of its occurrences in old_string met
 *   the real character in the file (the model escaped that kind throughout).
 * - `\t` is undone only in indentation (a run of tabs and `\t` at the start of a line) when
 *   old_string's `\t` met real tabs there (or met tabs and literal `\t` both), and everywhere
 *   only when every `\t` met a tab and some inside a line (tab-separated data).
 * - Without any `\t` in old_string, new_string's indentation `\t` becomes a tab only in a file
 *   indented with tabs, and only if no line of the matched region starts with a literal `\t`.
 */

export interface EscapeUndo {
  /** Escape letters undone wherever they appear: of n, r, ", ', \. */
  everywhere: ReadonlySet<string>;
  tabs: "everywhere" | "indentation" | "never";
}

const UNDONE: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "",
  '"': '"',
  "'": "'",
  "\\": "\\",
};

const NOTHING: EscapeUndo = { everywhere: new Set(), tabs: "never" };

export const atLineStart = (lf: string, i: number): boolean => i === 0 || lf[i - 1] === "\n";

/** Whether only spaces and tabs precede offset `i` on its line. */
const inIndentation = (lf: string, i: number): boolean =>
  /^[ \t]*$/.test(lf.slice(lf.lastIndexOf("\n", i - 1) + 1, i));

/** Whether more lines of the file start with a tab than with spaces (and some do). */
export function fileUsesTabs(lf: string): boolean {
  const tabs = lf.match(/^\t/gm)?.length ?? 0;
  const spaces = lf.match(/^ +\S/gm)?.length ?? 0;
  return tabs > 0 && tabs >= spaces;
}

/** Whether a line of the region [start, end) starts with a literal `\t` (backslash, t). */
export const literalTabLine = (lf: string, start: number, end: number): boolean =>
  /^[ \t]*\\t/m.test(lf.slice(lf.lastIndexOf("\n", start - 1) + 1, end));

/** What a match of old_string (escape groups included) proves about the model's escaping. */
export function provenEscapes(forms: readonly FoundForm[], lf: string, tabsByDefault: boolean): EscapeUndo {
  const real = new Map<string, number>();
  const literal = new Map<string, number>();
  let tabsInside = false;
  for (const { group, found, at } of forms) {
    if (group.kind !== "escape") continue;
    const tally = found === group.written ? literal : real;
    tally.set(group.key, (tally.get(group.key) ?? 0) + 1);
    if (group.key === "t" && found !== group.written && !inIndentation(lf, at)) tabsInside = true;
  }
  const proven = (k: string): boolean => (real.get(k) ?? 0) > 0 && !literal.has(k);
  const everywhere = new Set(["n", "r", '"', "'", "\\"].filter(proven));
  let tabs: EscapeUndo["tabs"];
  if (proven("t") && tabsInside) tabs = "everywhere";
  else if (real.has("t")) tabs = "indentation";
  else if (literal.has("t")) tabs = "never";
  else tabs = tabsByDefault ? "indentation" : "never";
  return { everywhere, tabs };
}

/**
 * `text` with the escapes `how` allows undone. `lineStart` says whether `text` begins at the start
 * of a line of the file (so a leading `\t` is indentation).
 */
export function undoEscapes(text: string, how: EscapeUndo, lineStart: boolean): string {
  if (!text.includes("\\") || (how.everywhere.size === 0 && how.tabs === "never")) return text;
  let out = "";
  let indent = lineStart;
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    const e = c === "\\" ? text[i + 1] : undefined;
    if (e !== undefined && UNDONE[e] !== undefined) {
      const undo =
        e === "t"
          ? how.tabs === "everywhere" || (how.tabs === "indentation" && indent)
          : how.everywhere.has(e);
      out += undo ? UNDONE[e] : `\\${e}`;
      if (undo && e === "n") indent = true;
      else if (!undo || e !== "t") indent = indent && undo && e === "r";
      i += 2;
      continue;
    }
    out += c;
    indent = c === "\n" || (indent && (c === "\t" || c === " "));
    i++;
  }
  return out;
}

/** `text` with literal `\t` in its indentation made tabs, nothing else changed. */
export const indentationTabs = (text: string, lineStart: boolean): string =>
  undoEscapes(text, { ...NOTHING, tabs: "indentation" }, lineStart);
