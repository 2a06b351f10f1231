/**
 * Program names as the shell resolves them: wrappers that only change how a program runs (sudo,
 * env, nohup, nice, timeout, xargs, ...) are removed, and the shells that would read a script
 * from their standard input are recognised.
 */

import { SUBSTITUTION } from "./shell-parse.js";
import { readSudoOptions } from "./sudo-options.js";

export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"]);

const XARGS_VALUE_OPTS = new Set(["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"]);
const KEYWORDS = new Set(["then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "time"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

export const basename = (w: string): string => {
  const i = w.lastIndexOf("/");
  return i >= 0 && i < w.length - 1 ? w.slice(i + 1) : w;
};

/** Skips `-x` style options; `valueOpts` consume the next word too. Returns the new index. */
function skipOptions(words: readonly string[], i: number, valueOpts: ReadonlySet<string>): number {
  while (i < words.length && words[i]!.startsWith("-") && words[i] !== "-") {
    const w = words[i]!;
    i += 1;
    if (w === "--") break;
    if (valueOpts.has(w)) i += 1;
  }
  return i;
}

/** Removes wrappers; returns the remaining words and the wrapper names. */
export function stripWrappers(input: readonly string[]): { words: string[]; wrappers: string[] } {
  let words = [...input];
  const wrappers: string[] = [];
  for (let guard = 0; guard < 32 && words.length > 0; guard++) {
    const w0 = words[0]!;
    const name = basename(w0);
    let i = -1;
    if (KEYWORDS.has(w0) || ASSIGNMENT.test(w0)) i = 1;
    else if (name === "sudo" || name === "doas" || name === "pkexec" || name === "run0")
      i = 1 + readSudoOptions(words.slice(1)).end;
    else if (name === "env") {
      i = 1;
      while (i < words.length) {
        const w = words[i]!;
        if (w === "-u" || w === "-C" || w === "--unset" || w === "--chdir") i += 2;
        else if (w === "-S" || w === "--split-string") {
          // env -S 'cmd args' splits its argument into words.
          const split = (words[i + 1] ?? "").split(/\s+/).filter(Boolean);
          words = [...split, ...words.slice(i + 2)];
          i = 0;
          break;
        } else if (w.startsWith("-") || ASSIGNMENT.test(w)) i += 1;
        else break;
      }
    } else if (name === "command" || name === "builtin") {
      // `command -v rm` only looks a program up.
      if (words[1] === "-v" || words[1] === "-V") return { words, wrappers };
      i = skipOptions(words, 1, new Set());
    } else if (name === "exec") i = skipOptions(words, 1, new Set(["-a"]));
    else if (
      name === "nohup" ||
      name === "setsid" ||
      name === "unbuffer" ||
      name === "fakeroot" ||
      name === "busybox"
    )
      i = skipOptions(words, 1, new Set());
    else if (name === "nice") i = skipOptions(words, 1, new Set(["-n"]));
    else if (name === "ionice") i = skipOptions(words, 1, new Set(["-c", "-n", "-p"]));
    else if (name === "stdbuf") i = skipOptions(words, 1, new Set(["-i", "-o", "-e"]));
    else if (name === "timeout")
      i = skipOptions(words, 1, new Set(["-s", "-k", "--signal", "--kill-after"])) + 1;
    else if (name === "watch") i = skipOptions(words, 1, new Set(["-n", "-d", "--interval"]));
    else if (name === "chroot") i = skipOptions(words, 1, new Set(["--userspec", "--groups"])) + 1;
    else if (name === "xargs") {
      i = 1;
      while (i < words.length && words[i]!.startsWith("-")) {
        const w = words[i]!;
        i += XARGS_VALUE_OPTS.has(w) ? 2 : 1;
        if (w === "--") break;
      }
    }
    if (i < 0) break;
    if (!KEYWORDS.has(w0) && !ASSIGNMENT.test(w0)) wrappers.push(name);
    words = words.slice(i);
  }
  return { words, wrappers };
}

/** Paths through which a script reads its own standard input (`. /dev/stdin`, `bash /dev/fd/0`). */
const STDIN_PATHS = /^(?:-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

/**
 * True when `name args` runs the text on its standard input as a shell script: `sh`, `bash -s`,
 * `sh -`, `source /dev/stdin`. `args` follow the program name, wrappers already removed.
 */
export function readsScriptFromStdin(name: string, args: readonly string[]): boolean {
  if (name === "source" || name === ".") return STDIN_PATHS.test(args[0] ?? "");
  if (!SHELLS.has(name)) return false;
  let sFlag = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command") return false;
    if (/^[-+]o$/.test(a)) i++;
    else if (/^-[a-zA-Z]*s[a-zA-Z]*$/.test(a)) sFlag = true;
    else if (!a.startsWith("-") && !a.startsWith("+")) return sFlag || STDIN_PATHS.test(a);
  }
  return true;
}

/** A program name only known at run time (`$cmd`, `$(...)`, a glob such as `/bin/r?`). */
export const isComputedName = (name: string): boolean =>
  name.includes(SUBSTITUTION) ||
  name.includes("$") ||
  (/[*?]|\[.+\]/.test(name) && name !== "[" && name !== "[[");

/**
 * The commands `xargs [options] command args` runs when the text it reads is known: the input's
 * words appended, or with `-I R` (`-i`) each input line put in place of R. Empty when `words` has
 * no xargs.
 */
export function xargsRuns(words: readonly string[], input: string): string[][] {
  const at = words.findIndex((w) => basename(w) === "xargs");
  if (at < 0) return [];
  let i = at + 1;
  let replace: string | undefined;
  while (i < words.length && words[i]!.startsWith("-")) {
    const w = words[i]!;
    if (w === "--") {
      i++;
      break;
    }
    if (w === "-I") replace = words[i + 1];
    else if (w.startsWith("-I")) replace = w.slice(2);
    else if (w === "-i" || w === "--replace") replace = "{}";
    i += XARGS_VALUE_OPTS.has(w) ? 2 : 1;
  }
  const command = words.length > i ? words.slice(i) : ["echo"];
  if (replace === undefined) return [[...command, ...input.split(/\s+/).filter(Boolean).slice(0, 64)]];
  const lines = input.split("\n").filter((l) => l.trim() !== "");
  return lines.slice(0, 8).map((line) => command.map((a) => a.split(replace).join(line)));
}

/** The option that makes each interpreter take its program as an argument. */
const PROGRAM_FLAG: Readonly<Record<string, string>> = {
  node: "-e",
  nodejs: "-e",
  perl: "-e",
  ruby: "-e",
  php: "-r",
};

/** `-c` for python, `-e` for node/perl/ruby...; undefined for anything that is not an interpreter. */
export const programFlag = (name: string): string | undefined =>
  /^python[0-9.]*$/.test(name) ? "-c" : PROGRAM_FLAG[name];
