import type { Node } from "web-tree-sitter";
import { expandFields, expandString, MAX_ALTS, type ShellState, type WordHost } from "./bash-words.js";
import type { RawCommand, RawScript, Redirect } from "./shell-parse.js";
import { isComputed } from "./static-text.js";
import { printf } from "./text-codecs.js";

/**
 * The shell's own state as a script changes it, for the grammar walk: assignments (plain, `+=`,
 * arrays, elements), `read` from a here-string, `printf -v`, `set --`, `shift`, `alias`, and the
 * builtins whose effect cannot be known (the variables they touch become unknown). In a branch or
 * a loop (`maybe`), a new value is added to the possible ones instead of replacing them.
 */

/** Where walked commands go; `simple` stays true while its output can still be worked out. */
export interface Sink {
  commands: RawCommand[];
  simple: boolean;
}

export const newSink = (): Sink => ({ commands: [], simple: true });

export function raw(
  words: string[],
  subs: RawScript[],
  redirects: Redirect[] = [],
  stdin: string[] = [],
): RawCommand {
  const c: RawCommand = { words, redirects, stdin, substitutions: subs, stage: 0, pipe: [] };
  c.pipe = [c];
  return c;
}

export const newState = (): ShellState => ({
  vars: new Map(),
  positional: undefined,
  functions: new Map(),
  aliases: new Map(),
  files: new Map(),
});

/** Variables assigned by arithmetic (`i=1`, `i+=2`, `i++`, `--i`). */
export const ARITH_ASSIGN =
  /([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)/g;

export function assign(
  state: ShellState,
  name: string,
  alts: readonly (string | undefined)[],
  maybe: boolean,
  array?: string[],
): void {
  if (!/^[A-Za-z_]\w*$/.test(name)) return;
  let next = [...new Set(alts)];
  if (maybe) next = [...new Set([...(state.vars.get(name)?.alts ?? [undefined]), ...next])];
  if (next.length > MAX_ALTS) next = [undefined];
  state.vars.set(name, array && !maybe ? { alts: next, array } : { alts: next });
}

/** After `eval` or `source` of text that cannot be followed: every value may have changed. */
export function forget(state: ShellState): void {
  for (const [name, v] of state.vars) {
    if (!v.alts.includes(undefined)) state.vars.set(name, { alts: [...v.alts, undefined] });
  }
  state.positional = undefined;
}

export function forgetArithmetic(state: ShellState, text: string, maybe: boolean): void {
  for (const m of text.matchAll(ARITH_ASSIGN)) assign(state, m[1] ?? m[2] ?? m[3] ?? "", [undefined], maybe);
}

const elements = (node: Node): Node[] => node.namedChildren.filter((c): c is Node => c !== null);

/**
 * Evaluates `name=value`, `name+=value`, `name=(a b)` or `name[i]=value`, applying it when `apply`
 * (not for `name=value cmd`, which only sets the command's environment). Returns the word as the
 * command shows it.
 */
export function assignment(host: WordHost, src: string, node: Node, maybe: boolean, apply: boolean): string {
  const state = host.state;
  const nameNode = node.childForFieldName("name");
  const valueNode = node.childForFieldName("value");
  const op = node.children.some((c) => c?.type === "+=") ? "+=" : "=";
  let name = nameNode?.text ?? "";
  let index: string | undefined;
  if (nameNode?.type === "subscript") {
    name = nameNode.childForFieldName("name")?.text ?? "";
    index = nameNode.childForFieldName("index")?.text;
  }
  let alts: (string | undefined)[];
  let array: string[] | undefined;
  if (valueNode?.type === "array") {
    array = elements(valueNode).flatMap((c) => expandFields(host, src, c)[0] ?? []);
    alts = [array[0] ?? ""];
  } else alts = valueNode ? expandString(host, src, [valueNode]) : [""];
  const shown = `${nameNode?.text ?? ""}${op}${alts[0] ?? ""}`;
  if (!apply) return shown;
  const current = state.vars.get(name);
  if (index !== undefined) {
    const known = /^\d+$/.test(index) && alts.length === 1 && alts[0] !== undefined;
    if (!known || (current && !current.array && current.alts.length !== 1))
      assign(state, name, [undefined], maybe);
    else {
      const arr: (string | undefined)[] = [
        ...(current?.array ?? (current?.alts[0] !== undefined ? [current.alts[0]] : [])),
      ];
      arr[Number(index)] = alts[0];
      const filled = Array.from(arr, (v) => v ?? "");
      assign(state, name, [filled[0] ?? ""], maybe, filled);
    }
  } else if (op === "+=") {
    const old = current?.alts ?? [""];
    const joined = old.flatMap((o) =>
      alts.map((a) => (o === undefined || a === undefined ? undefined : o + a)),
    );
    assign(state, name, joined, maybe, array && current?.array ? [...current.array, ...array] : undefined);
  } else assign(state, name, alts, maybe, array);
  return shown;
}

/** `read [-r] [-a arr] names... <<< text`: fields of the first line, the last name taking the rest. */
function read(state: ShellState, args: readonly string[], stdin: readonly string[], maybe: boolean): void {
  const names: string[] = [];
  let array: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-a") array = args[++i];
    else if (/^-[pdntuiN]$/.test(a)) i++;
    else if (!a.startsWith("-")) names.push(a);
  }
  if (names.length === 0 && !array) names.push("REPLY");
  const line = stdin.length === 1 && !isComputed(stdin[0]!) ? stdin[0]!.split("\n")[0]! : undefined;
  const fields = line?.split(/[ \t]+/).filter(Boolean) ?? [];
  names.forEach((n, i) => {
    const value = i === names.length - 1 ? fields.slice(i).join(" ") : (fields[i] ?? "");
    assign(state, n, [line === undefined ? undefined : value], maybe);
  });
  if (array)
    assign(
      state,
      array,
      [line === undefined ? undefined : (fields[0] ?? "")],
      maybe,
      line === undefined ? undefined : fields,
    );
}

/** Applies what builtin `name` does to the shell's variables, parameters and aliases. */
export function builtin(
  state: ShellState,
  name: string,
  args: readonly string[],
  stdin: readonly string[],
  maybe: boolean,
): void {
  switch (name) {
    case "read":
      read(state, args, stdin, maybe);
      return;
    case "mapfile":
    case "readarray":
      assign(state, args.filter((a) => !a.startsWith("-")).at(-1) ?? "MAPFILE", [undefined], maybe);
      return;
    case "getopts":
      assign(state, args[1] ?? "", [undefined], maybe);
      return;
    case "let":
      forgetArithmetic(state, args.join(" "), maybe);
      return;
    case "printf":
      if (args[0] === "-v") {
        const known = args.length > 2 && args.slice(2).every((a) => !isComputed(a));
        assign(state, args[1] ?? "", [known ? printf(args[2]!, args.slice(3)) : undefined], maybe);
      }
      return;
    case "set":
      if (args[0] === "--" || (args.length > 0 && !/^[-+]/.test(args[0]!))) {
        const list = args[0] === "--" ? args.slice(1) : args;
        state.positional = maybe || list.some(isComputed) ? undefined : list;
      }
      return;
    case "shift":
      state.positional = state.positional?.slice(Number(args[0] ?? 1) || 1);
      return;
    case "alias":
      for (const a of args) {
        const m = /^([^=\s]+)=([\s\S]*)$/.exec(a);
        if (m) state.aliases.set(m[1]!, m[2]!);
      }
      return;
    case "unalias":
      for (const a of args) state.aliases.delete(a);
      return;
  }
}
