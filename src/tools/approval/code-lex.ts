/**
 * A forgiving tokenizer for the short programs given to interpreters on the command line
 * (`python3 -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, heredocs). It only needs string
 * literals (with their interpolated parts), names and punctuation; anything it does not
 * understand becomes punctuation, and it never throws.
 */

export type Lang = "python" | "node" | "perl" | "ruby" | "php";

/** Literal text, or the source of an interpolated expression (`{x}`, `${x}`, `#{x}`, `$x`). */
export type Piece = string | { expr: string };

export type Token =
  | { t: "str"; parts: Piece[]; cmd?: boolean; words?: boolean }
  | { t: "id"; v: string }
  | { t: "num" }
  | { t: "op"; v: string };

/** Code longer than this is only screened in its first part. */
export const MAX_CODE = 100_000;

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  e: "\x1b",
};
const OPS = [
  "=>",
  "->",
  "::",
  "==",
  "!=",
  "=~",
  "!~",
  "**",
  "//",
  "?.",
  "...",
  "<=",
  ">=",
  "&&",
  "||",
  "<<",
  ">>",
];
const CLOSE: Record<string, string> = { "(": ")", "[": "]", "{": "}", "<": ">" };
const PERL_QUOTES = new Set(["q", "qq", "qw", "qx", "m", "s", "tr", "y", "qr"]);
const REGEX_AFTER = new Set([
  "return",
  "and",
  "or",
  "not",
  "if",
  "unless",
  "split",
  "grep",
  "when",
  "typeof",
  "case",
  "while",
]);

class Lexer {
  private i = 0;
  readonly out: Token[] = [];
  private readonly n: number;

  constructor(
    private readonly s: string,
    private readonly lang: Lang,
  ) {
    this.n = Math.min(s.length, MAX_CODE);
  }

  run(): Token[] {
    const s = this.s;
    while (this.i < this.n) {
      const c = s[this.i]!;
      if (c === "\n") {
        this.out.push({ t: "op", v: "\n" });
        this.i++;
      } else if (c === " " || c === "\t" || c === "\r" || (c === "\\" && s[this.i + 1] === "\n"))
        this.i += c === "\\" ? 2 : 1;
      else if (this.comment()) continue;
      else if (this.string()) continue;
      else if (/[A-Za-z_$@%]/.test(c) && this.word()) continue;
      else if (/[0-9]/.test(c)) {
        while (this.i < this.n && /[\w.]/.test(s[this.i]!)) this.i++;
        this.out.push({ t: "num" });
      } else {
        const op = OPS.find((o) => s.startsWith(o, this.i)) ?? c;
        this.out.push({ t: "op", v: op });
        this.i += op.length;
      }
    }
    return this.out;
  }

  private skipTo(end: string): void {
    const at = this.s.indexOf(end, this.i);
    this.i = at < 0 ? this.n : at + end.length;
  }

  private comment(): boolean {
    const s = this.s;
    const c = s[this.i]!;
    const cStyle = this.lang === "node" || this.lang === "php";
    if (c === "#" && this.lang !== "node") this.skipTo("\n");
    else if (cStyle && c === "/" && s[this.i + 1] === "/") this.skipTo("\n");
    else if (cStyle && c === "/" && s[this.i + 1] === "*") this.skipTo("*/");
    else return false;
    if (s[this.i - 1] === "\n") this.i--;
    return true;
  }

  /** True when a `/` here starts a regular expression rather than a division. */
  private regexHere(): boolean {
    if (this.lang === "python" || this.lang === "php") return false;
    const prev = this.out[this.out.length - 1];
    if (!prev) return true;
    if (prev.t === "op") return ![")", "]", "}"].includes(prev.v);
    return prev.t === "id" && REGEX_AFTER.has(prev.v);
  }

  private string(): boolean {
    const s = this.s;
    const c = s[this.i]!;
    const lang = this.lang;
    if (lang === "python") {
      const pre = /^([rRbBuUfF]{1,2})?('''|"""|'|")/.exec(s.slice(this.i, this.i + 5));
      if (!pre || (pre[1] && /[A-Za-z0-9_]/.test(s[this.i - 1] ?? ""))) return false;
      const flags = (pre[1] ?? "").toLowerCase();
      this.i += pre[0].length;
      this.push(
        this.quoted(pre[2]!, {
          escapes: !flags.includes("r"),
          interp: flags.includes("f") ? "brace" : "none",
        }),
      );
      return true;
    }
    if (c === "'") {
      this.i++;
      this.push(this.quoted("'", { escapes: lang === "node", interp: "none", onlyQuote: lang !== "node" }));
      return true;
    }
    if (c === '"') {
      this.i++;
      this.push(this.quoted('"', { escapes: true, interp: INTERP[lang] }));
      return true;
    }
    if (c === "`") {
      this.i++;
      const parts = this.quoted("`", {
        escapes: true,
        interp: lang === "node" ? "dollar-brace" : INTERP[lang],
      });
      this.push(parts, lang !== "node");
      return true;
    }
    if (c === "/" && this.regexHere() && s[this.i + 1] !== " ") {
      this.i++;
      this.quoted("/", { escapes: false, interp: "none", onlyQuote: true });
      while (/[a-z]/.test(s[this.i] ?? "")) this.i++;
      this.out.push({ t: "op", v: "regex" });
      return true;
    }
    if (lang === "ruby" && c === "%") return this.rubyPercent();
    return false;
  }

  private push(parts: Piece[], cmd = false, words = false): void {
    this.out.push({ t: "str", parts, ...(cmd ? { cmd } : {}), ...(words ? { words } : {}) });
  }

  /** Reads up to the closing `end` (nesting on its opening bracket when `end` closes one). */
  private quoted(
    end: string,
    o: { escapes: boolean; interp: Interp; onlyQuote?: boolean; open?: string },
  ): Piece[] {
    const s = this.s;
    const parts: Piece[] = [];
    let text = "";
    let depth = 0;
    while (this.i < this.n) {
      if (s.startsWith(end, this.i) && depth === 0) {
        this.i += end.length;
        break;
      }
      const c = s[this.i]!;
      if (o.open && c === o.open) depth++;
      if (o.open && c === end[0] && depth > 0) depth--;
      if (c === "\\" && this.i + 1 < this.n) {
        const e = s[this.i + 1]!;
        if (o.onlyQuote || !o.escapes) text += e === "\\" || s.startsWith(end, this.i + 1) ? e : `\\${e}`;
        else if (e === "x" && /^[0-9a-fA-F]{2}/.test(s.slice(this.i + 2))) {
          text += String.fromCharCode(Number.parseInt(s.slice(this.i + 2, this.i + 4), 16));
          this.i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}/.test(s.slice(this.i + 2))) {
          text += String.fromCharCode(Number.parseInt(s.slice(this.i + 2, this.i + 6), 16));
          this.i += 4;
        } else if (e !== "\n") text += ESCAPES[e] ?? e;
        this.i += 2;
        continue;
      }
      const piece = this.interpolation(o.interp);
      if (typeof piece === "string") {
        text += piece;
        continue;
      }
      if (piece !== undefined) {
        if (text) parts.push(text);
        text = "";
        parts.push(piece);
        continue;
      }
      text += c;
      this.i++;
    }
    if (text || parts.length === 0) parts.push(text);
    return parts;
  }

  /**
   * An interpolated expression at the current position (consumed) as `{expr}`, literal text for
   * an escaped brace (`{{` in an f-string), else undefined.
   */
  private interpolation(kind: Interp): Piece | undefined {
    const s = this.s;
    const c = s[this.i]!;
    const next = s[this.i + 1];
    if (kind === "brace") {
      if ((c === "{" && next === "{") || (c === "}" && next === "}")) {
        this.i += 2;
        return c;
      }
      if (c === "{") return { expr: this.balanced("{", "}").replace(/(?:![rsa])?(?::[^{}]*)?$/, "") };
    }
    if (kind === "dollar-brace" && c === "$" && next === "{") {
      this.i++;
      return { expr: this.balanced("{", "}") };
    }
    if (kind === "hash-brace" && c === "#" && next === "{") {
      this.i++;
      return { expr: this.balanced("{", "}") };
    }
    if (kind === "sigil" && (c === "$" || c === "@") && next !== undefined && /[A-Za-z_{]/.test(next)) {
      if (next === "{") {
        this.i++;
        return { expr: `$${this.balanced("{", "}")}` };
      }
      const m = /^[$@][A-Za-z_]\w*(?:::\w+)*(?:\{[^}]*\}|\[[^\]]*\]|->\{[^}]*\}|->\[[^\]]*\])*/.exec(
        s.slice(this.i, this.i + 256),
      );
      this.i += m![0].length;
      return { expr: m![0] };
    }
    return undefined;
  }

  /** The text between a bracket at the current position and its match (both consumed). */
  private balanced(open: string, close: string): string {
    const s = this.s;
    const start = ++this.i;
    let depth = 1;
    while (this.i < this.n && depth > 0) {
      if (s[this.i] === open) depth++;
      else if (s[this.i] === close) depth--;
      this.i++;
    }
    return s.slice(start, depth === 0 ? this.i - 1 : this.i);
  }

  /** Names, perl's quote-like operators (`qx{...}`, `q(...)`, `s/a/b/`) and sigil variables. */
  private word(): boolean {
    const s = this.s;
    const rest = s.slice(this.i, this.i + 256);
    const m =
      /^(?:\$#?|@@?|%|&)?[A-Za-z_]\w*/.exec(rest) ??
      /^\$[0-9!@&_]/.exec(rest) ??
      (this.lang === "node" ? /^\$/.exec(rest) : null);
    if (!m) return false;
    const w = m[0];
    if ((w.startsWith("%") || w.startsWith("&")) && this.lang !== "perl") return false;
    if ((w.startsWith("@") && this.lang === "python") || (w.startsWith("@") && this.lang === "node"))
      return false;
    if (this.lang === "perl" && PERL_QUOTES.has(w)) {
      const after = s.slice(this.i + w.length, this.i + w.length + 64);
      const d = /^\s*([^\w\s=,;)])/.exec(after);
      if (d && !after.startsWith("=>")) {
        this.i += w.length + d[0].length;
        this.perlQuote(w, d[1]!);
        return true;
      }
    }
    this.i += w.length;
    this.out.push({ t: "id", v: w });
    return true;
  }

  private perlQuote(op: string, delim: string): void {
    const close = CLOSE[delim] ?? delim;
    const open = CLOSE[delim] ? delim : undefined;
    const interp: Interp = op === "q" || op === "qw" || delim === "'" ? "none" : "sigil";
    const parts = this.quoted(close, { escapes: interp !== "none", interp, ...(open ? { open } : {}) });
    if (op === "s" || op === "tr" || op === "y") {
      if (open) while (/\s/.test(this.s[this.i] ?? "")) this.i++;
      const again = open ? this.s[this.i++]! : delim;
      this.quoted(CLOSE[again] ?? again, { escapes: false, interp: "none" });
    }
    while (/[a-z]/.test(this.s[this.i] ?? "")) this.i++;
    if (op === "q" || op === "qq") this.push(parts);
    else if (op === "qw") this.push(parts, false, true);
    else if (op === "qx") this.push(parts, true);
    else this.out.push({ t: "op", v: "regex" });
  }

  /** Ruby's `%q(...)`, `%Q{...}`, `%w[...]`, `%x(...)`, `%(...)`; a `%` between values is modulo. */
  private rubyPercent(): boolean {
    const m = /^%([qQwWxiIr]?)([^\w\s])/.exec(this.s.slice(this.i, this.i + 3));
    const prev = this.out[this.out.length - 1];
    const afterValue = prev && (prev.t !== "op" || [")", "]", "}"].includes(prev.v));
    if (!m || (afterValue && !m[1])) return false;
    this.i += m[0].length;
    const delim = m[2]!;
    const close = CLOSE[delim] ?? delim;
    const kind = m[1]!;
    const interp: Interp = kind === "q" || kind === "w" || kind === "i" ? "none" : "hash-brace";
    const parts = this.quoted(close, {
      escapes: interp !== "none",
      interp,
      ...(CLOSE[delim] ? { open: delim } : {}),
    });
    if (kind === "r") this.out.push({ t: "op", v: "regex" });
    else this.push(parts, kind === "x", kind === "w" || kind === "W");
    return true;
  }
}

type Interp = "none" | "brace" | "dollar-brace" | "hash-brace" | "sigil";

const INTERP: Record<Lang, Interp> = {
  python: "none",
  node: "none",
  perl: "sigil",
  ruby: "hash-brace",
  php: "sigil",
};

/** Tokens of `src` read as `lang`. Never throws. */
export function lex(src: string, lang: Lang): Token[] {
  try {
    return new Lexer(src, lang).run();
  } catch {
    return [];
  }
}
