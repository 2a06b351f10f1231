/**
 * A small, forgiving shell parser for command screening. It does not run or expand anything: it
 * splits a script into simple commands (on `;`, `&&`, `||`, `|`, `&`, newlines, subshells and
 * groups), removes quotes and escapes (`r\m`, `'rm'`, `"/"`), separates redirections, collects
 * heredoc bodies, and parses the insides of `$(...)`, backticks and `<(...)` as commands of their
 * own. Malformed input (an unclosed quote) never throws: the rest of the text becomes one word.
 */

export interface Redirect {
  /** `>`, `>>`, `<`, `<<`, `<<<` (fd numbers and `&` dropped; `>|` and `&>` become `>`). */
  op: string;
  target: string;
}

/** One simple command as written, before wrapper prefixes (sudo, env, ...) are removed. */
export interface RawCommand {
  words: string[];
  redirects: Redirect[];
  /** Text fed to stdin by heredocs and here-strings. */
  stdin: string[];
  /** Scripts found in `$(...)`, backticks and `<(...)` inside this command's words. */
  substitutions: RawScript[];
  /**
   * Scripts this command runs whose text is known statically: `<(...)` given to a shell, `source`
   * or an interpreter, or a file written earlier in the same script (`echo ... > x.sh; bash x.sh`).
   */
  scripts?: string[];
  /** Position in its pipeline (0 = first); `pipe` holds every stage. */
  stage: number;
  pipe: RawCommand[];
}

export interface RawScript {
  commands: RawCommand[];
  /** Only simple commands and pipelines run in order, so what it prints can be worked out. */
  simple?: boolean;
}

const MAX_DEPTH = 6;

/** Stands in for a substitution's output in a word (its commands are parsed separately). */
export const SUBSTITUTION = "\u27e8subst\u27e9";

/** Parses `src` into simple commands. Never throws. */
export function parseShell(src: string, depth = 0): RawScript {
  return new Parser(src, depth).parse();
}

class Parser {
  private i = 0;
  private readonly commands: RawCommand[] = [];
  private pipe: RawCommand[] = [];
  private cur: RawCommand = this.fresh();
  private word: string | undefined;
  /** Heredocs opened on the current line, read when the line ends. */
  private pendingHeredocs: { delim: string; stripTabs: boolean; into: RawCommand }[] = [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {}

  private fresh(): RawCommand {
    return { words: [], redirects: [], stdin: [], substitutions: [], stage: 0, pipe: [] };
  }

  parse(): RawScript {
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (this.wordPart()) continue;
      if ((c === "<" || c === ">") && s[this.i + 1] === "(") {
        this.i += 2;
        this.substitution(")");
        continue;
      }
      if (c === "#" && this.word === undefined) {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        continue;
      }
      if (c === " " || c === "\t" || c === "\r") {
        this.endWord();
        this.i++;
        continue;
      }
      if (c === "\n") {
        this.endCommand(true);
        this.i++;
        this.readHeredocs();
        continue;
      }
      if (c === ";" || c === "(" || c === ")") {
        this.endCommand(true);
        this.i++;
        continue;
      }
      if (c === "&") {
        if (s[this.i + 1] === ">") {
          // &> and &>> send both streams to a file.
          this.endWord();
          const append = s[this.i + 2] === ">";
          this.i += append ? 3 : 2;
          this.redirect(append ? ">>" : ">");
          continue;
        }
        this.endCommand(true);
        this.i += s[this.i + 1] === "&" ? 2 : 1;
        continue;
      }
      if (c === "|") {
        if (s[this.i + 1] === "|") {
          this.endCommand(true);
          this.i += 2;
          continue;
        }
        this.endCommand(false);
        this.i += s[this.i + 1] === "&" ? 2 : 1;
        continue;
      }
      if (c === ">" || c === "<") {
        this.redirectOperator();
        continue;
      }
      this.add(c);
      this.i++;
    }
    this.endCommand(true);
    return { commands: this.commands };
  }

  private add(text: string): void {
    this.word = (this.word ?? "") + text;
  }

  private endWord(): void {
    if (this.word !== undefined) this.cur.words.push(this.word);
    this.word = undefined;
  }

  /** Ends the current simple command; `endPipe` false means a `|` follows. */
  private endCommand(endPipe: boolean): void {
    this.endWord();
    const cmd = this.cur;
    if (cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.substitutions.length > 0) {
      cmd.stage = this.pipe.length;
      this.pipe.push(cmd);
      cmd.pipe = this.pipe;
      this.commands.push(cmd);
    }
    this.cur = this.fresh();
    if (endPipe) this.pipe = [];
  }

  /**
   * Consumes a quoted string, an escape, a substitution or an expansion at the current position,
   * adding its text to the word. False when the character is none of these.
   */
  private wordPart(): boolean {
    const s = this.src;
    const c = s[this.i]!;
    const next = s[this.i + 1];
    if (c === "\\") {
      // A backslash-newline joins lines; any other escaped character is literal.
      if (next !== undefined && next !== "\n") this.add(next);
      this.i += 2;
    } else if (c === "'") {
      const end = s.indexOf("'", this.i + 1);
      const stop = end < 0 ? s.length : end;
      this.add(s.slice(this.i + 1, stop));
      this.i = stop + 1;
    } else if (c === '"') this.doubleQuoted();
    else if (c === "$" && next === "'") this.ansiQuoted();
    else if (c === "$" && next === "(" && s[this.i + 2] === "(") this.add(this.balanced("((", "))"));
    else if (c === "$" && next === "(") {
      this.i += 2;
      this.substitution(")");
    } else if (c === "$" && next === "{") this.parameter();
    else if (c === "`") {
      this.i += 1;
      this.substitution("`");
    } else return false;
    return true;
  }

  /** `${HOME}` and `$HOME` are the same target; other expansions are kept as written. */
  private parameter(): void {
    const text = this.balanced("{", "}");
    const simple = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text);
    this.add(simple ? `$${simple[1]}` : text);
  }

  private doubleQuoted(): void {
    const s = this.src;
    this.i += 1;
    this.add("");
    while (this.i < s.length && s[this.i] !== '"') {
      const c = s[this.i]!;
      if (c === "\\" && '"\\$`\n'.includes(s[this.i + 1] ?? "")) {
        if (s[this.i + 1] !== "\n") this.add(s[this.i + 1]!);
        this.i += 2;
      } else if (c === "$" && s[this.i + 1] === "(" && s[this.i + 2] !== "(") {
        this.i += 2;
        this.substitution(")");
      } else if (c === "$" && s[this.i + 1] === "{") this.parameter();
      else if (c === "`") {
        this.i += 1;
        this.substitution("`");
      } else {
        this.add(c);
        this.i++;
      }
    }
    this.i += 1;
  }

  private ansiQuoted(): void {
    const s = this.src;
    this.i += 2;
    const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "'": "'", "\\": "\\", '"': '"' };
    let out = "";
    while (this.i < s.length && s[this.i] !== "'") {
      if (s[this.i] === "\\" && this.i + 1 < s.length) {
        const e = s[this.i + 1]!;
        const hex = e === "x" ? /^[0-9a-fA-F]{1,2}/.exec(s.slice(this.i + 2)) : null;
        if (hex) {
          out += String.fromCharCode(Number.parseInt(hex[0], 16));
          this.i += 2 + hex[0].length;
          continue;
        }
        out += map[e] ?? e;
        this.i += 2;
      } else out += s[this.i++];
    }
    this.i += 1;
    this.add(out);
  }

  /** Text from the current position through the matching close, nesting on `open`. */
  private balanced(open: string, close: string): string {
    const s = this.src;
    const start = this.i;
    let depth = 0;
    while (this.i < s.length) {
      if (s.startsWith(open, this.i) || (open === "{" && s.startsWith("${", this.i))) {
        depth++;
        this.i += s.startsWith("${", this.i) ? 2 : open.length;
        continue;
      }
      if (s.startsWith(close, this.i)) {
        depth--;
        this.i += close.length;
        if (depth <= 0) break;
        continue;
      }
      this.i++;
    }
    return s.slice(start, this.i);
  }

  /** Parses `$(...)` / `<(...)` / backticks from the current position; the word gets a placeholder. */
  private substitution(close: ")" | "`"): void {
    const s = this.src;
    const start = this.i;
    let depth = 1;
    let quote: string | undefined;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "\\") {
        this.i += 2;
        continue;
      }
      if (quote) {
        if (c === quote) quote = undefined;
      } else if (c === "'" || (c === '"' && close !== "`")) quote = c;
      else if (close === "`" && c === "`") break;
      else if (close === ")" && c === "(") depth++;
      else if (close === ")" && c === ")" && --depth === 0) break;
      this.i++;
    }
    const inner = s.slice(start, this.i);
    this.i += 1;
    if (this.depth < MAX_DEPTH) this.cur.substitutions.push(parseShell(inner, this.depth + 1));
    this.add(SUBSTITUTION);
  }

  private redirectOperator(): void {
    const s = this.src;
    const c = s[this.i]!;
    // A word made only of digits right before the operator is its fd number (2>, 1>>).
    if (this.word !== undefined && /^\d+$/.test(this.word)) this.word = undefined;
    this.endWord();
    if (c === "<") {
      if (s.startsWith("<<<", this.i)) {
        this.i += 3;
        this.redirect("<<<");
      } else if (s.startsWith("<<", this.i)) {
        this.i += 2;
        const stripTabs = s[this.i] === "-";
        if (stripTabs) this.i++;
        this.heredoc(stripTabs);
      } else {
        this.i += s[this.i + 1] === "&" ? 2 : 1;
        this.redirect("<");
      }
      return;
    }
    let op = ">";
    this.i += 1;
    if (s[this.i] === ">") {
      op = ">>";
      this.i += 1;
    } else if (s[this.i] === "|") this.i += 1;
    if (s[this.i] === "&") {
      // >&2, 2>&1: duplicating a descriptor writes no file.
      this.i += 1;
      const fd = /^\s*(\d+|-)/.exec(s.slice(this.i));
      if (fd) {
        this.i += fd[0].length;
        return;
      }
    }
    this.redirect(op);
  }

  /** Reads the next word as the target of a redirection. */
  private redirect(op: string): void {
    const sub = new Parser(this.src, this.depth);
    sub.i = this.i;
    while (sub.i < this.src.length && (this.src[sub.i] === " " || this.src[sub.i] === "\t")) sub.i++;
    const target = sub.readWord();
    this.i = sub.i;
    for (const s of sub.cur.substitutions) this.cur.substitutions.push(s);
    if (op === "<<<") this.cur.stdin.push(target);
    else this.cur.redirects.push({ op, target });
  }

  /** Reads one word (quotes and substitutions handled) and stops at whitespace or an operator. */
  private readWord(): string {
    const s = this.src;
    while (this.i < s.length && !" \t\r\n;&|<>()".includes(s[this.i]!)) {
      if (this.wordPart()) continue;
      this.add(s[this.i]!);
      this.i++;
    }
    const w = this.word ?? "";
    this.word = undefined;
    return w;
  }

  private heredoc(stripTabs: boolean): void {
    const sub = new Parser(this.src, this.depth);
    sub.i = this.i;
    while (sub.i < this.src.length && (this.src[sub.i] === " " || this.src[sub.i] === "\t")) sub.i++;
    const delim = sub.readWord();
    this.i = sub.i;
    if (delim) this.pendingHeredocs.push({ delim, stripTabs, into: this.cur });
  }

  /** After a newline: consumes the bodies of heredocs opened on the line just ended. */
  private readHeredocs(): void {
    const s = this.src;
    for (const h of this.pendingHeredocs) {
      const lines: string[] = [];
      while (this.i < s.length) {
        let end = s.indexOf("\n", this.i);
        if (end < 0) end = s.length;
        let line = s.slice(this.i, end);
        this.i = end + 1;
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if ((h.stripTabs ? line.replace(/^\t+/, "") : line) === h.delim) break;
        lines.push(line);
      }
      h.into.stdin.push(lines.join("\n"));
    }
    this.pendingHeredocs = [];
  }
}
