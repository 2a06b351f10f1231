import { type Command, SHELLS, stripWrappers } from "./commands.js";
import type { Detection, DetectOptions } from "./detect.js";
import { SUDO_PASSWORD, sudoReadsPassword } from "./hardline-access.js";
import { quote } from "./interpreter-rules.js";
import { interpreterScripts } from "./interpreters.js";
import { cleanPath } from "./protected-paths.js";
import { parseShell, type RawScript } from "./shell-parse.js";
import { findDeletes, findExecs, findStartPaths, normPath } from "./targets.js";

/**
 * Second looks that the simple-command tables cannot take on their own: the shell commands and
 * file operations inside interpreter code (`python3 -c`, `node -e`, heredocs), the commands
 * `find -exec` runs, the commands that follow a `cd` into a protected folder, and sudo's own
 * options (wrappers are removed before the tables see a command). Each is screened with the same
 * `detectCommand`, depth-limited, and its matches are added to the outer result.
 */

type Detect = (command: string, opts: DetectOptions) => Detection;

interface Nested {
  command: string;
  opts: DetectOptions;
  /** Also report what it modifies (the script really runs it, rather than a second reading of it). */
  modifies: boolean;
}

const MAX_DEPTH = 4;
let depth = 0;

const basename = (w: string): string => w.slice(w.lastIndexOf("/") + 1);

/**
 * A simple command written back as shell text (words quoted, redirections and heredoc text kept),
 * with its paths as the script wrote them when `asWritten` (to be read from another folder).
 */
function commandText(c: Command, asWritten = false): string {
  const args = (asWritten && c.written?.args) || c.args;
  const redirects = (asWritten && c.written?.redirects) || c.redirects;
  const parts = [c.name, ...args].filter((w, i) => i > 0 || w !== "").map(quote);
  for (const r of redirects) parts.push(r.op, quote(r.target));
  for (const body of c.stdin) parts.push("<<<", quote(body));
  return parts.join(" ");
}

/** Each `sudo` in `src` (nested shells and substitutions included) as a command whose arguments are sudo's options. */
function sudoInvocations(src: string, out: Command[] = [], level = 0): Command[] {
  if (level > 6) return out;
  const walk = (script: RawScript): void => {
    for (const raw of script.commands) {
      for (const sub of raw.substitutions) walk(sub);
      const { words: rest, wrappers } = stripWrappers(raw.words);
      if (wrappers.includes("sudo")) {
        const cut = raw.words.length - rest.length;
        const prefix =
          cut >= 0 && raw.words.slice(cut).every((w, i) => w === rest[i])
            ? raw.words.slice(0, cut)
            : raw.words;
        prefix.forEach((w, i) => {
          if (basename(w) !== "sudo") return;
          const args = prefix.slice(i + 1);
          out.push({
            name: "sudo",
            args,
            text: ["sudo", ...args].join(" "),
            redirects: [],
            stdin: [],
            wrappers: [],
            pipe: [],
            stage: 0,
            inner: [],
          });
        });
      }
      const name = basename(rest[0] ?? "");
      if (name === "eval") sudoInvocations(rest.slice(1).join(" "), out, level + 1);
      if (!SHELLS.has(name) && name !== "su") continue;
      const k = rest.findIndex((w, i) => i > 0 && (w === "--command" || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w)));
      if (k > 0 && rest[k + 1] !== undefined) sudoInvocations(rest[k + 1]!, out, level + 1);
      if (SHELLS.has(name)) for (const body of raw.stdin) sudoInvocations(body, out, level + 1);
    }
  };
  walk(parseShell(src));
  return out;
}

/** The commands `find -exec` runs, with `{}` standing for the start folder (deletes have their own rules). */
function findExecCommands(c: Command): string[] {
  if (c.name !== "find" || findDeletes(c.args)) return [];
  const start = findStartPaths(c.args)[0] ?? ".";
  return findExecs(c.args)
    .filter((words) => words.length > 0)
    .map((words) => words.map((w) => quote(w.replaceAll("{}", start))).join(" "));
}

/**
 * Where `cd ARG` leads: absolute when the home and HERMES_HOME are known, else as written
 * (`~/.hermes`); a relative ARG counts from the folder the script is in, when that is known.
 */
function cdTarget(
  arg: string | undefined,
  from: string | undefined,
  opts: DetectOptions,
): string | undefined {
  let target = arg === undefined ? "~" : normPath(arg);
  if (from !== undefined && !/^[/~$-]/.test(target)) target = cleanPath(`${from}/${target}`);
  if (!/^(?:\/|~(?:\/|$)|\$HOME(?:\/|$)|\$HERMES_HOME(?:\/|$))/.test(target)) return undefined;
  if (opts.home && /^(?:~|\$HOME)(?=\/|$)/.test(target))
    return normPath(target.replace(/^(?:~|\$HOME)/, opts.home));
  if (opts.hermesHome && target.startsWith("$HERMES_HOME"))
    return normPath(target.replace("$HERMES_HOME", opts.hermesHome));
  return target;
}

/**
 * The commands that run after a `cd`, each screened again with the folder it leads to as the
 * working directory (`cd .. && cd .hermes && sed -i ... config.yaml`), their paths as written.
 * The walk starts in the command's own working directory; after a `cd` it cannot follow, nothing
 * more is screened again. The first look judged every path from the starting folder, and still
 * counts: a `cd` in a subshell does not move the commands after it.
 */
function afterCd(commands: readonly Command[], opts: DetectOptions): Nested[] {
  const out: Nested[] = [];
  const start = opts.cwd === undefined ? undefined : normPath(opts.cwd);
  let dir = start;
  for (const c of commands) {
    if (c.name === "cd" || c.name === "pushd") {
      dir = cdTarget(
        (c.written?.args ?? c.args).find((a) => a !== "--" && !/^-[LPe@]+$/.test(a)),
        dir,
        opts,
      );
      continue;
    }
    if (dir !== undefined && dir !== start)
      out.push({ command: commandText(c, true), opts: { ...opts, cwd: dir }, modifies: false });
  }
  return out;
}

function nestedScripts(commands: readonly Command[], opts: DetectOptions): Nested[] {
  const out: Nested[] = [];
  for (const c of commands) {
    for (const command of interpreterScripts(c)) out.push({ command, opts, modifies: true });
    for (const command of findExecCommands(c)) out.push({ command, opts, modifies: false });
  }
  out.push(...afterCd(commands, opts));
  return out;
}

const LISTS = ["hardline", "dangerous", "warnings"] as const;

function merge(into: Detection, from: Detection, modifies: boolean): void {
  for (const list of LISTS) {
    for (const m of from[list]) if (!into[list].some((x) => x.key === m.key)) into[list].push(m);
  }
  if (modifies) for (const x of from.modifies) if (!into.modifies.includes(x)) into.modifies.push(x);
}

/**
 * Adds the matches of everything nested in `commands` to `d`, and of sudo's options in `scripts`
 * (the command and the scripts found in it). Never throws.
 */
export function screenNested(
  d: Detection,
  scripts: readonly string[],
  commands: readonly Command[],
  opts: DetectOptions,
  detect: Detect,
): Detection {
  try {
    // Only scripts where sudo was found as a wrapper are read again for its options.
    if (
      commands.some((c) => c.wrappers.includes("sudo")) &&
      !d.hardline.some((m) => m.key === SUDO_PASSWORD.key)
    ) {
      const sudo = scripts.flatMap((s) => sudoInvocations(s)).find((s) => sudoReadsPassword(s.args));
      if (sudo) {
        const { key, description } = SUDO_PASSWORD;
        d.hardline.push({
          key,
          description,
          class: SUDO_PASSWORD.class,
          severity: "hardline",
          command: sudo.text,
        });
      }
    }
    if (depth >= MAX_DEPTH) return d;
    depth++;
    try {
      for (const n of nestedScripts(commands, opts)) merge(d, detect(n.command, n.opts), n.modifies);
    } finally {
      depth--;
    }
  } catch {
    // A second look that fails adds nothing; the first look stands.
  }
  return d;
}
