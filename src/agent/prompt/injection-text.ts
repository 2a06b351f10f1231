/**
 * Text preparation for the prompt-injection scan: the hidden-character check on the raw text, and the
 * normalised copy the patterns run against (invisible characters dropped, NFKC-folded, markdown
 * emphasis removed, hard-wrapped paragraphs joined so every newline left is a real clause boundary).
 */

/** Zero-width characters, bidi marks/embeddings/overrides/isolates, invisible operators, BOM, tags. */
const HIDDEN =
  /[\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]|[\u{e0000}-\u{e007f}]/gu;

/** A subdivision flag (🏴 + tag letters + cancel tag) is the one legitimate use of tag characters. */
const TAG_FLAG = /\u{1f3f4}[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{2,7}\u{e007f}/gu;
const NON_ASCII_LETTER = /^[\p{L}\p{M}]$/u;
const EMOJI_LEFT = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f|\u20e3)$/u;
const EMOJI_RIGHT = /^\p{Extended_Pictographic}$/u;
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

const charBefore = (s: string, i: number): string => {
  if (i <= 0) return "";
  const low = s.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? s.slice(i - 2, i) : s.slice(i - 1, i);
};
const charAt = (s: string, i: number): string => {
  const cp = s.codePointAt(i);
  return cp === undefined ? "" : String.fromCodePoint(cp);
};
const isForeignLetter = (ch: string): boolean => ch > "\u007f" && NON_ASCII_LETTER.test(ch);

function lineAround(s: string, i: number): string {
  const start = s.lastIndexOf("\n", i) + 1;
  const end = s.indexOf("\n", i);
  return s.slice(start, end === -1 ? s.length : end);
}

/**
 * Whether an invisible character sits where writing systems need it: ZWNJ/ZWJ inside Persian, Indic
 * and similar words, ZWJ inside emoji sequences, LRM/RLM on a line of right-to-left text, a leading BOM.
 */
function isLegitimate(s: string, ch: string, i: number): boolean {
  if (ch === "\ufeff") return i === 0;
  const before = charBefore(s, i);
  const after = charAt(s, i + ch.length);
  if (ch === "\u200c" || ch === "\u200d") {
    if (isForeignLetter(before) && isForeignLetter(after)) return true;
    return ch === "\u200d" && EMOJI_LEFT.test(before) && EMOJI_RIGHT.test(after);
  }
  if (ch === "\u200e" || ch === "\u200f") return RTL_LETTER.test(lineAround(s, i));
  return false;
}

/** True when the text carries characters that hide or reorder what a reader sees. */
export function hasHiddenCharacters(text: string): boolean {
  const s = text.replace(TAG_FLAG, "\u{1f3f4}");
  for (const m of s.matchAll(HIDDEN)) if (!isLegitimate(s, m[0], m.index)) return true;
  return false;
}

/** Lines that open a block of their own: list items, headings, quotes, tables, fences, HTML. */
const BLOCK_START = /^\s{0,3}(?:[-+*•]\s|\d{1,3}[.)]\s|#|>|\||```|~~~|<)/;
/** A line after which the next one starts a new clause even in running prose. */
const CLAUSE_END = /(?:[.!?:;]["')\]]*|\||<\/?\w[^>]*>|-->)\s*$|^\s{0,3}#|^\s*$| {2}$/;
const FENCE = /^\s{0,3}(?:```|~~~)/;

/** Joins hard-wrapped prose lines so a wrapped sentence is not mistaken for one starting a line. */
function unwrap(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [lines[0] ?? ""];
  let inFence = FENCE.test(lines[0] ?? "");
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const prev = lines[i - 1] as string;
    const fence = FENCE.test(line);
    const join =
      !inFence && !fence && line.trim() !== "" && !BLOCK_START.test(line) && !CLAUSE_END.test(prev);
    out.push(join ? " " : "\n", line);
    if (fence) inFence = !inFence;
  }
  return out.join("");
}

/**
 * The copy the patterns read: hidden characters and soft hyphens removed, NFKC-folded so fullwidth and
 * compatibility forms match ASCII, typographic quotes straightened, shell line continuations and
 * paragraphs unwrapped, and markdown
 * emphasis (`*`, `` ` ``, `~~`, `_word_`) dropped so it cannot split a phrase.
 */
export function normaliseForScan(text: string): string {
  const folded = text
    .replace(HIDDEN, "")
    .replace(/\u00ad/g, "")
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\r\n?/g, "\n")
    .replace(/\\\n[ \t]*/g, " ");
  return unwrap(folded)
    .replace(/\*+|`+|~~/g, "")
    .replace(/(?<![\w$])_+(?=\w)|(?<=\w)_+(?!\w)/g, "");
}

/** The bodies of HTML comments, where text hides from anyone reading the rendered markdown. */
export function htmlCommentBodies(text: string): string[] {
  const bodies: string[] = [];
  // indexOf, not a lazy regex: a file of unclosed "<!--" would make a regex rescan the tail each time.
  for (let open = text.indexOf("<!--"); open !== -1; ) {
    const close = text.indexOf("-->", open + 4);
    if (close === -1) break;
    bodies.push(text.slice(open + 4, close));
    open = text.indexOf("<!--", close + 3);
  }
  return bodies;
}
