import { type Expr, type Program, parseExpression, UNKNOWN } from "./code-parse.js";

/**
 * Static values of interpreter expressions: the text a string expression has when it does not
 * depend on run-time data (unknown parts become the UNKNOWN marker), and argument vectors.
 */

const MAX_EVAL_DEPTH = 12;
const MAX_TEXT = 100_000;

type Call = Extract<Expr, { k: "call" }>;

/** The name a call is made by: `os.system` → system, `getattr(os, "system")` → system. */
export function calleeName(callee: Expr, ev?: Evaluator): string | undefined {
  if (callee.k === "id") return callee.name.replace(/^[&$]/, "");
  if (callee.k === "member") return callee.name;
  if (callee.k === "call" && callee.callee.k === "id" && callee.callee.name === "getattr" && ev)
    return ev.text(callee.args[1]);
  if (callee.k === "index" && ev) return ev.text(callee.key);
  return undefined;
}

/** Dotted path of a callee, for telling modules apart: `fs.promises.rm`, `Path().unlink`. */
export function calleePath(e: Expr): string {
  switch (e.k) {
    case "id":
      return e.name;
    case "member":
      return `${calleePath(e.obj)}.${e.name}`;
    case "call":
      return `${calleePath(e.callee)}()`;
    case "index":
      return `${calleePath(e.obj)}[]`;
    case "str":
      return '""';
    default:
      return "?";
  }
}

const ENV_HOLDERS = /^(?:os\.environ|process\.env|ENV|\$ENV|%ENV|\$_ENV|\$_SERVER|environ)$/;
const PATH_JOINS =
  /^(?:join|resolve|normalize|abspath|realpath|fspath|catfile|catdir|Path|PurePath|PosixPath|Pathname|expand_path|normpath)$/;
const IDENTITY_METHODS =
  /^(?:decode|encode|strip|lstrip|rstrip|trim|chomp|to_s|toString|expanduser|resolve|absolute|as_posix|__str__|valueOf|to_str|to_path|expand_path|realpath)$/;
const BASE64 =
  /^(?:b64decode|standard_b64decode|urlsafe_b64decode|decodebytes|decodestring|atob|decode64|strict_decode64|urlsafe_decode64|decode_base64|base64_decode)$/;
const HEX = /^(?:fromhex|unhexlify|a2b_hex|hex2bin)$/;

const decode = (text: string, enc: "base64" | "hex"): string =>
  text.includes(UNKNOWN) ? UNKNOWN : Buffer.from(text, enc).toString("utf8");

function joinPaths(parts: readonly string[]): string {
  let out = "";
  for (const p of parts) {
    if (p.startsWith("/") || out === "") out = p;
    else out = `${out.replace(/\/+$/, "")}/${p}`;
  }
  return out;
}

/** `%s`/`%d` (printf style) or `{}`/`{0}`/`{name}` (str.format) filled in from `values`. */
function format(
  template: string,
  values: readonly string[],
  named: Record<string, string>,
  braces: boolean,
): string {
  let i = 0;
  if (braces)
    return template.replace(/\{(\w*)(?:![rsa])?(?::[^{}]*)?\}/g, (_m, key: string) =>
      key === ""
        ? (values[i++] ?? UNKNOWN)
        : /^\d+$/.test(key)
          ? (values[Number(key)] ?? UNKNOWN)
          : (named[key] ?? UNKNOWN),
    );
  return template.replace(/%(?:\([^)]*\))?[-+ #0]*\d*(?:\.\d+)?[sdirfxXoc%]/g, (m) =>
    m === "%%" ? "%" : (values[i++] ?? UNKNOWN),
  );
}

export class Evaluator {
  private depth = 0;

  constructor(
    readonly program: Program,
    /** Names bound to modules (`import subprocess as sp`). */
    readonly aliases: ReadonlySet<string> = new Set(),
  ) {}

  /** The text of `e`, with UNKNOWN for anything not known statically. */
  text(e: Expr | undefined): string {
    if (!e || this.depth > MAX_EVAL_DEPTH) return UNKNOWN;
    this.depth++;
    try {
      return this.textOf(e).slice(0, MAX_TEXT);
    } finally {
      this.depth--;
    }
  }

  /** The words of a list expression (`["rm", "-rf", "/"]`, `qw(rm -rf /)`), else undefined. */
  argv(e: Expr | undefined): string[] | undefined {
    if (!e || this.depth > MAX_EVAL_DEPTH) return undefined;
    if (e.k === "list") return e.items.map((x) => this.text(x));
    if (e.k === "str" && e.words) return this.text(e).split(/\s+/).filter(Boolean);
    if (e.k === "id") {
      const v = this.program.vars.get(e.name);
      if (!v || v === e) return undefined;
      this.depth++;
      try {
        return this.argv(v);
      } finally {
        this.depth--;
      }
    }
    if (e.k === "bin" && e.op === "+") {
      const l = this.argv(e.l);
      const r = this.argv(e.r);
      return l && r ? [...l, ...r] : undefined;
    }
    return undefined;
  }

  private textOf(e: Expr): string {
    switch (e.k) {
      case "str":
        return e.parts
          .map((p) => (typeof p === "string" ? p : this.text(parseExpression(p.expr, this.program))))
          .join("");
      case "id": {
        const v = this.program.vars.get(e.name);
        return v && v !== e ? this.text(v) : UNKNOWN;
      }
      case "bin":
        if (e.op === "/") return joinPaths([this.text(e.l), this.text(e.r)]);
        if (e.op === "%") {
          const values = this.argv(e.r) ?? [this.text(e.r)];
          return format(this.text(e.l), values, {}, false);
        }
        return this.text(e.l) + this.text(e.r);
      case "member":
        if (ENV_HOLDERS.test(calleePath(e.obj))) return `$${e.name}`;
        if (e.name === "home" && /^(?:Dir|Path)$/.test(calleePath(e.obj))) return "$HOME";
        return UNKNOWN;
      case "index": {
        if (!ENV_HOLDERS.test(calleePath(e.obj))) return UNKNOWN;
        // A bareword subscript is a literal key: $ENV{HOME}.
        return `$${e.key?.k === "id" ? e.key.name : this.text(e.key)}`;
      }
      case "call":
        return this.callText(e);
      default:
        return UNKNOWN;
    }
  }

  /** A module or namespace (`os.path`, `File`), as opposed to a value whose method is called. */
  isNamespace(e: Expr): boolean {
    if (e.k === "member") return this.isNamespace(e.obj);
    if (e.k === "id") return !this.program.vars.has(e.name);
    return e.k === "call" && /^(?:require|__import__|import_module|import)$/.test(calleeName(e.callee) ?? "");
  }

  private callText(c: Call): string {
    const name = calleeName(c.callee, this);
    const obj = c.callee.k === "member" ? c.callee.obj : undefined;
    const arg = (i: number): string => this.text(c.args[i]);
    if (name === undefined) return UNKNOWN;
    if (
      name === "getenv" ||
      (name === "get" && obj && ENV_HOLDERS.test(calleePath(obj))) ||
      (name === "fetch" && obj && calleePath(obj) === "ENV")
    )
      return `$${arg(0)}`;
    if (name === "home" || name === "homedir" || name === "gethome") return "$HOME";
    if (name === "join" && obj && (obj.k === "str" || obj.k === "list" || obj.k === "id")) {
      if (obj.k === "str") return (this.argv(c.args[0]) ?? [arg(0)]).join(this.text(obj));
      const items = this.argv(obj);
      if (items) return items.join(c.args.length > 0 ? arg(0) : ",");
    }
    if (name === "joinpath" && obj) return joinPaths([this.text(obj), ...c.args.map((a) => this.text(a))]);
    if (PATH_JOINS.test(name)) {
      const parts = c.args.map((a) => this.text(a));
      if (obj && !this.isNamespace(obj) && IDENTITY_METHODS.test(name)) return this.text(obj);
      return parts.length > 0 ? joinPaths(name === "expand_path" ? parts.slice(0, 1) : parts) : UNKNOWN;
    }
    if (IDENTITY_METHODS.test(name)) return obj && !this.isNamespace(obj) ? this.text(obj) : arg(0);
    if (name === "str" || name === "String" || name === "new") return c.args.length === 1 ? arg(0) : UNKNOWN;
    if (BASE64.test(name)) return decode(arg(0), "base64");
    if (HEX.test(name)) return decode(arg(0), "hex");
    if (name === "from" && obj && calleePath(obj) === "Buffer") {
      const enc = c.args.length > 1 ? arg(1) : "utf8";
      return enc === "base64" || enc === "hex" ? decode(arg(0), enc) : arg(0);
    }
    if (name === "format" && obj?.k === "str") {
      const named: Record<string, string> = {};
      for (const [k, v] of Object.entries(c.kw)) named[k] = this.text(v);
      return format(
        this.text(obj),
        c.args.map((a) => this.text(a)),
        named,
        true,
      );
    }
    if (name === "sprintf" || name === "format")
      return format(
        arg(0),
        c.args.slice(1).map((a) => this.text(a)),
        {},
        false,
      );
    return UNKNOWN;
  }
}
