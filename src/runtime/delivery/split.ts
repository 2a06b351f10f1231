/**
 * Splitting a long answer into messages a platform accepts. Cuts fall at paragraph, then line, then
 * sentence, then word boundaries; a ``` code block that has to be cut is closed at the end of one
 * chunk and reopened (same language tag) at the start of the next, so every chunk renders on its own.
 * Nothing is dropped: the chunks, minus the fences added here, join back into the input.
 */

/** The fence that closes a code block cut at a chunk's end (always exactly this, so it can be undone). */
export const ADDED_CLOSE = "\n```";

/** Smallest limit that still leaves room for a reopened fence, a closing fence and some text. */
export const MIN_SPLIT_LIMIT = 16;

/** The longest language tag carried over to a reopened fence (a longer one is reopened bare). */
const MAX_REOPEN_TAG = 24;

/** A code block open at some point of the text: the fence that opened it. */
interface OpenFence {
  /** Number of backticks of the opening fence (a closing fence needs at least as many). */
  ticks: number;
  /** The info string (language tag), e.g. "python". */
  info: string;
}

const FENCE_LINE = /^ {0,3}(`{3,})([^`]*)$/;

/** The fence state after one full line, given the state before it. */
function afterLine(line: string, open: OpenFence | null): OpenFence | null {
  const m = FENCE_LINE.exec(line.replace(/\r$/, ""));
  if (!m) return open;
  const ticks = m[1]!.length;
  const info = m[2]!.trim();
  if (open === null) return { ticks, info };
  return ticks >= open.ticks && info === "" ? null : open;
}

/**
 * Scans the complete lines between `lineStart` (the start of a line) and `end` from state `open`:
 * the fence state at `end` and the start of the line `end` falls in (where the next scan begins).
 */
function scanLines(
  text: string,
  lineStart: number,
  end: number,
  open: OpenFence | null,
): { state: OpenFence | null; lineStart: number } {
  let state = open;
  let at = lineStart;
  for (;;) {
    const nl = text.indexOf("\n", at);
    if (nl === -1 || nl >= end) return { state, lineStart: at };
    state = afterLine(text.slice(at, nl), state);
    at = nl + 1;
  }
}

/** The line that reopens a cut code block at the top of the next chunk. */
function reopenLine(open: OpenFence, limit: number): string {
  const tag = open.info.length <= MAX_REOPEN_TAG && open.info.length * 4 < limit ? open.info : "";
  return `${"`".repeat(3)}${tag}\n`;
}

/** The last index i in [min, max] such that a boundary ends at i (cut after the boundary). */
function lastBoundary(window: string, min: number, pattern: RegExp): number {
  let best = -1;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(window); m !== null; m = pattern.exec(window)) {
    const end = m.index + m[0].length;
    if (end >= min && end <= window.length) best = end;
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return best;
}

const PARAGRAPH = /\n[ \t]*\n+/g;
const LINE = /\n/g;
const SENTENCE = /[.!?…。！？][)"'’”\]]*[ \t]+/g;
const SPACE = /[ \t]+/g;

/** Where to cut `window` (a slice starting at a chunk's text): after the best boundary in it. */
function chooseCut(window: string): number {
  const half = Math.floor(window.length / 2);
  for (const min of [half, 1]) {
    for (const pattern of [PARAGRAPH, LINE, SENTENCE, SPACE]) {
      const at = lastBoundary(window, min, pattern);
      if (at > 0) return at;
    }
  }
  // No boundary at all: a hard cut, never between the halves of a surrogate pair.
  const code = window.charCodeAt(window.length - 1);
  return code >= 0xd800 && code <= 0xdbff && window.length > 1 ? window.length - 1 : window.length;
}

/**
 * Adjusts a cut so no fence is made or broken: a cut inside a fence line moves to that line's start,
 * and a cut in the middle of a line never leaves backticks at the start of the next chunk (where
 * they would read as a fence that the text never had).
 */
function avoidBrokenFence(text: string, start: number, cut: number): number {
  const lineStart = text.lastIndexOf("\n", cut - 1) + 1;
  if (lineStart === cut) return cut;
  if (lineStart > start && /^ {0,3}`/.test(text.slice(lineStart, cut))) return lineStart;
  if (!/^ {0,3}```/.test(text.slice(cut, cut + 6))) return cut;
  // Take the last visible character before the backticks along into the next chunk.
  let at = cut - 1;
  while (at > start && /\s/.test(text[at]!)) at--;
  if (at > start && isLowSurrogate(text.charCodeAt(at))) at--;
  if (at > start) return at;
  // Nothing to take along: cut inside the backticks instead, leaving two (no fence) for the next chunk.
  const run = /^ {0,3}`+/.exec(text.slice(cut))![0].length;
  return cut + run - 2;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Splits `text` into chunks of at most `limit` characters (see the file comment). An empty text gives
 * no chunks. Throws RangeError for a limit below MIN_SPLIT_LIMIT.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < MIN_SPLIT_LIMIT) {
    throw new RangeError(
      `splitMessage: limit must be an integer of at least ${MIN_SPLIT_LIMIT} (got ${limit})`,
    );
  }
  if (text.length <= limit) return text === "" ? [] : [text];
  const chunks: string[] = [];
  let pos = 0;
  let lineStart = 0;
  let open: OpenFence | null = null;
  while (pos < text.length) {
    const prefix = open ? reopenLine(open, limit) : "";
    const rest = text.length - pos;
    if (prefix.length + rest <= limit) {
      chunks.push(prefix + text.slice(pos));
      break;
    }
    // Room for the text of this chunk, keeping space for a closing fence should the cut land in code.
    const room = limit - prefix.length - ADDED_CLOSE.length;
    const plain = pos + chooseCut(text.slice(pos, pos + room));
    let cut = avoidBrokenFence(text, pos, plain);
    let scanned = scanLines(text, lineStart, cut, open);
    let chunk = prefix + text.slice(pos, cut) + (scanned.state ? ADDED_CLOSE : "");
    if (chunk.length > limit) {
      // Only a long run of backticks in a tiny limit gets here: the limit wins over the looks.
      cut = plain;
      scanned = scanLines(text, lineStart, cut, open);
      chunk = prefix + text.slice(pos, cut) + (scanned.state ? ADDED_CLOSE : "");
    }
    chunks.push(chunk);
    pos = cut;
    lineStart = scanned.lineStart;
    open = scanned.state;
  }
  return chunks;
}
