/**
 * How the scan reads a file: as segments of text that rules match, each knowing the line it
 * starts on. Markdown prose is read a paragraph at a time (an order wrapped over two lines is
 * still one sentence); code and scripts a logical line at a time (backslash continuations joined).
 */

export type SegmentKind = "prose" | "code";

export interface Segment {
  kind: SegmentKind;
  text: string;
  /** 1-based line of the segment's first character. */
  line: number;
  /** Offsets in `text` where each following line starts (for the line of a match). */
  breaks: number[];
  /** Inside a fence or a script whose commands are shell. */
  shell: boolean;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const SHELL_LANGS = new Set([
  "",
  "sh",
  "bash",
  "shell",
  "zsh",
  "ksh",
  "console",
  "terminal",
  "shell-session",
]);
const SHELL_FILES = /\.(?:sh|bash|zsh|ksh|command)$/i;
const MARKDOWN_FILES = /\.(?:md|markdown|mdx)$/i;

/** The line a match at `offset` of a segment is on. */
export function lineAt(seg: Segment, offset: number): number {
  let n = 0;
  while (n < seg.breaks.length && seg.breaks[n]! <= offset) n++;
  return seg.line + n;
}

class SegmentBuilder {
  readonly out: Segment[] = [];
  private cur: Segment | undefined;

  add(kind: SegmentKind, shell: boolean, line: number, text: string, joiner: string): void {
    if (this.cur && this.cur.kind === kind && this.cur.shell === shell) {
      this.cur.text += joiner;
      this.cur.breaks.push(this.cur.text.length);
      this.cur.text += text;
      return;
    }
    this.flush();
    this.cur = { kind, text, line, breaks: [], shell };
  }

  flush(): void {
    if (this.cur) this.out.push(this.cur);
    this.cur = undefined;
  }
}

/** Code lines one logical line each: a trailing backslash continues onto the next line. */
function codeSegments(lines: readonly string[], first: number, shell: boolean, b: SegmentBuilder): void {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    b.add("code", shell, first + i, line.replace(/\\$/, ""), "");
    if (!/\\$/.test(line)) b.flush();
  }
  b.flush();
}

/** Splits a markdown file into prose paragraphs and fenced code lines. */
function markdownSegments(lines: readonly string[]): Segment[] {
  const b = new SegmentBuilder();
  let fence: { marker: string; shell: boolean; start: number } | undefined;
  const block: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = FENCE.exec(line);
    if (fence) {
      if (m && m[1]!.startsWith(fence.marker) && m[2] === "") {
        codeSegments(block, fence.start + 1, fence.shell, b);
        block.length = 0;
        fence = undefined;
      } else {
        // Console transcripts: the prompt is not part of the command.
        block.push(fence.shell ? line.replace(/^\s*[$#]\s+/, "") : line);
      }
      continue;
    }
    if (m) {
      b.flush();
      fence = { marker: m[1]![0]!.repeat(3), shell: SHELL_LANGS.has(m[2]!.toLowerCase()), start: i + 1 };
      continue;
    }
    if (line.trim() === "") {
      b.flush();
      continue;
    }
    b.add("prose", false, i + 1, line, " ");
  }
  if (fence) codeSegments(block, fence.start + 1, fence.shell, b);
  b.flush();
  return b.out;
}

/** Segments of one file's text; the file name says how to read it. */
export function segmentsOf(path: string, text: string): Segment[] {
  const lines = text.split(/\r?\n/);
  if (MARKDOWN_FILES.test(path)) return markdownSegments(lines);
  const b = new SegmentBuilder();
  if (/\.txt$/i.test(path)) {
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.trim() === "") b.flush();
      else b.add("prose", false, i + 1, lines[i]!, " ");
    }
    b.flush();
    return b.out;
  }
  codeSegments(lines, 1, SHELL_FILES.test(path) || /^#!.*\b(?:ba|z|k|da)?sh\b/.test(lines[0] ?? ""), b);
  return b.out;
}

/** Inline code spans of a prose segment (`like this`), with their offsets. */
export function inlineCode(text: string): Array<{ code: string; offset: number }> {
  const out: Array<{ code: string; offset: number }> = [];
  for (const m of text.matchAll(/(`+)([^`]+?)\1/g)) out.push({ code: m[2]!.trim(), offset: m.index });
  return out;
}

/**
 * The same text with quoting tricks undone, so `c'u'rl`, `"r""m"`, `cu\rl`, `${IFS}` and
 * `"cu" + "rl"` read as the words they spell. Undefined when nothing changed.
 */
export function squashed(text: string): string | undefined {
  const s = text
    .replace(/(["'])\s*\+\s*\1/g, "")
    .replace(/\$\{IFS\}|\$IFS(?:\$\d)?/g, " ")
    .replace(/\$[@*](?=\w)/g, "")
    .replace(/\\(?=\w)/g, "")
    .replace(/["'`]/g, "");
  return s === text ? undefined : s;
}

/** Characters that hide text from a human reader (zero-width, bidirectional controls, tags). */
const HIDDEN_CHARS =
  /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u180E\u00AD\uFEFF]|[\u{E0000}-\u{E007F}]/gu;
/** A tag sequence that is a real emoji flag (England, Scotland, Wales). */
const FLAG_TAGS = /\u{1F3F4}[\u{E0061}-\u{E007A}]+\u{E007F}/gu;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** Hidden characters of a line, emoji joiners and a leading byte-order mark excepted. */
export function hiddenCharacters(line: string, firstLine: boolean): string[] {
  const s = line.replace(FLAG_TAGS, "\u{1F3F4}");
  const found: string[] = [];
  for (const m of s.matchAll(HIDDEN_CHARS)) {
    const ch = m[0];
    if (ch === "\uFEFF" && firstLine && m.index === 0) continue;
    if (ch === "\u200D") {
      const before = s.slice(Math.max(0, m.index - 2), m.index);
      const after = s.slice(m.index + 1, m.index + 3);
      if (PICTOGRAPH.test(before) && PICTOGRAPH.test(after)) continue;
    }
    const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    if (!found.includes(code)) found.push(code);
  }
  return found;
}

/** Text as a reader sees it: compatibility forms folded, hidden characters dropped. */
export function visibleText(text: string): string {
  return text.normalize("NFKC").replace(HIDDEN_CHARS, "");
}

/** One short line for a finding's `match`. */
export function clip(text: string, max = 120): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}
