import { parseWithGrammar } from "./grammar.js";
import { parseShell, type RawCommand, type RawScript, type Redirect, SUBSTITUTION } from "./shell-parse.js";
import {
  basename,
  isComputedName,
  programFlag,
  readsScriptFromStdin,
  SHELLS,
  stripWrappers,
  xargsRuns,
} from "./wrappers.js";

export { isComputedName, SHELLS, stripWrappers } from "./wrappers.js";

/**
 * Simple commands ready for pattern matching: wrappers that only change how a program runs (sudo,
 * env, nohup, nice, timeout, xargs, ...) are removed, the program name is reduced to its basename,
 * and the scripts hidden in `bash -c '...'`, `eval ...`, `su -c ...`, `trap '...'`, `$(...)`,
 * `<(...)`, heredocs and text piped into a shell are parsed as commands too, so each one is
 * checked. A script fed to an interpreter (`python3 <<EOF`) is checked as `python3 -c SCRIPT`.
 */

export interface Command {
  /** Program basename after wrappers; "" for a bare redirection. */
  name: string;
  args: string[];
  /** `name args... [op target]...`, single-spaced: what text patterns match. */
  text: string;
  redirects: Redirect[];
  /** Heredoc and here-string bodies fed to this command, and piped text when it is known statically. */
  stdin: string[];
  /** Wrappers removed from the front, e.g. ["sudo", "xargs"]. */
  wrappers: string[];
  /** Every stage of this command's pipeline (itself included) and its position. */
  pipe: Command[];
  stage: number;
  /** Commands run by substitutions inside this command's words (`$(...)`, `<(...)`, backticks). */
  inner: Command[];
  /** Arguments and redirections as the script spells them, before any rewriting of paths. */
  written?: { args: string[]; redirects: Redirect[] };
  /** The program as the script names it, when that is a path (`./run.sh`, `~/bin/x`), rewritten like the arguments. */
  program?: string;
}

const MAX_NESTING = 6;

/** Programs a glob in a command name is matched against: `/bin/r?` may well be rm. */
const GLOB_CANDIDATES = (
  "rm rmdir unlink shred dd mkfs mkfs.ext4 mkfs.xfs mkfs.vfat mkswap wipefs fdisk parted shutdown reboot halt " +
  "poweroff init kill killall pkill chmod chown chgrp mv cp find truncate crontab userdel passwd iptables " +
  "systemctl sh bash dash zsh curl wget python3 perl sudo env xargs nohup"
).split(" ");

/** The programs a glob program name could be (`r?` → rm), when the name is a glob. */
function globNames(name: string): string[] {
  if (name.includes("$") || name.includes(SUBSTITUTION) || !isComputedName(name)) return [];
  const source = name
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\[!/g, "[^");
  try {
    const re = new RegExp(`^${source}$`);
    return GLOB_CANDIDATES.filter((p) => re.test(p));
  } catch {
    return [];
  }
}

/** The string a shell runs for `bash -c STRING` (also `bash -lc`, `sh -ec`), else undefined. */
function dashCScript(name: string, args: readonly string[]): string | undefined {
  const computed = isComputedName(name);
  if (!SHELLS.has(name) && name !== "su" && !computed) return undefined;
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === "--command" || (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) && !a.startsWith("--"))) return args[k + 1];
    if (!a.startsWith("-") && name !== "su" && !computed) return undefined;
  }
  return undefined;
}

/**
 * Parses with the bash grammar when it is loaded, else with the hand-written splitter. Where the
 * grammar had to recover from a syntax error, the splitter's reading is screened as well.
 */
function parseScript(src: string, depth: number): RawScript {
  const g = parseWithGrammar(src, depth);
  if (!g) return parseShell(src, depth);
  if (!g.error) return g.script;
  return { commands: [...g.script.commands, ...parseShell(src, depth).commands] };
}

interface Flattener {
  out: Command[];
  depth: number;
  rewrite: ((word: string) => string) | undefined;
  /** Text of every nested script parsed (for patterns matched against whole scripts). */
  scripts: string[];
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
  const written = rw ? { args: words.slice(1), redirects: raw.redirects } : undefined;
  const program = words[0]?.includes("/") ? (rw ? rw(words[0]) : words[0]) : undefined;
  return {
    name,
    args,
    text,
    redirects,
    stdin: raw.stdin,
    wrappers,
    pipe: [],
    stage: 0,
    inner: [],
    ...(written ? { written } : {}),
    ...(program ? { program } : {}),
  };
}

/** Shell scripts that `cmd` runs besides its own words. */
function nestedScripts(raw: RawCommand, cmd: Command): string[] {
  const { name, args } = cmd;
  const scripts: string[] = [];
  const dashC = dashCScript(name, args);
  if (dashC !== undefined) scripts.push(dashC);
  else if (name === "eval" && args.length > 0) scripts.push(args.join(" "));
  else if (name === "trap" && args.length > 1 && !args[0]!.startsWith("-")) scripts.push(args[0]!);
  // watch runs its arguments with `sh -c`.
  if (cmd.wrappers.includes("watch")) scripts.push(stripWrappers(raw.words).words.join(" "));
  if (!programFlag(name)) scripts.push(...(raw.scripts ?? []));
  if (raw.stdin.length > 0 && (SHELLS.has(name) || readsScriptFromStdin(name, args) || isComputedName(name)))
    scripts.push(...raw.stdin);
  return scripts;
}

/**
 * An interpreter's program given as text it reads (`python3 <<EOF`, a file written earlier in
 * the script, `node <(...)`), as the `python3 -c PROGRAM` command the patterns know.
 */
function interpreterPrograms(raw: RawCommand, cmd: Command): Command[] {
  const flag = programFlag(cmd.name);
  if (!flag) return [];
  const bodies = [...(raw.scripts ?? [])];
  const inline = cmd.args.some((a) => /^-[a-zA-Z]*[cemr]$|^--(?:eval|print|command)$/.test(a));
  const operands = cmd.args.filter((a) => !a.startsWith("-") || a === "-");
  if (!inline && (operands.length === 0 || operands[0] === "-")) bodies.push(...cmd.stdin);
  return bodies.map((body) => ({
    ...cmd,
    args: [flag, body],
    text: `${cmd.name} ${flag} ${body}`,
    stdin: [],
    pipe: [],
    stage: 0,
    inner: [],
  }));
}

const rawOf = (words: string[]): RawCommand => {
  const c: RawCommand = { words, redirects: [], stdin: [], substitutions: [], stage: 0, pipe: [] };
  c.pipe = [c];
  return c;
};

function flattenScript(script: RawScript, f: Flattener): Command[] {
  const made = new Map<RawCommand, Command>();
  const mine: Command[] = [];
  for (const raw of script.commands) {
    const cmd = buildCommand(raw, f);
    made.set(raw, cmd);
    mine.push(cmd);
    f.out.push(cmd);
    if (f.depth >= MAX_NESTING) continue;
    for (const sub of raw.substitutions) {
      f.depth++;
      cmd.inner.push(...flattenScript(sub, f));
      f.depth--;
    }
    for (const src of nestedScripts(raw, cmd)) {
      f.scripts.push(src);
      f.depth++;
      cmd.inner.push(...flattenScript(parseScript(src, f.depth), f));
      f.depth--;
    }
    for (const name of globNames(cmd.name)) {
      const guess = buildCommand({ ...raw, words: [name, ...cmd.args] }, { ...f, rewrite: undefined });
      f.out.push(guess);
      cmd.inner.push(guess);
    }
    // xargs fed known text: the commands it would run.
    if (cmd.wrappers.includes("xargs") && raw.stdin.length > 0) {
      f.depth++;
      for (const words of xargsRuns(raw.words, raw.stdin.join("\n")))
        cmd.inner.push(...flattenScript({ commands: [rawOf(words)] }, f));
      f.depth--;
    }
    for (const synthetic of interpreterPrograms(raw, cmd)) {
      f.out.push(synthetic);
      cmd.inner.push(synthetic);
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
 * Every simple command in `command`, nested ones included, and the text of every nested script.
 * `rewrite` maps each argument and redirection target (e.g. absolute paths inside the working
 * directory to relative ones). Never throws.
 */
export function screenScript(
  command: string,
  rewrite?: (word: string) => string,
): { commands: Command[]; scripts: string[] } {
  const f: Flattener = { out: [], depth: 0, rewrite, scripts: [] };
  flattenScript(parseScript(command, 0), f);
  return { commands: f.out, scripts: f.scripts };
}

/** Every simple command in `command`, nested ones included (see `screenScript`). Never throws. */
export function splitCommands(command: string, rewrite?: (word: string) => string): Command[] {
  return screenScript(command, rewrite).commands;
}
