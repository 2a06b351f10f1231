/**
 * What a terminal does with text: display widths, where the cursor ends up, and colour that
 * follows NO_COLOR. Estimates, not an emulator: wide and zero-width characters by Unicode class.
 */

/** A stream that may be a terminal. */
export type MaybeTty = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

/** Colour and styles on a terminal, unless NO_COLOR is set to anything non-empty (no-color.org). */
export function colorEnabled(stream: MaybeTty, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

const STYLES = { error: "31", warning: "33", dim: "2" } as const;
export type Style = keyof typeof STYLES;

/** `text` in a style when `on`; unchanged otherwise. */
export const paint = (style: Style, text: string, on: boolean): string =>
  on ? `\x1b[${STYLES[style]}m${text}\x1b[0m` : text;

const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}]/u;
const WIDE =
  /[\p{Emoji_Presentation}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/** Columns one code point takes: 0, 1 or 2. */
export function charWidth(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (ZERO_WIDTH.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
}

/** Escape sequences take no columns: CSI, OSC (to BEL or ST) and two-byte escapes. */
const ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_]|$)/;

/** Splits text into escape sequences and single code points. */
function* tokens(text: string): Generator<string> {
  let i = 0;
  while (i < text.length) {
    if (text[i] === "\x1b") {
      const m = ESCAPE.exec(text.slice(i, i + 256));
      const len = m?.[0].length || 1;
      yield text.slice(i, i + len);
      i += len;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
    yield ch;
    i += ch.length;
  }
}

/** Display width of one line of text (escape sequences ignored). */
export function textWidth(text: string): number {
  let w = 0;
  for (const t of tokens(text)) if (t[0] !== "\x1b") w += charWidth(t);
  return w;
}

/** Cuts text to at most `max` columns, ending in "…" when cut. */
export function fitWidth(text: string, max: number): string {
  if (textWidth(text) <= max) return text;
  let out = "";
  let w = 0;
  for (const t of tokens(text)) {
    const cw = t[0] === "\x1b" ? 0 : charWidth(t);
    if (w + cw > max - 1) break;
    out += t;
    w += cw;
  }
  return `${out}…`;
}

/** Where the cursor is on its row: `col` (equal to the width when a wrap is pending), and whether the row has text. */
export interface CursorSpot {
  col: number;
  dirty: boolean;
}

/** The cursor after the terminal prints `text` from `from`, on a screen `cols` wide. */
export function advance(from: CursorSpot, text: string, cols: number): CursorSpot {
  let { col, dirty } = from;
  for (const t of tokens(text)) {
    if (t === "\n") {
      col = 0;
      dirty = false;
    } else if (t === "\r") col = 0;
    else if (t === "\t") col = Math.min(cols, (Math.floor(col / 8) + 1) * 8);
    else if (t === "\b") col = Math.max(0, col - 1);
    else if (t[0] !== "\x1b") {
      const w = charWidth(t);
      if (w === 0) continue;
      // A character that does not fit starts the next row.
      col = col + w > cols ? w : col + w;
      dirty = true;
    }
  }
  return { col, dirty };
}
