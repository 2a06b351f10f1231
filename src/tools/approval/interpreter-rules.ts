import { calleePath, type Evaluator } from "./code-eval.js";
import type { Lang } from "./code-lex.js";
import { type Expr, UNKNOWN } from "./code-parse.js";

/**
 * What each language's process and file APIs do, as shell: `os.system(s)` runs `s`,
 * `subprocess.run([...])` runs the argument vector, `shutil.rmtree(p)` is `rm -r p`,
 * `fs.writeFileSync(p, ...)` is `: > p`. Keyed by the name a call is made by.
 */

export type Call = Extract<Expr, { k: "call" }>;
export type Rule = (c: Call, ev: Evaluator) => string[];

/** A word as shell text: bare when it is plain, single-quoted otherwise. */
export const quote = (w: string): string =>
  /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`;
const words = (ws: readonly string[]): string => ws.map(quote).join(" ");
export const known = (text: string): boolean => text !== "" && text !== UNKNOWN;

/** A command given as a string runs through the shell; given as a list it is the argument vector. */
function shellOrArgv(e: Expr | undefined, ev: Evaluator): string[] {
  const argv = ev.argv(e);
  if (argv) return argv.length > 0 ? [words(argv)] : [];
  const text = ev.text(e);
  return known(text) ? [text] : [];
}

const receiver = (c: Call): Expr | undefined => (c.callee.k === "member" ? c.callee.obj : undefined);
/** Objects whose methods are file or process operations (so `text.replace(a, b)` is not `mv a b`). */
const MODULES =
  /^(?:os|shutil|pathlib|posix|io|codecs|subprocess|pty|asyncio|commands|fs|fsp|fse|fsExtra|promises|child_process|cp|childProcess|Deno|Bun|FileUtils|File|IO|Dir|Open3|Kernel|Process|PTY|Path|Pathname|File::Copy|File::Path)$/;
/**
 * Called as a function, on a module (or a name bound to one: `import subprocess as sp`,
 * `const cp = require("child_process")`), or on a path value (`Path(p).unlink()`,
 * `(Path.home() / ".ssh").write_text(...)`); not on other values (`text.replace(a, b)`).
 */
export function onModule(c: Call, ev: Evaluator): boolean {
  const obj = receiver(c);
  if (!obj || isPathValue(obj, ev) || (obj.k === "call" && ev.isNamespace(obj))) return true;
  const last = calleePath(obj).split(".").pop() ?? "";
  return (
    MODULES.test(last) ||
    ev.aliases.has(last) ||
    (obj.k === "id" && ev.program.vars.get(obj.name)?.k === "call")
  );
}

/** A path object built in the program (`Path(p)`, `Path.home() / "x"`, a name bound to one). */
function isPathValue(e: Expr, ev: Evaluator): boolean {
  if (e.k === "id") {
    const v = ev.program.vars.get(e.name);
    return v !== undefined && v !== e && isPathValue(v, ev);
  }
  if (e.k === "bin") return true;
  return e.k === "call" && !ev.isNamespace(e);
}

/** Path arguments of a file operation: the receiver path object first (`Path(p).unlink()`), then the arguments. */
function paths(c: Call, ev: Evaluator): string[] {
  const obj = receiver(c);
  const out = obj && isPathValue(obj, ev) ? [ev.text(obj)] : [];
  for (const a of c.args) {
    const list = ev.argv(a);
    if (list) out.push(...list);
    else if (a.k !== "obj") out.push(ev.text(a));
  }
  return out;
}

const del =
  (flags: string): Rule =>
  (c, ev) =>
    paths(c, ev)
      .slice(0, 8)
      .filter(known)
      .map((p) => `rm ${flags}${quote(p)}`);
const rmdir: Rule = (c, ev) =>
  paths(c, ev)
    .slice(0, 1)
    .filter(known)
    .map((p) => `rmdir ${quote(p)}`);
const two =
  (program: string): Rule =>
  (c, ev) => {
    const [a, b] = paths(c, ev);
    return a !== undefined && b !== undefined && known(b) ? [`${program} ${quote(a)} ${quote(b)}`] : [];
  };
const write =
  (op: ">" | ">>"): Rule =>
  (c, ev) => {
    const p = paths(c, ev)[0];
    return p === undefined || !known(p) ? [] : [`: ${op} ${quote(p)}`];
  };
/** Reads a file or lists a folder: `cat p`, `ls p`, `find p` (what it reaches matters, not what it does). */
const read =
  (program: "cat" | "ls" | "find"): Rule =>
  (c, ev) => {
    const p = paths(c, ev)[0];
    return p === undefined || !known(p) ? [] : [`${program} ${quote(p)}`];
  };
/** `open(path, mode)` style: a write when the mode writes, appends or creates; a read otherwise. */
const openMode = (c: Call, ev: Evaluator, mode: string): string[] => {
  const p = paths(c, ev)[0];
  if (p === undefined || !known(p)) return [];
  if (mode === UNKNOWN || !/[waxc+]/.test(mode)) return [`cat ${quote(p)}`];
  return [`: ${mode.includes("a") ? ">>" : ">"} ${quote(p)}`];
};
const recursive = (c: Call): boolean =>
  c.args.some(
    (a) => a.k === "obj" && a.entries.recursive?.k === "id" && a.entries.recursive.name === "true",
  ) || c.kw.recursive !== undefined;

/** Runs a command given as separate words (`system("rm", "-rf", "/")`) or as one string. */
const run: Rule = (c, ev) => {
  const args = c.args.filter((a) => a.k !== "obj");
  if (args.length > 1) return [words(args.flatMap((a) => ev.argv(a) ?? [ev.text(a)]))];
  return shellOrArgv(args[0] ?? c.kw.args, ev);
};
const programAndArgs: Rule = (c, ev) => {
  const first = ev.argv(c.args[0]);
  if (first) return first.length > 0 ? [words(first)] : [];
  const rest = ev.argv(c.args[1]);
  return rest ? [words([ev.text(c.args[0]), ...rest])] : shellOrArgv(c.args[0], ev);
};
const fromArg =
  (i: number): Rule =>
  (c, ev) => {
    const argv = ev.argv(c.args[i]);
    return argv ? [words(argv)] : [];
  };
const varargs =
  (from: number): Rule =>
  (c, ev) =>
    c.args.length > from ? [words(c.args.slice(from).map((a) => ev.text(a)))] : [];

const PYTHON: Record<string, Rule> = {
  system: run,
  popen: run,
  getoutput: run,
  getstatusoutput: run,
  check_output: run,
  check_call: run,
  call: run,
  run,
  Popen: run,
  spawn: run,
  create_subprocess_shell: run,
  create_subprocess_exec: varargs(0),
  execl: varargs(1),
  execlp: varargs(1),
  execle: varargs(1),
  execv: fromArg(1),
  execvp: fromArg(1),
  execve: fromArg(1),
  execvpe: fromArg(1),
  spawnl: varargs(2),
  spawnlp: varargs(2),
  spawnv: fromArg(2),
  spawnvp: fromArg(2),
  rmtree: del("-r "),
  remove: del(""),
  unlink: del(""),
  rmdir,
  removedirs: rmdir,
  open: (c, ev) => openMode(c, ev, ev.text(c.args[1] ?? c.kw.mode)),
  write_text: write(">"),
  write_bytes: write(">"),
  read_text: read("cat"),
  read_bytes: read("cat"),
  listdir: read("ls"),
  scandir: read("ls"),
  iterdir: read("ls"),
  walk: read("find"),
  copy: two("cp"),
  copy2: two("cp"),
  copyfile: two("cp"),
  copytree: two("cp -r"),
  move: two("mv"),
  rename: two("mv"),
  replace: two("mv"),
  symlink: two("ln -s"),
  symlink_to: (c, ev) => two("ln -s")({ ...c, args: [...c.args, receiver(c)!] }, ev),
};

const NODE: Record<string, Rule> = {
  exec: (c, ev) => shellOrArgv(c.args[0], ev),
  execSync: (c, ev) => shellOrArgv(c.args[0], ev),
  execaCommand: (c, ev) => shellOrArgv(c.args[0], ev),
  execaCommandSync: (c, ev) => shellOrArgv(c.args[0], ev),
  $: (c, ev) => shellOrArgv(c.args[0], ev),
  spawn: programAndArgs,
  spawnSync: programAndArgs,
  execFile: programAndArgs,
  execFileSync: programAndArgs,
  execa: programAndArgs,
  execaSync: programAndArgs,
  Command: (c, ev) => {
    const opts = c.args[1];
    const rest = opts?.k === "obj" ? (ev.argv(opts.entries.args) ?? []) : [];
    return [words([ev.text(c.args[0]), ...rest])];
  },
  rmSync: (c, ev) => del(recursive(c) ? "-r " : "")(c, ev),
  rm: (c, ev) => del(recursive(c) ? "-r " : "")(c, ev),
  remove: (c, ev) => del(recursive(c) ? "-r " : "")(c, ev),
  removeSync: del("-r "),
  rmdirSync: (c, ev) => (recursive(c) ? del("-r ")(c, ev) : rmdir(c, ev)),
  rmdir: (c, ev) => (recursive(c) ? del("-r ")(c, ev) : rmdir(c, ev)),
  unlinkSync: del(""),
  unlink: del(""),
  writeFileSync: write(">"),
  writeFile: write(">"),
  outputFileSync: write(">"),
  outputFile: write(">"),
  createWriteStream: write(">"),
  writeTextFile: write(">"),
  writeTextFileSync: write(">"),
  write: (c, ev) => (calleePath(c.callee) === "Bun.write" ? write(">")(c, ev) : []),
  readFileSync: read("cat"),
  readFile: read("cat"),
  createReadStream: read("cat"),
  readTextFile: read("cat"),
  readTextFileSync: read("cat"),
  readdirSync: read("ls"),
  readdir: read("ls"),
  opendirSync: read("ls"),
  opendir: read("ls"),
  appendFileSync: write(">>"),
  appendFile: write(">>"),
  copyFileSync: two("cp"),
  copyFile: two("cp"),
  cpSync: two("cp -r"),
  cp: two("cp -r"),
  copySync: two("cp -r"),
  renameSync: two("mv"),
  rename: two("mv"),
  moveSync: two("mv"),
  symlinkSync: two("ln -s"),
  symlink: two("ln -s"),
};

/** perl's `open`: 3-argument pipe and write modes, and 2-argument `"| cmd"`, `"cmd |"`, `">file"`. */
const perlOpen: Rule = (c, ev) => {
  if (c.args.length >= 3) {
    const mode = ev.text(c.args[1]).trim();
    if (mode === "|-" || mode === "-|") return run({ ...c, args: c.args.slice(2) }, ev);
    const file = ev.text(c.args[2]);
    if (/^(?:\+?>{1,2}|\+<)/.test(mode)) return [`: > ${quote(file)}`];
    return mode.startsWith("<") && known(file) ? [`cat ${quote(file)}`] : [];
  }
  const spec = ev.text(c.args[1]).trim();
  if (spec.startsWith("|") || spec.endsWith("|")) return [spec.replace(/^\|\s*|\s*\|$/g, "")];
  const w = /^(\+?>{1,2}|\+<)\s*(.+)$/.exec(spec);
  if (w) return [`: > ${quote(w[2]!)}`];
  const r = /^<?\s*(.+)$/.exec(spec);
  return r && known(spec) ? [`cat ${quote(r[1]!)}`] : [];
};

const PERL: Record<string, Rule> = {
  system: run,
  exec: run,
  readpipe: run,
  open: perlOpen,
  unlink: del(""),
  rmdir,
  rmtree: del("-r "),
  remove_tree: del("-r "),
  copy: two("cp"),
  cp: two("cp"),
  move: two("mv"),
  mv: two("mv"),
  rename: two("mv"),
  symlink: two("ln -s"),
};

const RUBY: Record<string, Rule> = {
  system: run,
  exec: run,
  spawn: run,
  popen: run,
  capture2: run,
  capture2e: run,
  capture3: run,
  popen2: run,
  popen2e: run,
  popen3: run,
  rm_rf: del("-r "),
  rm_r: del("-r "),
  rmtree: del("-r "),
  remove_dir: del("-r "),
  remove_entry: del("-r "),
  remove_entry_secure: del("-r "),
  rm: del(""),
  rm_f: del(""),
  remove: del(""),
  unlink: del(""),
  delete: (c, ev) => (/^(?:File|FileUtils)$/.test(calleePath(receiver(c) ?? c.callee)) ? del("")(c, ev) : []),
  rmdir,
  write: write(">"),
  binwrite: write(">"),
  read: read("cat"),
  binread: read("cat"),
  readlines: read("cat"),
  foreach: read("cat"),
  children: read("ls"),
  entries: read("ls"),
  open: (c, ev) => {
    const first = ev.text(c.args[0]);
    if (!receiver(c) && first.startsWith("|")) return [first.slice(1)];
    return openMode(c, ev, ev.text(c.args[1]));
  },
  cp: two("cp"),
  copy: two("cp"),
  cp_r: two("cp -r"),
  install: two("cp"),
  copy_file: two("cp"),
  mv: two("mv"),
  move: two("mv"),
  rename: two("mv"),
  ln_s: two("ln -s"),
  ln_sf: two("ln -s"),
  symlink: two("ln -s"),
};

const PHP: Record<string, Rule> = {
  system: run,
  exec: run,
  shell_exec: run,
  passthru: run,
  popen: run,
  proc_open: run,
  pcntl_exec: (c, ev) => [words([ev.text(c.args[0]), ...(ev.argv(c.args[1]) ?? [])])],
  unlink: del(""),
  rmdir,
  file_put_contents: (c, ev) =>
    write(c.args[2]?.k === "id" && /FILE_APPEND/.test(c.args[2].name) ? ">>" : ">")(
      { ...c, args: c.args.slice(0, 1) },
      ev,
    ),
  fopen: (c, ev) => openMode(c, ev, ev.text(c.args[1])),
  file_get_contents: read("cat"),
  file: read("cat"),
  readfile: read("cat"),
  scandir: read("ls"),
  opendir: read("ls"),
  copy: two("cp"),
  rename: two("mv"),
  symlink: two("ln -s"),
};

export const RULES: Record<Lang, Record<string, Rule>> = {
  python: PYTHON,
  node: NODE,
  perl: PERL,
  ruby: RUBY,
  php: PHP,
};
