import { namesMetadata } from "./cloud-metadata.js";
import { calleeName, Evaluator } from "./code-eval.js";
import type { Lang } from "./code-lex.js";
import { type MassDelete, massDeleteIn } from "./code-mass-delete.js";
import { type Program, parseProgram } from "./code-parse.js";
import type { Command } from "./commands.js";
import { known, onModule, quote, RULES } from "./interpreter-rules.js";

/**
 * Interpreter one-liners as shell: the commands a `python3 -c` / `node -e` / `perl -e` /
 * `ruby -e` / `php -r` program (or one fed on stdin, `python3 - <<'PY'`) runs through the
 * system shell or a process API, and its direct file operations written as the shell command
 * that does the same (`shutil.rmtree('/')` is `rm -r /`, `open(p, 'w')` is `: > p`), so that
 * one set of rules screens them all. Only text that is static can be seen.
 */

const MAX_CODE_DEPTH = 3;
const MAX_SCRIPTS = 64;

export function languageOf(name: string): Lang | undefined {
  if (/^(?:python[\d.]*|pypy\d*)$/.test(name)) return "python";
  if (/^(?:node|nodejs|bun|deno)$/.test(name)) return "node";
  if (name === "perl" || name === "ruby") return name;
  if (/^php[\d.]*$/.test(name)) return "php";
  return undefined;
}

/** Options that take the next word as their value, per language (so it is not taken for the script). */
const VALUE_OPTS: Record<Lang, ReadonlySet<string>> = {
  python: new Set(["-W", "-X", "-Q"]),
  node: new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions"]),
  perl: new Set([]),
  ruby: new Set(["-r", "-I", "-C", "-E"]),
  php: new Set(["-c", "-d", "-z", "-t", "-f"]),
};
/** Short options whose value is the program text. */
const CODE_LETTERS: Record<Lang, string> = { python: "c", node: "ep", perl: "eE", ruby: "e", php: "rBRE" };
/** Short options that take the rest of their cluster, or else the next word, as some other value. */
const VALUE_LETTERS: Record<Lang, string> = {
  python: "WXQm",
  node: "rC",
  perl: "",
  ruby: "rICE",
  php: "cdztf",
};
/** Short options whose value can only be the rest of their cluster (`-i.bak`, `-Mstrict`). */
const ATTACHED_LETTERS: Record<Lang, string> = {
  python: "",
  node: "",
  perl: "MmIxFdDVi",
  ruby: "FxKTWi",
  php: "",
};
const CODE_LONG = new Set(["--eval", "--print"]);

/** In a short-option cluster, where the program text is: "rest", "next" word, or "none". */
function clusterCode(cluster: string, lang: Lang): "rest" | "next" | "none" | "skip-next" {
  for (let j = 1; j < cluster.length; j++) {
    const ch = cluster[j]!;
    const last = j === cluster.length - 1;
    if (CODE_LETTERS[lang].includes(ch)) return last || lang === "node" ? "next" : "rest";
    if (VALUE_LETTERS[lang].includes(ch)) return last ? "skip-next" : "none";
    if (ATTACHED_LETTERS[lang].includes(ch)) return "none";
  }
  return "none";
}

/** The program text `c` runs, if it is on the command line or fed on stdin. */
export function interpreterCode(c: Command): { lang: Lang; code: string[] } | undefined {
  const lang = languageOf(c.name);
  if (!lang) return undefined;
  const code: string[] = [];
  let script = false;
  let args = c.args;
  if (c.name === "deno") {
    if (args[0] !== "eval") return undefined;
    const last = args
      .slice(1)
      .filter((a) => !a.startsWith("-"))
      .at(-1);
    return last === undefined ? undefined : { lang, code: [last] };
  }
  if (c.name === "bun" && args[0] === "run") args = args.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--" || a === "-") {
      script = a === "--" && args[i + 1] !== undefined && args[i + 1] !== "-";
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a : a.slice(0, eq);
      if (CODE_LONG.has(name) && lang === "node") code.push(eq < 0 ? (args[++i] ?? "") : a.slice(eq + 1));
      else if (eq < 0 && VALUE_OPTS[lang].has(name)) i++;
      continue;
    }
    if (!a.startsWith("-")) {
      script = true;
      break;
    }
    if ((lang === "python" && a === "-m") || (lang === "php" && a === "-f")) return undefined;
    if (VALUE_OPTS[lang].has(a)) {
      i++;
      continue;
    }
    const where = clusterCode(a, lang);
    if (where === "skip-next") i++;
    else if (where === "next") code.push(args[++i] ?? "");
    else if (where === "rest") {
      const at = [...a.slice(1)].findIndex((ch) => CODE_LETTERS[lang].includes(ch));
      code.push(a.slice(at + 2));
    }
    if (code.length > 0 && lang === "python") break;
  }
  if (code.length > 0) return { lang, code: lang === "perl" || lang === "ruby" ? [code.join("\n")] : code };
  if (script || c.stdin.length === 0) return undefined;
  return { lang, code: [...c.stdin] };
}

/** Calls that run a string as code of the same language. */
const CODE_EVAL: Record<Lang, RegExp> = {
  python: /^(?:exec|eval|compile)$/,
  node: /^(?:eval|Function|runInThisContext|runInNewContext|runInContext|Script)$/,
  perl: /^eval$/,
  ruby: /^(?:eval|instance_eval|class_eval|module_eval)$/,
  php: /^eval$/,
};

/** Names a python program gives modules and functions: `import subprocess as sp`, `from os import system as run`. */
function aliasesIn(code: string, lang: Lang): Map<string, string> {
  const out = new Map<string, string>();
  if (lang !== "python") return out;
  for (const m of code.matchAll(/\b(?:import\s+)?([\w.]+)\s+as\s+(\w+)/g))
    out.set(m[2]!, m[1]!.split(".").pop()!);
  return out;
}

/** `code` parsed, with the evaluator that knows its variables and the names it gives modules. */
function analyse(
  code: string,
  lang: Lang,
): { program: Program; ev: Evaluator; aliases: Map<string, string> } {
  const program = parseProgram(code, lang);
  const aliases = aliasesIn(code, lang);
  return { program, ev: new Evaluator(program, new Set(aliases.keys())), aliases };
}

/** A glob as a shell word: left unquoted where it is plain, so the screening reads it as a glob. */
const globWord = (glob: string): string => (/^[\w@%+=:,./*?~-]+$/.test(glob) ? glob : quote(glob));

/** Shell commands equivalent to what `code` does, as far as it can be seen statically. */
export function scriptsIn(code: string, lang: Lang, depth = 0): string[] {
  const { program, ev, aliases } = analyse(code, lang);
  const out: string[] = [];
  // Deletes over a glob or a listing, as `rm` of that glob: `/*` is refused like the shell command.
  const mass = massDeleteIn(program, ev, lang, code);
  for (const glob of mass?.patterns ?? [])
    out.push(`rm ${mass?.recursive ? "-r " : ""}-f -- ${globWord(glob)}`);
  for (const s of program.commands) {
    const text = ev.text(s);
    if (known(text)) out.push(text);
  }
  for (const c of program.calls) {
    if (out.length >= MAX_SCRIPTS) break;
    const called = calleeName(c.callee, ev);
    if (called === undefined) continue;
    const name = c.callee.k === "id" ? (aliases.get(called) ?? called) : called;
    if (CODE_EVAL[lang].test(name) && depth < MAX_CODE_DEPTH) {
      const inner = ev.text(c.args.at(name === "Function" ? -1 : 0));
      if (known(inner)) out.push(...scriptsIn(inner, lang, depth + 1));
      continue;
    }
    const rule = Object.hasOwn(RULES[lang], name) ? RULES[lang][name] : undefined;
    const gated = lang === "python" || lang === "node" || lang === "ruby";
    if (rule && (!gated || onModule(c, ev))) out.push(...rule(c, ev).filter(known));
  }
  for (const s of program.strings) {
    const text = ev.text(s);
    if (/^(?:https?:\/\/)?[\w.[\]:-]+(?:[/:]|$)/.test(text) && namesMetadata([text]))
      out.push(`curl ${quote(text)}`);
  }
  return [...new Set(out)].slice(0, MAX_SCRIPTS);
}

/** What an interpreter command deletes by glob or folder listing (code-mass-delete.ts). Never throws. */
export function massDeleteOf(c: Command): MassDelete | undefined {
  try {
    const found = interpreterCode(c);
    if (!found) return undefined;
    for (const code of found.code) {
      const { program, ev } = analyse(code, found.lang);
      const mass = massDeleteIn(program, ev, found.lang, code);
      if (mass) return mass;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** The shell commands an interpreter command runs, per `interpreterCode` and `scriptsIn`. Never throws. */
export function interpreterScripts(c: Command): string[] {
  try {
    const found = interpreterCode(c);
    if (!found) return [];
    return [...new Set(found.code.flatMap((code) => scriptsIn(code, found.lang)))].slice(0, MAX_SCRIPTS);
  } catch {
    return [];
  }
}
