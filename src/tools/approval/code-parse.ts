import { type Lang, lex, type Piece, type Token } from "./code-lex.js";
import { SUBSTITUTION } from "./shell-parse.js";

/**
 * Expressions of a short interpreter program, parsed just far enough to find calls and to work
 * out the text of their arguments where it is static: string literals and their concatenation,
 * variables assigned a literal earlier, path joins, environment lookups (`os.environ['HOME']` is
 * `$HOME`) and base64 decoding. Whatever cannot be known becomes the unknown-value marker.
 */

export type Expr =
  | { k: "str"; parts: Piece[]; cmd?: boolean; words?: boolean }
  | { k: "id"; name: string }
  | { k: "num" }
  | { k: "member"; obj: Expr; name: string }
  | { k: "index"; obj: Expr; key: Expr | undefined }
  | { k: "call"; callee: Expr; args: Expr[]; kw: Record<string, Expr> }
  | { k: "list"; items: Expr[] }
  | { k: "obj"; entries: Record<string, Expr> }
  | { k: "bin"; op: string; l: Expr; r: Expr };

export interface Program {
  lang: Lang;
  /** Every call, in source order (nested ones included). */
  calls: Extract<Expr, { k: "call" }>[];
  /** Command strings the language runs itself (backticks, `qx`, `%x`). */
  commands: Extract<Expr, { k: "str" }>[];
  /** Every string literal. */
  strings: Extract<Expr, { k: "str" }>[];
  /** The last value assigned to each simple variable before it is used. */
  vars: Map<string, Expr>;
}

export const UNKNOWN = SUBSTITUTION;

const MEMBER_OPS: Record<Lang, readonly string[]> = {
  python: ["."],
  node: [".", "?."],
  perl: ["->", "::"],
  ruby: [".", "::", "&."],
  php: ["->", "::", "?->"],
};
const CONCAT_OPS: Record<Lang, readonly string[]> = {
  python: ["+", "/", "%"],
  node: ["+"],
  perl: ["."],
  ruby: ["+", "/"],
  php: ["."],
};
/** Perl/Ruby calls often go without parentheses: `system "rm -rf /"`, `FileUtils.rm_rf "/"`. */
const PARENLESS =
  /^(?:system|exec|spawn|unlink|rmdir|rmtree|remove_tree|rm_rf|rm_r|rm|rm_f|remove|remove_dir|remove_entry|mv|cp|cp_r|copy|move|write|binwrite|eval|ln_s|symlink|rename|open|popen|capture2|capture2e|capture3|readpipe|instance_eval)$/;
const CLOSERS = new Set(["}", ")", "]"]);
const MAX_DEPTH = 40;

class Parser {
  private pos = 0;
  private depth = 0;
  readonly program: Program;

  constructor(
    private readonly toks: Token[],
    lang: Lang,
  ) {
    this.program = { lang, calls: [], commands: [], strings: [], vars: new Map() };
  }

  private get lang(): Lang {
    return this.program.lang;
  }
  private peek(o = 0): Token | undefined {
    return this.toks[this.pos + o];
  }
  private isOp(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t?.t === "op" && t.v === v;
  }
  private skipNewlines(): void {
    while (this.isOp("\n")) this.pos++;
  }

  run(): Program {
    while (this.pos < this.toks.length) {
      const start = this.pos;
      if (!this.assignment()) {
        const e = this.expr();
        if (!e || this.pos === start) this.pos = start + 1;
      }
    }
    return this.program;
  }

  /** `name = expr` (after `my`/`let`/`const`/`var`/`local`): remembers the value. */
  private assignment(): boolean {
    let o = 0;
    const first = this.peek();
    if (first?.t === "id" && /^(?:my|our|local|let|const|var)$/.test(first.v)) o = 1;
    const name = this.peek(o);
    if (name?.t !== "id" || !this.isOp("=", o + 1)) return false;
    this.pos += o + 2;
    const value = this.expr();
    if (value) this.program.vars.set(name.v, value);
    return true;
  }

  expr(): Expr | undefined {
    if (this.depth > MAX_DEPTH) return undefined;
    this.depth++;
    try {
      let l = this.unary();
      while (l) {
        const t = this.peek();
        if (t?.t === "op" && CONCAT_OPS[this.lang].includes(t.v)) {
          this.pos++;
          this.skipNewlines();
          const r = this.unary();
          if (!r) break;
          l = { k: "bin", op: t.v, l, r };
        } else if (t?.t === "str" && this.lang === "python" && l.k === "str") {
          this.pos++;
          l = { k: "bin", op: "+", l, r: this.literal(t) };
        } else break;
      }
      return l;
    } finally {
      this.depth--;
    }
  }

  private unary(): Expr | undefined {
    const t = this.peek();
    if (t?.t === "op" && ["-", "!", "*", "**", "\\", "~", "+"].includes(t.v)) this.pos++;
    else if (
      t?.t === "id" &&
      /^(?:new|await|not|yield|typeof|void|return|do|my|our|local|let|const|var)$/.test(t.v)
    )
      this.pos++;
    return this.postfix();
  }

  private literal(t: Extract<Token, { t: "str" }>): Extract<Expr, { k: "str" }> {
    const e: Extract<Expr, { k: "str" }> = { k: "str", parts: t.parts };
    if (t.cmd) e.cmd = true;
    if (t.words) e.words = true;
    this.program.strings.push(e);
    if (t.cmd) this.program.commands.push(e);
    return e;
  }

  private primary(): Expr | undefined {
    const t = this.peek();
    if (!t) return undefined;
    if (t.t === "str") {
      this.pos++;
      return this.literal(t);
    }
    if (t.t === "num") {
      this.pos++;
      return { k: "num" };
    }
    if (t.t === "id") {
      this.pos++;
      return { k: "id", name: t.v };
    }
    if (t.v === "(" || t.v === "[") {
      this.pos++;
      const { args } = this.args(t.v === "(" ? ")" : "]");
      return t.v === "(" && args.length === 1 ? args[0] : { k: "list", items: args };
    }
    if (t.v === "{") return this.object();
    return undefined;
  }

  /** `{key: value, ...}` / `{key => value}`; leaves the position alone when it is a code block. */
  private object(): Expr | undefined {
    const start = this.pos;
    this.pos++;
    const entries: Record<string, Expr> = {};
    for (;;) {
      this.skipNewlines();
      if (this.isOp("}")) {
        this.pos++;
        return { k: "obj", entries };
      }
      const key = this.peek();
      if (key?.t !== "id" && key?.t !== "str") break;
      const name =
        key.t === "id" ? key.v.replace(/^:/, "") : key.parts.filter((p) => typeof p === "string").join("");
      this.pos++;
      if (this.isOp(":") || this.isOp("=>")) {
        this.pos++;
        const value = this.expr();
        if (!value) break;
        entries[name] = value;
      } else if (key.t === "id" && (this.isOp(",") || this.isOp("}"))) entries[name] = { k: "id", name };
      else break;
      if (this.isOp(",")) this.pos++;
    }
    this.pos = start;
    return undefined;
  }

  private postfix(): Expr | undefined {
    let e = this.primary();
    while (e) {
      const t = this.peek();
      if (!t) break;
      if (t.t === "op" && MEMBER_OPS[this.lang].includes(t.v) && this.peek(1)?.t === "id") {
        const name = (this.peek(1) as { v: string }).v;
        this.pos += 2;
        e = { k: "member", obj: e, name };
      } else if (t.t === "op" && t.v === "(") {
        this.pos++;
        const { args, kw } = this.args(")");
        e = { k: "call", callee: e, args, kw };
        this.program.calls.push(e);
      } else if (t.t === "op" && (t.v === "[" || (t.v === "{" && this.lang === "perl" && e.k !== "call"))) {
        this.pos++;
        const key = this.expr();
        this.skipClose();
        e = { k: "index", obj: e, key };
      } else if (t.t === "str" && this.lang === "node" && !t.cmd && (e.k === "id" || e.k === "member")) {
        this.pos++;
        e = { k: "call", callee: e, args: [this.literal(t)], kw: {} };
        this.program.calls.push(e);
      } else if (this.parenless(e, t)) {
        const args: Expr[] = [];
        while (this.pos < this.toks.length) {
          const a = this.expr();
          if (!a) break;
          args.push(a);
          if (!this.isOp(",") && !this.isOp("=>")) break;
          this.pos++;
        }
        e = { k: "call", callee: e, args, kw: {} };
        this.program.calls.push(e);
      } else break;
    }
    return e;
  }

  private parenless(e: Expr, next: Token): boolean {
    if (this.lang !== "perl" && this.lang !== "ruby") return false;
    const name = e.k === "id" ? e.name : e.k === "member" ? e.name : undefined;
    if (!name || !PARENLESS.test(name)) return false;
    if (next.t === "op") return next.v === "[" || (next.v === "{" && this.lang === "perl");
    return true;
  }

  /** Moves past the closer that matches an opener already consumed. */
  private skipClose(): void {
    let depth = 0;
    while (this.pos < this.toks.length) {
      const t = this.toks[this.pos++]!;
      if (t.t !== "op") continue;
      if (t.v === "(" || t.v === "[" || t.v === "{") depth++;
      else if (t.v === ")" || t.v === "]" || t.v === "}") {
        if (depth === 0) return;
        depth--;
      }
    }
  }

  /** Arguments up to `close`: positional ones and keywords (`shell=True`, `shell: true`, `:a => 1`). */
  private args(close: string): { args: Expr[]; kw: Record<string, Expr> } {
    const args: Expr[] = [];
    const kw: Record<string, Expr> = {};
    while (this.pos < this.toks.length) {
      this.skipNewlines();
      if (this.isOp(close)) {
        this.pos++;
        break;
      }
      const t = this.peek()!;
      const keyword =
        t.t === "id" &&
        ((this.lang === "python" && this.isOp("=", 1)) || (this.lang === "ruby" && this.isOp(":", 1)));
      if (keyword) this.pos += 2;
      const start = this.pos;
      const e = this.expr();
      if (e && keyword) kw[(t as { v: string }).v] = e;
      else if (e) args.push(e);
      this.skipNewlines();
      if (this.isOp(",") || this.isOp("=>")) this.pos++;
      else if (this.pos === start) {
        // A closer that is not ours means the source is malformed: stop here, consume nothing.
        const stray = this.peek();
        if (stray?.t === "op" && CLOSERS.has(stray.v)) break;
        this.pos++;
      }
    }
    return { args, kw };
  }
}

/** Parses `src` as `lang`. Never throws. */
export function parseProgram(src: string, lang: Lang): Program {
  try {
    return new Parser(lex(src, lang), lang).run();
  } catch {
    return { lang, calls: [], commands: [], strings: [], vars: new Map() };
  }
}

/** Parses one interpolated expression (`{path}` in an f-string) in the context of `program`. */
export function parseExpression(src: string, program: Program): Expr | undefined {
  try {
    const sub = new Parser(lex(src, program.lang), program.lang);
    return sub.expr();
  } catch {
    return undefined;
  }
}
