import { parseShell, type RawCommand, type RawScript, type Redirect } from "./shell-parse.js";

/**
 * Simple commands ready for pattern matching: wrappers that only change how a program runs (sudo,
 * env, nohup, nice, timeout, xargs, ...) are removed, the program name is reduced to its basename,
 * and the scripts hidden in `bash -c '...'`, `eval ...`, `su -c ...`, `$(...)` and heredocs fed to
 * a shell are parsed as commands too, so each one is checked.
 */

export interface Command {
  /** Program basename after wrappers; "" for a bare redirection. */
  name: string;
  args: string[];
  /** `name args... [op target]...`, single-spaced: what text patterns match. */
  text: string;
  redirects: Redirect[];
  /** Heredoc and here-string bodies fed to this command. */
  stdin: string[];
  /** Wrappers removed from the front, e.g. ["sudo", "xargs"]. */
  wrappers: string[];
  /** Every stage of this command's pipeline (itself included) and its position. */
  pipe: Command[];
  stage: number;
  /** Commands run by substitutions inside this command's words (`$(...)`, `<(...)`, backticks). */
  inner: Command[];
}

export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"]);

const MAX_NESTING = 6;

/** sudo/doas options that take a value. */
const SUDO_VALUE_OPTS = new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U"]);
const XARGS_VALUE_OPTS = new Set(["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"]);
const KEYWORDS = new Set(["then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "time"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

const basename = (w: string): string => {
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
      i = skipOptions(words, 1, SUDO_VALUE_OPTS);
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

/** The string a shell runs for `bash -c STRING` (also `bash -lc`, `sh -ec`), else undefined. */
function dashCScript(name: string, args: readonly string[]): string | undefined {
  if (!SHELLS.has(name) && name !== "su") return undefined;
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === "--command" || (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) && !a.startsWith("--"))) return args[k + 1];
    if (!a.startsWith("-") && name !== "su") return undefined;
  }
  return undefined;
}

interface Flattener {
  out: Command[];
  depth: number;
  rewrite: ((word: string) => string) | undefined;
}

function buildCommand(raw: RawCommand, f: Flattener): Command {
  const { words, wrappers } = stripWrappers(raw.words);
  const name = words.length > 0 ? basename(words[0]!) : "";
  const rw = f.rewrite;
  const args = rw ? words.slice(1).map(rw) : words.slice(1);
  const redirects = rw ? raw.redirects.map((r) => ({ op: r.op, target: rw(r.target) })) : raw.redirects;
  const text = [name, ...args, ...redirects.map((r) => `${r.op} ${r.target}`)]
    .filter((w) => w !== "")
    .join(" ");
  return { name, args, text, redirects, stdin: raw.stdin, wrappers, pipe: [], stage: 0, inner: [] };
}

function flattenScript(script: RawScript, f: Flattener): Command[] {
  const made = new Map<RawCommand, Command>();
  const mine: Command[] = [];
  for (const raw of script.commands) {
    const cmd = buildCommand(raw, f);
    made.set(raw, cmd);
    mine.push(cmd);
    f.out.push(cmd);
    if (f.depth >= MAX_NESTING) continue;
    const nested = (src: string): Command[] => {
      f.depth++;
      const cmds = flattenScript(parseShell(src), f);
      f.depth--;
      return cmds;
    };
    for (const sub of raw.substitutions) {
      f.depth++;
      cmd.inner.push(...flattenScript(sub, f));
      f.depth--;
    }
    const script = dashCScript(cmd.name, cmd.args);
    if (script !== undefined) cmd.inner.push(...nested(script));
    else if (cmd.name === "eval" && cmd.args.length > 0) cmd.inner.push(...nested(cmd.args.join(" ")));
    else if (SHELLS.has(cmd.name) && raw.stdin.length > 0) {
      for (const body of raw.stdin) cmd.inner.push(...nested(body));
    }
  }
  for (const raw of script.commands) {
    const cmd = made.get(raw)!;
    cmd.pipe = raw.pipe.map((r) => made.get(r)!).filter(Boolean);
    cmd.stage = raw.stage;
  }
  return mine;
}

/**
 * Every simple command in `command`, nested ones included. `rewrite` maps each argument and
 * redirection target (e.g. absolute paths inside the working directory to relative ones). Never throws.
 */
export function splitCommands(command: string, rewrite?: (word: string) => string): Command[] {
  const f: Flattener = { out: [], depth: 0, rewrite };
  flattenScript(parseShell(command), f);
  return f.out;
}
