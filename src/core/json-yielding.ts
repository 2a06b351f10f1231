/**
 * JSON.parse that gives the event loop back while it works. A body of several megabytes parsed in
 * one `JSON.parse` call holds a server's loop for tens of milliseconds; here a large array or
 * object is cut into its members (found by a scan that only tracks strings and nesting), each
 * member is parsed on its own, and the parse yields to the loop whenever its time slice is used.
 * Small texts and leaves (a single long string) go to `JSON.parse` whole. The result is the value
 * `JSON.parse` returns, and invalid text is refused with a SyntaxError as it would be.
 */

export interface YieldingParseOptions {
  /** Longest stretch of work between two yields (ms); default 2. */
  sliceMs?: number;
  /** Texts (and members) up to this many characters are parsed in one call; default 64 KiB. */
  wholeBelow?: number;
}

const DEFAULT_SLICE_MS = 2;
const DEFAULT_WHOLE_BELOW = 64 * 1024;
/** Characters scanned between two looks at the clock. */
const SCAN_STEP = 8 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Keeps time for one parse: `due()` says the slice is used, `pause()` yields and starts a new one. */
class Slice {
  private started = performance.now();
  constructor(private readonly ms: number) {}
  due(): boolean {
    return performance.now() - this.started >= this.ms;
  }
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

/** Parses `text` as JSON.parse would, yielding to the event loop between slices of work. */
export async function parseJsonYielding(text: string, options: YieldingParseOptions = {}): Promise<unknown> {
  const whole = options.wholeBelow ?? DEFAULT_WHOLE_BELOW;
  if (text.length <= whole) return JSON.parse(text);
  const parser = new YieldingParser(text, whole, new Slice(options.sliceMs ?? DEFAULT_SLICE_MS));
  return parser.value(0, text.length);
}

class YieldingParser {
  constructor(
    private readonly text: string,
    private readonly whole: number,
    private readonly slice: Slice,
  ) {}

  /** The value in text[start, end) (surrounding blanks allowed). */
  async value(start: number, end: number): Promise<unknown> {
    let s = start;
    let e = end;
    while (s < e && isSpace(this.text.charCodeAt(s))) s++;
    while (e > s && isSpace(this.text.charCodeAt(e - 1))) e--;
    const open = this.text.charCodeAt(s);
    const container = open === OPEN_BRACE || open === OPEN_BRACKET;
    if (!container || e - s <= this.whole) return this.leaf(s, e);
    const close = open === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
    if (this.text.charCodeAt(e - 1) !== close) throw this.error("an unclosed or mismatched bracket", e - 1);
    const parts = await this.members(s + 1, e - 1);
    return open === OPEN_BRACE ? this.object(parts) : this.array(parts);
  }

  private async leaf(start: number, end: number): Promise<unknown> {
    if (this.slice.due()) await this.slice.pause();
    try {
      return JSON.parse(this.text.slice(start, end));
    } catch (err) {
      throw new SyntaxError(`${(err as Error).message} (in the member at position ${start})`);
    }
  }

  private async array(parts: Member[]): Promise<unknown[]> {
    // `[ ]` scans as one blank member: an empty array.
    if (parts.length === 1 && this.blank(parts[0]!.start, parts[0]!.end)) return [];
    const out: unknown[] = [];
    for (const p of parts) {
      if (p.colon !== -1) throw this.error("a ':' inside an array", p.colon);
      out.push(await this.value(p.start, p.end));
    }
    return out;
  }

  private async object(parts: Member[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    if (parts.length === 1 && this.blank(parts[0]!.start, parts[0]!.end)) return out;
    for (const p of parts) {
      if (p.colon === -1) throw this.error("a member without ':'", p.start);
      const key = JSON.parse(this.text.slice(p.start, p.colon)) as unknown;
      if (typeof key !== "string") throw this.error("a key that is not a string", p.start);
      const value = await this.value(p.colon + 1, p.end);
      // Plain assignment of "__proto__" would set the prototype; JSON.parse makes it an own property.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  }

  private blank(start: number, end: number): boolean {
    for (let i = start; i < end; i++) if (!isSpace(this.text.charCodeAt(i))) return false;
    return true;
  }

  /**
   * The members between a container's brackets: split at the commas of its own level, each with
   * the position of its own first top-level colon (-1 when none). Strings are skipped whole, so
   * brackets and commas inside them do not count. Mismatched brackets inside a member are left to
   * that member's own parse.
   */
  private async members(start: number, end: number): Promise<Member[]> {
    const { text } = this;
    const out: Member[] = [];
    let depth = 0;
    let memberStart = start;
    let colon = -1;
    let nextLook = start + SCAN_STEP;
    for (let i = start; i < end; i++) {
      if (i >= nextLook) {
        nextLook = i + SCAN_STEP;
        if (this.slice.due()) await this.slice.pause();
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = this.stringEnd(i, end);
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth < 0) throw this.error("a closing bracket without its opening one", i);
      } else if (depth === 0) {
        if (c === COMMA) {
          out.push({ start: memberStart, end: i, colon });
          memberStart = i + 1;
          colon = -1;
        } else if (c === COLON && colon === -1) colon = i;
      }
    }
    if (depth !== 0) throw this.error("an unclosed bracket", end);
    out.push({ start: memberStart, end, colon });
    return out;
  }

  /** Position of the quote closing the string that opens at `quote`. */
  private stringEnd(quote: number, end: number): number {
    const { text } = this;
    let i = quote + 1;
    for (;;) {
      const next = text.indexOf('"', i);
      if (next === -1 || next >= end) throw this.error("an unterminated string", quote);
      // The quote is escaped when an odd number of backslashes stands before it.
      let slashes = 0;
      for (let j = next - 1; j > quote && text.charCodeAt(j) === BACKSLASH; j--) slashes++;
      if (slashes % 2 === 0) return next;
      i = next + 1;
    }
  }

  private error(what: string, at: number): SyntaxError {
    return new SyntaxError(`Unexpected JSON: ${what} at position ${at}`);
  }
}

interface Member {
  start: number;
  end: number;
  /** The member's first colon at its own level (objects: between key and value), or -1. */
  colon: number;
}
