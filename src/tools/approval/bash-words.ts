import type { Node } from "web-tree-sitter";
import {
  braceExpand,
  decode,
  KEEP,
  type Op,
  PROTECT,
  protect,
  quoted,
  SPLIT,
  sanitize,
  transform,
} from "./bash-text-ops.js";
import { SUBSTITUTION } from "./shell-parse.js";
import { unescapes } from "./text-codecs.js";

/**
 * Word expansion over the bash grammar's tree, done statically the way bash would: quotes and
 * escapes removed, `$'...'` decoded, variables assigned earlier in the script substituted
 * (`${x:-y}`, `${x/a/b}`, `${x%?}`, `${!x}`, arrays), command substitutions replaced by their
 * output when it is known, IFS splitting of unquoted expansions, and brace expansion. A value that
 * cannot be known stays visible: `$NAME` for a variable from the environment, SUBSTITUTION for
 * anything computed at run time. Variables may hold several possible values (assigned in a branch
 * or a loop); a word then has several alternatives, each a list of fields.
 */

export interface Var {
  /** Possible values; `undefined` = unknown (from the environment or computed at run time). */
  alts: readonly (string | undefined)[];
  array?: readonly string[];
}

export interface ShellState {
  vars: Map<string, Var>;
  /** `$1`, `$@`...; undefined when unknown (top level, or a function body walked without a call). */
  positional: readonly string[] | undefined;
  functions: Map<string, Node>;
  aliases: Map<string, string>;
  /** Files written earlier in the script with known content (`echo ... > x.sh`, `cat > x.sh <<EOF`). */
  files: Map<string, string>;
}

export interface WordHost {
  readonly state: ShellState;
  /** Screens a `$(...)`, backtick or `<(...)` body; returns its output when it is known statically. */
  substitute(node: Node): string | undefined;
}

/** Most alternatives kept for one word or variable; past it the value counts as computed. */
export const MAX_ALTS = 16;

interface Ctx {
  /** Inside double quotes. */
  q: boolean;
  /** Unquoted expansions are split on IFS (false in assignments, redirections, here-strings). */
  split: boolean;
}

function ifsOf(state: ShellState): string {
  const v = state.vars.get("IFS");
  const known = v?.alts.find((a) => a !== undefined);
  return v === undefined ? " \t\n" : (known ?? " \t\n");
}

/** The text of an expansion's result as it enters the word. */
function encodeValue(value: string, ctx: Ctx, state: ShellState): string {
  if (ctx.q) return quoted(value);
  if (!ctx.split) return protect(value);
  // Unquoted: IFS characters split fields; globs still apply, brace expansion does not.
  const ifs = ifsOf(state);
  return [...sanitize(value)]
    .map((c) => (ifs.includes(c) ? SPLIT : PROTECT[c] && "{},".includes(c) ? PROTECT[c] : c))
    .join("");
}

const unknown = (text: string, ctx: Ctx): string => (ctx.q ? quoted(text) : protect(text));

/** Every concatenation of an alternative of `a` with one of `b`; collapses to "computed" past the cap. */
function product(a: readonly string[], b: readonly string[]): string[] {
  if (a.length * b.length > MAX_ALTS) return [protect(SUBSTITUTION)];
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return [...new Set(out)];
}

const kids = (node: Node): Node[] => node.children.filter((c): c is Node => c !== null);

/** Removes backslash escapes from an unquoted word; escaped characters are literal. */
function unquotedWord(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "\\") out += sanitize(c);
    else if (text[i + 1] === "\n") i++;
    else if (i + 1 < text.length) out += protect(text[++i]!);
  }
  return out;
}

/** Inside double quotes a backslash only escapes `$`, backtick, `"`, `\` and newline. */
const doubleQuotedText = (text: string): string =>
  text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));

/** Concatenates the parts of `children`, source text between them included (as literal text). */
function sequence(host: WordHost, src: string, children: readonly Node[], ctx: Ctx, from?: number): string[] {
  let alts = [""];
  let pos = from ?? children[0]?.startIndex ?? 0;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.startIndex > pos) {
      const gap = src.slice(pos, child.startIndex);
      alts = product(alts, [ctx.q ? quoted(doubleQuotedText(gap)) : unquotedWord(gap)]);
    }
    // The grammar sometimes leaves `$NAME` as a lone `$` followed by a word (`rm$IFS-rf$IFS/`).
    const next = children[i + 1];
    const split = child.type === "$" && next?.type === "word" && next.startIndex === child.endIndex;
    const name = split ? /^(?:[A-Za-z_]\w*|[0-9@*#?$!-])/.exec(next.text)?.[0] : undefined;
    if (name && next) {
      alts = product(alts, parameter(host, src, name, [], undefined, ctx));
      alts = product(alts, [
        ctx.q
          ? quoted(doubleQuotedText(next.text.slice(name.length)))
          : unquotedWord(next.text.slice(name.length)),
      ]);
      pos = next.endIndex;
      i++;
      continue;
    }
    alts = product(alts, parts(host, src, child, ctx));
    pos = child.endIndex;
  }
  return alts;
}

/** The pieces of a word, concatenations opened up (to join pieces the grammar left apart). */
export const wordParts = (node: Node): Node[] =>
  node.type === "concatenation" || node.type === "command_name" ? kids(node).flatMap(wordParts) : [node];

/** Screens the substitutions nested anywhere under `node` (their output is not used). */
export function screenInner(host: WordHost, node: Node): void {
  for (const c of kids(node)) {
    if (c.type === "command_substitution" || c.type === "process_substitution") host.substitute(c);
    else if (c.childCount > 0) screenInner(host, c);
  }
}

/** Alternatives of the encoded text of one node of a word. */
function parts(host: WordHost, src: string, node: Node, ctx: Ctx): string[] {
  const text = node.text;
  switch (node.type) {
    case "word":
      return [ctx.q ? quoted(doubleQuotedText(text)) : unquotedWord(text)];
    case "raw_string":
      return [quoted(text.slice(1, -1))];
    case "ansi_c_string":
      return [quoted(unescapes(text.slice(2, -1), "ansi").text)];
    case "string_content":
      return [quoted(doubleQuotedText(text))];
    case "heredoc_content":
      return [quoted(text.replace(/\\([$`\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c)))];
    case "string": {
      const inner = kids(node).filter((c) => c.type !== '"');
      const open = node.startIndex + (text.startsWith('$"') ? 2 : 1);
      const end = node.endIndex - 1;
      const body = sequence(host, src, inner, { q: true, split: ctx.split }, open);
      const last = inner.at(-1)?.endIndex ?? open;
      const tail = last < end ? quoted(doubleQuotedText(src.slice(last, end))) : "";
      return product(body, [KEEP + tail]);
    }
    case "translated_string":
      return kids(node)
        .filter((c) => c.type === "string")
        .flatMap((c) => parts(host, src, c, ctx));
    case "simple_expansion":
      return parameter(host, src, node.lastChild?.text ?? "", [], undefined, ctx);
    case "expansion":
      return expansion(host, src, node, ctx);
    case "command_substitution": {
      const out = host.substitute(node);
      if (out === undefined) return [unknown(SUBSTITUTION, ctx)];
      return [encodeValue(out.replace(/\n+$/, ""), ctx, host.state)];
    }
    case "process_substitution":
      host.substitute(node);
      return [unknown(SUBSTITUTION, ctx)];
    case "concatenation":
    case "command_name":
      return sequence(host, src, kids(node), ctx);
    default:
      if (node.namedChildCount > 0 && node.type !== "brace_expression") {
        screenInner(host, node);
        return [ctx.q ? quoted(text) : protect(text)];
      }
      return [ctx.q ? quoted(text) : sanitize(text)];
  }
}

interface Lookup {
  alts: readonly (string | undefined)[];
  /** `$@` / `${a[@]}`: the separate fields when known. */
  fields?: readonly string[];
}

function lookup(state: ShellState, name: string, index?: string): Lookup {
  if (/^\d+$/.test(name)) {
    const n = Number(name);
    if (n === 0 || !state.positional) return { alts: [undefined] };
    return { alts: [state.positional[n - 1] ?? ""] };
  }
  if (name === "@" || name === "*") {
    return state.positional
      ? { alts: [state.positional.join(" ")], fields: state.positional }
      : { alts: [undefined] };
  }
  if (name === "#") return { alts: [state.positional ? String(state.positional.length) : undefined] };
  if (!/^[A-Za-z_]\w*$/.test(name)) return { alts: [undefined] };
  const v = state.vars.get(name);
  if (name === "IFS" && !v) return { alts: [" \t\n"] };
  if (!v) return { alts: [undefined] };
  if (index === undefined || index === "0") return { alts: v.alts };
  if (index === "@" || index === "*")
    return v.array ? { alts: [v.array.join(" ")], fields: v.array } : { alts: v.alts };
  if (/^\d+$/.test(index) && v.array) return { alts: [v.array[Number(index)] ?? ""] };
  return { alts: [undefined] };
}

/** `${...}`: prefix (`#`, `!`), name (or `name[index]`), then operators with their operands. */
function expansion(host: WordHost, src: string, node: Node, ctx: Ctx): string[] {
  const children = kids(node).filter((c) => c.type !== "${" && c.type !== "}");
  let prefix = "";
  let i = 0;
  if (children[0] && !children[0].isNamed && (children[0].type === "!" || children[0].type === "#")) {
    prefix = children[0].type;
    i = 1;
  }
  const nameNode = children[i];
  if (!nameNode) return [unknown(SUBSTITUTION, ctx)];
  let name = nameNode.text;
  let index: string | undefined;
  if (nameNode.type === "subscript") {
    name = nameNode.childForFieldName("name")?.text ?? "";
    index = nameNode.childForFieldName("index")?.text;
  }
  const ops: Op[] = [];
  const all = node.children;
  const start = all.findIndex((c) => c !== null && c.startIndex >= nameNode.endIndex);
  for (let k = start < 0 ? all.length : start; k < all.length; k++) {
    const c = all[k];
    if (!c || c.type === "}") continue;
    if (node.fieldNameForChild(k) === "operator" || !c.isNamed) ops.push({ op: c.text, nodes: [] });
    else if (ops.length > 0) ops.at(-1)!.nodes.push(c);
  }
  return parameter(host, src, name, ops, { prefix, index }, ctx);
}

/** Encoded alternatives of an operand (default value, pattern, replacement). */
function operand(host: WordHost, src: string, nodes: readonly Node[], ctx: Ctx): string[] {
  return nodes.length === 0 ? [ctx.q ? KEEP : ""] : sequence(host, src, nodes, ctx);
}

const DEFAULTS = new Set([":-", "-", ":=", "=", ":+", "+", ":?", "?"]);

/** Encoded alternatives of `$name` / `${prefix name[index] ops}`. */
function parameter(
  host: WordHost,
  src: string,
  name: string,
  ops: readonly Op[],
  extra: { prefix: string; index: string | undefined } | undefined,
  ctx: Ctx,
): string[] {
  const state = host.state;
  const shown = `$${name}`;
  let found = lookup(state, name, extra?.index);
  if (extra?.prefix === "!") {
    // ${!x}: the variable whose name x holds.
    if (ops.length > 0 || extra.index === "@" || extra.index === "*") return [unknown(SUBSTITUTION, ctx)];
    const targets = found.alts.map((a) => (a !== undefined && /^[A-Za-z_]\w*$/.test(a) ? a : undefined));
    const alts = targets.flatMap((t) => (t === undefined ? [undefined] : lookup(state, t).alts));
    found = { alts: [...new Set(alts)] };
  }
  if (extra?.prefix === "#") {
    const lens = found.fields
      ? [String(found.fields.length)]
      : found.alts.map((a) => (a === undefined ? undefined : String([...a].length)));
    return lens.map((l) => (l === undefined ? unknown(SUBSTITUTION, ctx) : encodeValue(l, ctx, state)));
  }
  const first = ops[0];
  if (!first && found.fields) {
    // "$@" makes one field per parameter even inside quotes.
    if (name === "*" && ctx.q) return [quoted(found.fields.join(ifsOf(state).charAt(0)))];
    return [found.fields.map((f) => encodeValue(f, ctx, state)).join(ctx.split ? SPLIT : " ")];
  }
  if (first && DEFAULTS.has(first.op)) {
    const word = operand(host, src, first.nodes, ctx);
    const out: string[] = [];
    for (const v of found.alts) {
      const useWord = first.op.startsWith(":") ? v === "" : false;
      if (first.op.endsWith("+")) {
        if (v === undefined) out.push(ctx.q ? KEEP : "", ...word);
        else out.push(...(v !== "" || first.op === "+" ? word : [ctx.q ? KEEP : ""]));
      } else if (v === undefined) out.push(unknown(shown, ctx), ...(first.op.endsWith("?") ? [] : word));
      else if (useWord) out.push(...word);
      else out.push(encodeValue(v, ctx, state));
    }
    return [...new Set(out)].slice(0, MAX_ALTS);
  }
  const pieceOf = (o: Op): string | undefined => {
    const alts = operand(host, src, o.nodes, { q: false, split: false });
    return alts.length === 1 ? alts[0] : undefined;
  };
  return [
    ...new Set(
      found.alts.map((v) => {
        if (v === undefined) return unknown(ops.length > 0 ? SUBSTITUTION : shown, ctx);
        if (ops.length === 0) return encodeValue(v, ctx, state);
        const r = transform(v, ops, pieceOf);
        return r === undefined ? unknown(SUBSTITUTION, ctx) : encodeValue(r, ctx, state);
      }),
    ),
  ];
}

/** Splits an encoded word into fields: on SPLIT, keeping empty fields only where quotes made them. */
function fieldsOf(encoded: string): string[] {
  return encoded
    .split(SPLIT)
    .filter((f) => f !== "")
    .map(decode);
}

/**
 * A word as bash would pass it: alternatives, each a list of fields (brace expansion and IFS
 * splitting done). Several adjacent nodes make one word (error recovery).
 */
export function expandFields(host: WordHost, src: string, node: Node | readonly Node[]): string[][] {
  const alts = Array.isArray(node)
    ? sequence(host, src, node, { q: false, split: true })
    : parts(host, src, node as Node, { q: false, split: true });
  const out = new Map<string, string[]>();
  for (const alt of alts) {
    const fields = braceExpand(alt).flatMap(fieldsOf);
    out.set(fields.join("\0"), fields);
  }
  return [...out.values()];
}

/** A here-document body with its expansions done (as in double quotes, without splitting). */
export function expandHeredoc(host: WordHost, src: string, body: Node): string {
  const inner = kids(body);
  if (inner.length === 0) return body.text;
  const alts = sequence(host, src, inner, { q: true, split: false }, body.startIndex);
  const last = inner.at(-1)!.endIndex;
  return decode(alts[0] ?? "") + src.slice(last, body.endIndex);
}

/** A word expanded without splitting (assignments, redirection targets, here-strings). */
export function expandString(host: WordHost, src: string, nodes: readonly Node[]): string[] {
  if (nodes.length === 0) return [""];
  return [...new Set(sequence(host, src, nodes, { q: false, split: false }).map(decode))];
}
