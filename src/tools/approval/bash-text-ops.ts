import type { Node } from "web-tree-sitter";
import { unescapes } from "./text-codecs.js";

/**
 * The text operations of bash word expansion, on words "encoded" so that characters which came
 * from quotes or expansions (and so are literal) cannot be mistaken for syntax: brace expansion,
 * globs for `${x#pat}` / `${x/pat/rep}`, and the other `${x OP ...}` transformations.
 */

const MAX_BRACE = 256;
/** Longest value a pattern operation is run on (keeps backtracking bounded). */
const MAX_PATTERN_VALUE = 256;
const MAX_PATTERN_STARS = 3;

// While a word is expanded, characters that came from quotes or expansions are kept apart from
// the ones brace expansion and globbing act on by mapping them into a private-use range.
export const PROTECT: Record<string, string> = {
  "{": "\uE000",
  "}": "\uE001",
  ",": "\uE002",
  "*": "\uE003",
  "?": "\uE004",
  "[": "\uE005",
};
const UNPROTECT: Record<string, string> = Object.fromEntries(Object.entries(PROTECT).map(([k, v]) => [v, k]));
/** Field separator produced by IFS characters of an unquoted expansion. */
export const SPLIT = "\uE006";
/** Marks a quoted part so that an empty quoted word still makes a field. */
export const KEEP = "\uE007";
const PRIVATE = /[\uE000-\uE007]/g;

export const sanitize = (t: string): string => t.replace(PRIVATE, "\uFFFD");
export const protect = (t: string): string => sanitize(t).replace(/[{},*?[]/g, (c) => PROTECT[c]!);
export const quoted = (t: string): string => KEEP + protect(t);
export const decode = (t: string): string =>
  t.replace(/[\uE000-\uE005]/g, (c) => UNPROTECT[c]!).replace(/[\uE006\uE007]/g, "");

/** One operator of `${name OP operand}` with the nodes of its operand. */
export interface Op {
  op: string;
  nodes: Node[];
}

/** A glob (encoded: protected characters are literal) as a regular-expression source. */
function globSource(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) out += escapeRe(decode(glob[++i]!));
    else if (c === "*") out += "[\\s\\S]*";
    else if (c === "?") out += "[\\s\\S]";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close < 0) out += "\\[";
      else {
        const body = glob.slice(i + 1, close).replace(/^!/, "^");
        out += `[${body.replace(/[\\\]]/g, "\\$&")}]`;
        i = close;
      }
    } else out += escapeRe(decode(c));
  }
  return out;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

function trim(value: string, glob: string, fromStart: boolean, longest: boolean): string {
  const re = new RegExp(`^(?:${globSource(glob)})$`);
  const n = value.length;
  for (let k = 0; k <= n; k++) {
    const len = longest ? n - k : k;
    const piece = fromStart ? value.slice(0, len) : value.slice(n - len);
    if (re.test(piece)) return fromStart ? value.slice(len) : value.slice(0, n - len);
  }
  return value;
}

/** Applies one `${name OP ...}` to a known value; undefined when the result cannot be known. */
export function transform(
  value: string,
  ops: readonly Op[],
  pieces: (o: Op) => string | undefined,
): string | undefined {
  try {
    return applyOps(value, ops, pieces);
  } catch {
    // A pattern bash accepts but JavaScript does not (`[z-a]`): the result is unknown.
    return undefined;
  }
}

function applyOps(
  value: string,
  ops: readonly Op[],
  pieces: (o: Op) => string | undefined,
): string | undefined {
  const [first, second] = ops;
  if (!first) return undefined;
  const arg = pieces(first);
  const patterned = /^(?:#|##|%|%%|\/|\/\/|\/#|\/%)$/.test(first.op);
  if (
    patterned &&
    (value.length > MAX_PATTERN_VALUE || (arg?.split("*").length ?? 0) > MAX_PATTERN_STARS + 1)
  )
    return undefined;
  switch (first.op) {
    case "#":
    case "##":
    case "%":
    case "%%":
      return arg === undefined ? undefined : trim(value, arg, first.op[0] === "#", first.op.length === 2);
    case "/":
    case "//":
    case "/#":
    case "/%": {
      const rep = second ? pieces(second) : "";
      if (arg === undefined || rep === undefined) return undefined;
      const anchor = first.op === "/#" ? "^" : "";
      const end = first.op === "/%" ? "$" : "";
      const re = new RegExp(`${anchor}(?:${globSource(arg)})${end}`, first.op === "//" ? "g" : "");
      return value.replace(re, () => decode(rep));
    }
    case ":": {
      const offset = Number((first.nodes.map((n) => n.text).join("") || "0").trim());
      const length = second
        ? Number(
            second.nodes
              .map((n) => n.text)
              .join("")
              .trim(),
          )
        : undefined;
      if (!Number.isInteger(offset) || (length !== undefined && !Number.isInteger(length))) return undefined;
      const start = offset < 0 ? Math.max(0, value.length + offset) : offset;
      if (length === undefined) return value.slice(start);
      return length < 0 ? value.slice(start, value.length + length) : value.slice(start, start + length);
    }
    case "^^":
      return value.toUpperCase();
    case ",,":
      return value.toLowerCase();
    case "^":
      return value.charAt(0).toUpperCase() + value.slice(1);
    case ",":
      return value.charAt(0).toLowerCase() + value.slice(1);
    case "@":
      if (second?.op === "U") return value.toUpperCase();
      if (second?.op === "L") return value.toLowerCase();
      if (second?.op === "u") return value.charAt(0).toUpperCase() + value.slice(1);
      if (second?.op === "E") return unescapes(value, "ansi").text;
      if (second?.op === "Q") return `'${value.replace(/'/g, "'\\''")}'`;
      return undefined;
    default:
      return undefined;
  }
}

/** `{a,b}` and `{1..3}` expansion of unprotected braces. */
export function braceExpand(word: string, out: string[] = []): string[] {
  if (out.length >= MAX_BRACE) return out;
  for (let i = 0; i < word.length; i++) {
    if (word[i] !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i; j < word.length; j++) {
      const c = word[j];
      if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        close = j;
        break;
      } else if (c === "," && depth === 1) commas.push(j);
    }
    if (close < 0) break;
    const head = word.slice(0, i);
    const tail = word.slice(close + 1);
    if (commas.length > 0) {
      const bounds = [i, ...commas, close];
      for (let k = 0; k + 1 < bounds.length; k++)
        braceExpand(head + word.slice(bounds[k]! + 1, bounds[k + 1]) + tail, out);
      return out;
    }
    const seq = sequenceItems(word.slice(i + 1, close));
    if (seq) {
      for (const item of seq) braceExpand(head + item + tail, out);
      return out;
    }
  }
  out.push(word);
  return out;
}

function sequenceItems(inner: string): string[] | undefined {
  const m = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/.exec(inner);
  if (!m) return undefined;
  const numeric = /\d/.test(m[1]!);
  if (numeric !== /\d/.test(m[2]!)) return undefined;
  const from = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const to = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.abs(Number(m[3] ?? 1)) || 1;
  const items: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    items.push(numeric ? String(v) : String.fromCharCode(v));
    if (items.length >= MAX_BRACE) break;
  }
  return items;
}
