import type { Node, Tree } from "web-tree-sitter";
import { command, pipeline, recover, redirected, STATEMENTS, type Walk } from "./bash-command.js";
import {
  assign,
  assignment,
  builtin,
  forget,
  forgetArithmetic,
  newSink,
  newState,
  raw,
  type Sink,
} from "./bash-state.js";
import { expandFields, type ShellState, screenInner } from "./bash-words.js";
import type { RawCommand, RawScript } from "./shell-parse.js";
import { isComputed, scriptOutput } from "./static-text.js";
import { readsScriptFromStdin, stripWrappers } from "./wrappers.js";

/**
 * Turns the bash grammar's tree into the simple commands the screening checks, in source order,
 * following the script the way bash would: variables, arrays, `set --`, `read <<<`, aliases and
 * functions (a call is walked with its arguments), loops (their values), branches (a value set in
 * one is one possibility), here-documents and pipelines, and `eval` / `source` of text it knows
 * (walked in the same shell). Syntax the grammar had to recover from is walked too.
 */

export const MAX_DEPTH = 6;
const MAX_CALLS = 3;

/** Statements left to walk, shared by the walks of one script (loops and calls walk bodies again). */
export interface Budget {
  left: number;
  /** Set when a statement was skipped (budget spent, or it could not be read): screen the splitter's reading too. */
  incomplete: boolean;
}

const kids = (node: Node): Node[] => node.namedChildren.filter((c): c is Node => c !== null);

export class BashWalker implements Walk {
  readonly state: ShellState;
  private subs: RawScript[] = [];
  private readonly outputs = new Map<number, string | undefined>();
  private calls = 0;
  private nesting = 0;

  constructor(
    readonly src: string,
    private readonly depth: number,
    private readonly reparse: (src: string) => Tree | null,
    private readonly budget: Budget,
    state?: ShellState,
  ) {
    this.state = state ?? newState();
    // The terminal runs a command as `bash -c COMMAND`: its positional parameters are empty
    // (`sed$IFS$9-i` is `sed -i`). Nested scripts (`sh -c '...' _ ARGS`) keep them unknown.
    if (!state && depth === 0) this.state.positional = [];
  }

  program(root: Node): RawScript {
    const sink = newSink();
    this.statements(root, false, sink);
    return { commands: sink.commands, simple: sink.simple };
  }

  substitute(node: Node): string | undefined {
    const script: RawScript = { commands: [], simple: true };
    this.subs.push(script);
    if (this.nesting >= MAX_DEPTH) return undefined;
    const sink = newSink();
    this.nesting++;
    try {
      this.statements(node, true, sink);
    } finally {
      this.nesting--;
    }
    script.commands = sink.commands;
    script.simple = sink.simple;
    const out = scriptOutput(script);
    this.outputs.set(node.id, out);
    return out;
  }

  output(node: Node): string | undefined {
    return this.outputs.get(node.id);
  }

  collect(fn: () => void): RawScript[] {
    const subs: RawScript[] = [];
    const saved = this.subs;
    this.subs = subs;
    try {
      fn();
    } finally {
      this.subs = saved;
    }
    return subs;
  }

  assignment(node: Node, maybe: boolean, apply: boolean): string {
    return assignment(this, this.src, node, maybe, apply);
  }

  private statements(node: Node, maybe: boolean, sink: Sink): void {
    for (const c of kids(node)) {
      if (STATEMENTS.has(c.type)) this.statement(c, maybe, sink);
      else if (c.type !== "heredoc_body") {
        // `$(< file)` and the like: output unknown, substitutions still screened.
        sink.simple = false;
        sink.commands.push(
          raw(
            [],
            this.collect(() => screenInner(this, c)),
          ),
        );
      }
    }
  }

  statement(node: Node, maybe: boolean, sink: Sink): void {
    if (--this.budget.left < 0) {
      this.budget.incomplete = true;
      return;
    }
    if (!/^(?:command|pipeline|redirected_statement|variable_assignment|comment)$/.test(node.type))
      sink.simple = false;
    // One statement that cannot be read must not hide the others from the screening.
    try {
      this.dispatch(node, maybe, sink);
    } catch {
      this.budget.incomplete = true;
      sink.simple = false;
    }
  }

  private dispatch(node: Node, maybe: boolean, sink: Sink): void {
    switch (node.type) {
      case "comment":
        return;
      case "command":
        command(this, node, maybe, sink);
        return;
      case "redirected_statement":
        redirected(this, node, maybe, sink);
        return;
      case "pipeline":
        pipeline(
          this,
          kids(node).map((c) => (s: Sink) => this.statement(c, true, s)),
          sink,
        );
        return;
      case "list": {
        const [first, ...rest] = kids(node);
        if (first) this.statement(first, maybe, sink);
        for (const r of rest) this.statement(r, true, sink);
        return;
      }
      case "negated_command":
        this.statements(node, maybe, sink);
        return;
      case "do_group":
        this.statements(node, true, sink);
        return;
      case "subshell":
      case "compound_statement":
        if (node.firstChild?.type === "((") this.arithmetic(node, ["(("], sink);
        else this.statements(node, maybe, sink);
        return;
      case "if_statement":
        node.children.forEach((c, i) => {
          if (!c?.isNamed) return;
          if (STATEMENTS.has(c.type))
            this.statement(c, node.fieldNameForChild(i) === "condition" ? maybe : true, sink);
          else this.statements(c, true, sink);
        });
        return;
      case "while_statement":
        this.loop(kids(node), sink);
        return;
      case "for_statement":
        this.forLoop(node, sink);
        return;
      case "c_style_for_statement": {
        const body = node.childForFieldName("body");
        this.arithmetic(node, ["for"], sink, body);
        if (body) this.loop([body], sink);
        return;
      }
      case "case_statement":
        this.caseStatement(node, sink);
        return;
      case "function_definition":
        this.functionDefinition(node, sink);
        return;
      case "variable_assignment":
      case "variable_assignments": {
        const nodes = node.type === "variable_assignment" ? [node] : kids(node);
        const words: string[] = [];
        const subs = this.collect(() => {
          for (const n of nodes) words.push(this.assignment(n, maybe, true));
        });
        sink.commands.push(raw(words, subs));
        return;
      }
      case "declaration_command":
        this.declaration(node, maybe, sink);
        return;
      case "unset_command":
        this.unset(node, maybe, sink);
        return;
      case "ERROR":
        recover(this, node, sink);
        return;
      default:
        sink.commands.push(
          raw(
            node.type === "test_command" ? ["[["] : [],
            this.collect(() => screenInner(this, node)),
          ),
        );
    }
  }

  /** Walks loop bodies twice: values assigned late in one iteration are seen by the next. */
  private loop(nodes: readonly Node[], sink: Sink): void {
    const scratch = newSink();
    for (const n of nodes) this.statement(n, true, scratch);
    for (const n of nodes) this.statement(n, true, sink);
  }

  private forLoop(node: Node, sink: Sink): void {
    const variable = node.childForFieldName("variable")?.text ?? "";
    const hasIn = node.children.some((c) => c?.type === "in");
    const items: string[] = [];
    const subs = this.collect(() => {
      for (const v of node.childrenForFieldName("value")) {
        if (v) for (const fields of expandFields(this, this.src, v)) items.push(...fields);
      }
    });
    sink.commands.push(raw(["for", variable, "in", ...items], subs));
    const positional = this.state.positional ? [...this.state.positional] : [undefined];
    const values = hasIn ? [...new Set(items)] : positional;
    assign(this.state, variable, values.length > 0 ? values : [""], false);
    const body = node.childForFieldName("body");
    if (body) this.loop([body], sink);
  }

  private caseStatement(node: Node, sink: Sink): void {
    const value = node.childForFieldName("value");
    const words = ["case"];
    const subs = this.collect(() => {
      if (value) words.push(...(expandFields(this, this.src, value)[0] ?? []));
    });
    sink.commands.push(raw(words, subs));
    for (const item of kids(node)) {
      if (item.type !== "case_item") continue;
      item.children.forEach((c, i) => {
        if (!c?.isNamed) return;
        if (item.fieldNameForChild(i) === "value")
          sink.commands.push(
            raw(
              [],
              this.collect(() => screenInner(this, c)),
            ),
          );
        else if (STATEMENTS.has(c.type)) this.statement(c, true, sink);
      });
    }
  }

  private functionDefinition(node: Node, sink: Sink): void {
    const body = node.childForFieldName("body");
    if (!body) return;
    this.state.functions.set(node.childForFieldName("name")?.text ?? "", body);
    // The body is screened once as written, whether or not it is called.
    const saved = this.state.positional;
    this.state.positional = undefined;
    try {
      this.statement(body, true, sink);
    } finally {
      this.state.positional = saved;
    }
  }

  /** Arithmetic (`(( ))`, `for ((...))`): variables it assigns become unknown; substitutions are screened. */
  private arithmetic(node: Node, words: string[], sink: Sink, skip?: Node | null): void {
    const subs = this.collect(() => {
      for (const c of kids(node)) if (c.id !== skip?.id) screenInner(this, c);
    });
    forgetArithmetic(this.state, skip ? this.src.slice(node.startIndex, skip.startIndex) : node.text, false);
    sink.commands.push(raw(words, subs));
  }

  private declaration(node: Node, maybe: boolean, sink: Sink): void {
    const words = [node.child(0)?.text ?? "declare"];
    let nameref = false;
    const subs = this.collect(() => {
      for (const c of kids(node)) {
        if (c.type === "variable_assignment") {
          words.push(this.assignment(c, maybe, !nameref));
          if (nameref) assign(this.state, c.childForFieldName("name")?.text ?? "", [undefined], maybe);
        } else if (c.type === "variable_name") words.push(c.text);
        else
          for (const f of expandFields(this, this.src, c)[0] ?? []) {
            words.push(f);
            if (/^-[a-zA-Z]*n/.test(f)) nameref = true;
          }
      }
    });
    sink.commands.push(raw(words, subs));
  }

  private unset(node: Node, maybe: boolean, sink: Sink): void {
    const words = ["unset"];
    const subs = this.collect(() => {
      for (const c of kids(node)) words.push(...(expandFields(this, this.src, c)[0] ?? []));
    });
    const functions = words.includes("-f");
    for (const w of words.slice(1)) {
      if (w.startsWith("-")) continue;
      if (functions) this.state.functions.delete(w);
      else assign(this.state, w, [undefined], maybe);
    }
    sink.commands.push(raw(words, subs));
  }

  effects(cmd: RawCommand, maybe: boolean, sink: Sink): void {
    const fn = this.state.functions.get(cmd.words[0] ?? "");
    if (fn) {
      this.call(fn, cmd.words.slice(1), maybe, sink);
      return;
    }
    const [name = "", ...args] = stripWrappers(cmd.words).words;
    if (name === "eval") {
      // Unknown parts stay unknown when the text is read again, but may assign anything.
      const text = args.join(" ");
      if (!this.inShell(text, maybe, sink) || isComputed(text)) forget(this.state);
    } else if (name === "source" || name === ".") {
      const stdin =
        readsScriptFromStdin(name, args) && cmd.stdin.length > 0 ? cmd.stdin.join("\n") : undefined;
      const text = cmd.scripts?.[0] ?? stdin;
      if (text === undefined || !this.inShell(text, maybe, sink) || isComputed(text)) forget(this.state);
    } else builtin(this.state, name, args, cmd.stdin, maybe);
  }

  private call(body: Node, args: string[], maybe: boolean, sink: Sink): void {
    if (this.calls >= MAX_CALLS) return;
    const saved = this.state.positional;
    this.state.positional = args.some(isComputed) ? undefined : args;
    this.calls++;
    try {
      this.statement(body, maybe, sink);
    } finally {
      this.calls--;
      this.state.positional = saved;
    }
  }

  /** Walks `text` as part of this same shell (eval, source). False when it cannot. */
  private inShell(text: string, maybe: boolean, sink: Sink): boolean {
    if (this.depth + 1 >= MAX_DEPTH) return false;
    const tree = this.reparse(text);
    if (!tree) return false;
    // The tree outlives this call (functions defined in it are kept); the caller frees it.
    new BashWalker(text, this.depth + 1, this.reparse, this.budget, this.state).statements(
      tree.rootNode,
      maybe,
      sink,
    );
    return !tree.rootNode.hasError;
  }
}
