import type { Node } from "web-tree-sitter";
import {
  continuation,
  type FileRedirect,
  heredoc,
  type Redirections,
  redirections,
} from "./bash-redirects.js";
import { newSink, raw, type Sink } from "./bash-state.js";
import { expandFields, type ShellState, type WordHost, wordParts } from "./bash-words.js";
import { type RawCommand, type RawScript, type Redirect, SUBSTITUTION } from "./shell-parse.js";
import { isComputed, pipeOutput } from "./static-text.js";
import { fromBinary } from "./text-codecs.js";
import { basename, isComputedName, programFlag, SHELLS, stripWrappers } from "./wrappers.js";

/**
 * Simple commands, pipelines and redirected statements of the bash grammar's tree, turned into
 * the raw commands the screening checks. A word with several possible values makes one command
 * per combination (capped: past the cap, such words count as computed at run time). Files the
 * script writes with known text are remembered, so that running them later is screened too.
 */

const MAX_VARIANTS = 16;
/** Pipeline stages whose piped-in text is worked out. */
const MAX_PIPED_STAGES = 16;

/** What the command helpers need from the walker. */
export interface Walk extends WordHost {
  readonly src: string;
  statement(node: Node, maybe: boolean, sink: Sink): void;
  /** Runs `fn` with a fresh list for the substitutions it meets, and returns that list. */
  collect(fn: () => void): RawScript[];
  /** The known output of a `<(...)` already walked. */
  output(node: Node): string | undefined;
  /** `name=value` as a word; applied to the shell when `apply`. */
  assignment(node: Node, maybe: boolean, apply: boolean): string;
  /** What the command changes in the shell (variables, functions it calls, eval'd text). */
  effects(cmd: RawCommand, maybe: boolean, sink: Sink): void;
}

/** Redirections, here-documents and arguments that the grammar attaches around a command. */
interface Extra {
  redirects: Node[];
  stdin: string[];
  args: Node[];
  /** Substitutions met in here-document bodies. */
  subs: RawScript[];
}

const NO_EXTRA: Extra = { redirects: [], stdin: [], args: [], subs: [] };

/** Makes one command per combination of word and redirection alternatives. */
export function emit(
  words: readonly string[][][],
  redirects: readonly FileRedirect[],
  stdin: string[],
  subs: RawScript[],
  sink: Sink,
): RawCommand[] {
  const total = [...words.map((w) => w.length), ...redirects.map((r) => r.alts.length)].reduce(
    (a, b) => a * b,
    1,
  );
  const collapse = total > MAX_VARIANTS;
  let combos: { words: string[]; redirects: Redirect[] }[] = [{ words: [], redirects: [] }];
  for (const alts of words) {
    const use = collapse && alts.length > 1 ? [[SUBSTITUTION]] : alts;
    combos = combos.flatMap((c) => use.map((f) => ({ words: [...c.words, ...f], redirects: c.redirects })));
  }
  for (const r of redirects) {
    const use = collapse && r.alts.length > 1 ? [SUBSTITUTION] : r.alts;
    combos = combos.flatMap((c) =>
      use.map((target) => ({ words: c.words, redirects: [...c.redirects, { op: r.op, target }] })),
    );
  }
  if (combos.length === 0) combos = [{ words: [], redirects: [] }];
  const first = raw(combos[0]!.words, subs, combos[0]!.redirects, stdin);
  const out = [first];
  // Other readings share the first one's place in a pipeline.
  for (const c of combos.slice(1)) out.push({ ...raw(c.words, subs, c.redirects, stdin), pipe: [first] });
  sink.commands.push(...out);
  return out;
}

function alias(w: Walk, node: Node): string[][] {
  const value = w.state.aliases.get(node.text) ?? "";
  return /^[\w.-]+$/.test(node.text) ? [value.split(/\s+/).filter(Boolean)] : expandFields(w, w.src, node);
}

export function command(w: Walk, node: Node, maybe: boolean, sink: Sink, extra: Extra = NO_EXTRA): void {
  const words: string[][][] = [];
  const procSubs: Node[] = [];
  let redirs: Redirections = { redirects: [], stdin: [] };
  const subs = w.collect(() => {
    const redirectNodes: Node[] = [...extra.redirects];
    const wordNodes: Node[] = [];
    node.children.forEach((c, i) => {
      if (!c?.isNamed) return;
      const field = node.fieldNameForChild(i);
      if (field === "redirect") redirectNodes.push(c);
      else if (c.type === "variable_assignment") words.push([[w.assignment(c, maybe, false)]]);
      else if (field === "name" && w.state.aliases.has(c.text)) words.push(alias(w, c));
      else {
        if (c.type === "process_substitution") procSubs.push(c);
        wordNodes.push(c);
      }
    });
    wordNodes.push(...extra.args);
    // Nodes with no space between them are one shell word, however the grammar split them.
    const groups: Node[][] = [];
    for (const n of wordNodes) {
      const last = groups.at(-1);
      if (last && last.at(-1)!.endIndex === n.startIndex) last.push(n);
      else groups.push([n]);
    }
    for (const g of groups) words.push(expandFields(w, w.src, g.length === 1 ? g[0]! : g.flatMap(wordParts)));
    redirs = redirections(w, w.src, redirectNodes);
  });
  const procOut = procSubs.map((p) => w.output(p)).filter((o): o is string => o !== undefined);
  const variants = emit(
    words,
    redirs.redirects,
    [...extra.stdin, ...redirs.stdin],
    [...extra.subs, ...subs],
    sink,
  );
  for (const v of variants) {
    const scripts = scriptsRun(w.state, v, procOut);
    if (scripts.length > 0) v.scripts = scripts;
  }
  recordWrites(w.state, variants[0]!);
  for (const v of variants.slice(0, 4)) w.effects(v, maybe || variants.length > 1, sink);
}

const fileKey = (path: string): string => path.replace(/^(?:\.\/)+/, "");

/** Scripts a command runs whose text is known: `<(...)` given to a shell, a file written earlier. */
function scriptsRun(state: ShellState, cmd: RawCommand, procOut: readonly string[]): string[] {
  const [program = "", ...args] = stripWrappers(cmd.words).words;
  const name = basename(program);
  const out: string[] = [];
  const executed = state.files.get(fileKey(program));
  if (executed !== undefined) out.push(executed);
  const runner =
    SHELLS.has(name) || name === "source" || name === "." || isComputedName(name) || programFlag(name);
  if (!runner) return out;
  out.push(...procOut);
  const file = args.find((a) => !a.startsWith("-"));
  const inline = args.some((a) => /^-[a-zA-Z]*[ce]$/.test(a));
  const content = file === undefined || inline ? undefined : state.files.get(fileKey(file));
  if (content !== undefined) out.push(content);
  return out;
}

/** Remembers what a command writes to files (`> f`, `>> f`, `tee f`) when the text is known. */
function recordWrites(state: ShellState, cmd: RawCommand): void {
  const [program = "", ...args] = stripWrappers(cmd.words).words;
  const tee = basename(program) === "tee";
  const targets = cmd.redirects
    .filter((r) => r.op === ">" || r.op === ">>")
    .map((r) => ({ path: r.target, append: r.op === ">>" }));
  if (tee)
    for (const p of args.filter((a) => !a.startsWith("-")))
      targets.push({ path: p, append: args.includes("-a") });
  if (targets.length === 0) return;
  const written = tee
    ? cmd.stdin.length > 0
      ? cmd.stdin.map((t) => `${t}\n`).join("")
      : undefined
    : pipeOutput([{ ...cmd, redirects: [] }]);
  const text = written === undefined || tee ? written : fromBinary(written);
  for (const t of targets) {
    if (isComputed(t.path)) continue;
    const key = fileKey(t.path);
    if (text === undefined) state.files.delete(key);
    else state.files.set(key, t.append ? (state.files.get(key) ?? "") + text : text);
  }
}

/**
 * Walks each stage; every command a stage produces is placed at that stage, the first one
 * standing for it in the pipe. Text known to flow into a stage is recorded as its stdin.
 */
export function pipeline(w: Walk, stages: readonly ((s: Sink) => void)[], sink: Sink): void {
  const pipe: RawCommand[] = [];
  const alone: boolean[] = [];
  stages.forEach((walk, k) => {
    const s = newSink();
    walk(s);
    let rep: RawCommand | undefined;
    for (const c of s.commands) {
      if (c.pipe.length > 1) continue;
      if (!rep) {
        rep = c;
        pipe.push(c);
      }
      c.stage = k;
      c.pipe = pipe;
    }
    if (!rep) {
      rep = { words: [], redirects: [], stdin: [], substitutions: [], stage: k, pipe };
      pipe.push(rep);
      s.commands.push(rep);
    }
    alone.push(s.commands.length === 1);
    if (!s.simple) sink.simple = false;
    sink.commands.push(...s.commands);
  });
  const last = Math.min(pipe.length, MAX_PIPED_STAGES);
  for (let k = 1; k < last && alone.slice(0, k).every(Boolean); k++) {
    if (pipe[k]!.stdin.length > 0) break;
    const out = pipeOutput(pipe.slice(0, k));
    if (out === undefined) break;
    pipe[k]!.stdin.push(fromBinary(out));
    recordWrites(w.state, pipe[k]!);
  }
}

export function redirected(w: Walk, node: Node, maybe: boolean, sink: Sink): void {
  const body = node.childForFieldName("body");
  const extra: Extra = { redirects: [], stdin: [], args: [], subs: [] };
  let tail: Node | undefined;
  const after: Node[] = [];
  extra.subs = w.collect(() => {
    node.children.forEach((c, i) => {
      if (!c || c.id === body?.id || !c.isNamed) return;
      if (c.type === "heredoc_redirect") {
        const h = heredoc(w, w.src, c);
        if (h.text !== undefined) extra.stdin.push(h.text);
        extra.args.push(...h.args);
        extra.redirects.push(...h.redirects);
        after.push(...h.after);
        tail = h.pipe ?? tail;
      } else if (node.fieldNameForChild(i) === "redirect" || c.type === "herestring_redirect")
        extra.redirects.push(c);
    });
  });
  const first = (s: Sink, m: boolean): void => {
    if (body?.type === "command") {
      command(w, body, m, s, extra);
      return;
    }
    // `a | b > f`: the redirections belong to the last stage.
    const stages = body?.type === "pipeline" ? body.namedChildren.filter((c): c is Node => c !== null) : [];
    const last = stages.at(-1);
    if (last?.type === "command") {
      const walks = stages.slice(0, -1).map((st) => (x: Sink) => w.statement(st, true, x));
      pipeline(w, [...walks, (x) => command(w, last, true, x, extra)], s);
      return;
    }
    // A redirected block (`{ ...; } > f`, `while ...; done < f`): one bare command holds the redirections.
    if (body) w.statement(body, m, s);
    let r: Redirections = { redirects: [], stdin: [] };
    const subs = w.collect(() => {
      r = redirections(w, w.src, extra.redirects);
    });
    const redirects = r.redirects.map((x) => ({ op: x.op, target: x.alts[0] ?? "" }));
    s.commands.push(raw([], [...extra.subs, ...subs], redirects, [...extra.stdin, ...r.stdin]));
  };
  if (tail) {
    const { stages, rest } = continuation(tail);
    pipeline(w, [(s) => first(s, true), ...stages.map((st) => (s: Sink) => w.statement(st, true, s))], sink);
    for (const r of rest) w.statement(r, true, sink);
  } else first(sink, maybe);
  for (const a of after) w.statement(a, true, sink);
}

/** Node types that are statements of their own. */
export const STATEMENTS: ReadonlySet<string> = new Set([
  "command",
  "redirected_statement",
  "pipeline",
  "list",
  "negated_command",
  "subshell",
  "compound_statement",
  "if_statement",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "function_definition",
  "variable_assignment",
  "variable_assignments",
  "declaration_command",
  "unset_command",
  "test_command",
  "comment",
  "ERROR",
]);
const WORDISH = new Set([
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "command_name",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "number",
  "brace_expression",
  "arithmetic_expansion",
  "{",
  "}",
]);

/** Error recovery: statements inside are walked, runs of adjacent words make commands. */
export function recover(w: Walk, node: Node, sink: Sink): void {
  let pending: Node[][] = [];
  let lastEnd = node.startIndex;
  const flush = (): void => {
    if (pending.length === 0) return;
    const groups = pending;
    pending = [];
    let words: string[][][] = [];
    const subs = w.collect(() => {
      words = groups.map((g) => expandFields(w, w.src, g));
    });
    emit(words, [], [], subs, sink);
  };
  for (const c of node.children) {
    if (!c) continue;
    if (STATEMENTS.has(c.type)) {
      flush();
      w.statement(c, true, sink);
    } else if (WORDISH.has(c.type)) {
      if (pending.length > 0 && c.startIndex === lastEnd) pending.at(-1)!.push(c);
      else {
        if (w.src.slice(lastEnd, c.startIndex).includes("\n")) flush();
        pending.push([c]);
      }
    } else flush();
    lastEnd = c.endIndex;
  }
  flush();
}
