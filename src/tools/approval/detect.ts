import { type Command, screenScript } from "./commands.js";
import { CREDENTIAL_EXFILTRATION, exfiltrationMatches } from "./exfiltration.js";
import { HARDLINE_PATTERNS } from "./hardline.js";
import { screenNested } from "./nested.js";
import { OBFUSCATION_PATTERNS } from "./obfuscation.js";
import { abbreviationAware } from "./options.js";
import { FS_PATTERNS } from "./patterns-fs.js";
import { INFRA_PATTERNS } from "./patterns-infra.js";
import { OPS_PATTERNS } from "./patterns-ops.js";
import { protectPaths } from "./protected-paths.js";
import { hasFlag, isHarmlessSink, normPath, SYSTEM_DIRS } from "./targets.js";
import type { CommandPattern, PatternMatch, Severity } from "./types.js";
import { type Confinement, confinementMatches } from "./user-confine.js";

/**
 * Screening of terminal commands: hardline patterns (never run), dangerous patterns (approval) and
 * warn patterns (a note in the result), each checked against every simple command of the script,
 * plus the list of things the command modifies for the destructive-command note (seed 004 §2.4).
 */

export const DANGEROUS_PATTERNS: readonly CommandPattern[] = [
  ...FS_PATTERNS,
  ...OPS_PATTERNS,
  ...INFRA_PATTERNS,
  ...OBFUSCATION_PATTERNS,
  // Matched over the whole script's data flow by exfiltrationMatches, not per command.
  CREDENTIAL_EXFILTRATION,
];

/** Destructive but routine in a repository: run without asking, with a note in the result. */
export const WARN_PATTERNS: readonly CommandPattern[] = [
  {
    key: "git_reset_hard",
    description: "git reset --hard discards uncommitted changes",
    class: "git",
    programs: ["git"],
    test: /^git reset\b.*--hard\b/,
  },
  {
    key: "git_clean",
    description: "git clean -f deletes untracked files",
    class: "git",
    programs: ["git"],
    test: (c) => c.args[0] === "clean" && hasFlag(c.args.slice(1), "f", "force"),
  },
  {
    key: "git_discard_changes",
    description: "git checkout/restore of paths discards uncommitted changes",
    class: "git",
    programs: ["git"],
    test: /^git (?:checkout (?:-f\b|--force\b|(?:\S+ )?-- )|checkout \.$|restore (?!--staged\b))/,
  },
  {
    key: "git_stash_drop",
    description: "git stash drop/clear deletes stashed changes",
    class: "git",
    programs: ["git"],
    test: /^git stash (?:drop|clear)\b/,
  },
  {
    key: "git_branch_force_delete",
    description: "git branch -D deletes a branch even if it is not merged",
    class: "git",
    programs: ["git"],
    test: /^git branch (?:.* )?(?:-D|--delete --force|-d --force|--force -d)\b/,
  },
];

export interface DetectOptions {
  /** Working directory: absolute paths inside it are judged as the relative paths they are. */
  cwd?: string;
  /** The user's home: absolute paths inside it are judged as `~/...`. */
  home?: string;
  /** HERMES_HOME: writes inside it are hardline, however the path is spelled. */
  hermesHome?: string;
  /**
   * A chat user's own working folder: inside HERMES_HOME, yet theirs to change. Paths that resolve
   * into it are judged as ordinary files; everything else in HERMES_HOME stays protected.
   */
  ownFolder?: string;
  /** Paths are on this machine: symbolic links are followed before a path is judged. */
  followLinks?: boolean;
  /**
   * A chat user's places: every path word (read or write) that reaches another user's folder or
   * Hermes's private files is hardline. Absent for the profile's owner.
   */
  confine?: Confinement;
}

export interface Detection {
  hardline: PatternMatch[];
  dangerous: PatternMatch[];
  warnings: PatternMatch[];
  /** What the command changes on disk, for the destructive-command note: "rm", "sed -i", "> out.txt". */
  modifies: string[];
}

interface Indexed {
  byProgram: Map<string, CommandPattern[]>;
  anyProgram: CommandPattern[];
  raw: CommandPattern[];
}

function index(patterns: readonly CommandPattern[]): Indexed {
  const byProgram = new Map<string, CommandPattern[]>();
  const anyProgram: CommandPattern[] = [];
  const raw: CommandPattern[] = [];
  for (const p of patterns) {
    if (p.raw) raw.push(p);
    if (!p.test) continue;
    if (!p.programs) anyProgram.push(p);
    else for (const prog of p.programs) byProgram.set(prog, [...(byProgram.get(prog) ?? []), p]);
  }
  return { byProgram, anyProgram, raw };
}

const TABLES: readonly { severity: Severity; idx: Indexed }[] = [
  { severity: "hardline", idx: index(HARDLINE_PATTERNS) },
  { severity: "dangerous", idx: index(DANGEROUS_PATTERNS) },
  { severity: "warn", idx: index(abbreviationAware(WARN_PATTERNS)) },
];

const runs = (p: CommandPattern, c: Command): boolean => {
  if (!p.test) return true;
  return typeof p.test === "function" ? p.test(c) : p.test.test(c.text);
};

const SYSTEM_CWD = /^(?:\/etc|\/boot|\/usr|\/bin|\/sbin|\/lib\w*|\/sys|\/proc|\/var\/lib|\/var\/log)(?:\/|$)/;

/**
 * Maps words so that patterns judge paths as the user means them: `$PWD/x` and absolute paths
 * inside the working directory become relative, paths inside home become `~/...`; when the working
 * directory is itself a system folder, relative paths become absolute so system rules still apply.
 */
export function pathRewriter(opts: DetectOptions): ((word: string) => string) | undefined {
  const cwd = opts.cwd ? normPath(opts.cwd) : undefined;
  const home = opts.home ? normPath(opts.home) : undefined;
  if (!cwd && !home) return undefined;
  const cwdUsable = cwd !== undefined && cwd !== "/" && cwd !== home && !SYSTEM_DIRS.includes(cwd);
  const cwdIsSystem = cwd !== undefined && SYSTEM_CWD.test(cwd) && !(home && cwd.startsWith(`${home}/`));
  return (word) => {
    let w = word.replace(/^\$PWD(?=\/|$)/, cwd ?? "$PWD");
    if (
      cwdIsSystem &&
      cwd &&
      w !== "" &&
      !w.startsWith("/") &&
      !w.startsWith("~") &&
      !w.startsWith("$") &&
      !w.startsWith("-") &&
      !w.includes("=")
    )
      return `${cwd}/${w}`;
    if (cwdUsable && cwd && (w === cwd || w.startsWith(`${cwd}/`)))
      return w === cwd ? "." : w.slice(cwd.length + 1) || ".";
    if (home && (w === home || w.startsWith(`${home}/`))) w = `~${w.slice(home.length)}`;
    return w;
  };
}

/**
 * Screens a command. Synchronous; never throws. Reads the shell text with the bash grammar once
 * `loadShellGrammar()` has resolved, with the hand-written splitter before that.
 */
export function detectCommand(command: string, opts: DetectOptions = {}): Detection {
  const { commands, scripts } = screenScript(command, protectPaths(opts, pathRewriter(opts)));
  const found: Record<Severity, Map<string, PatternMatch>> = {
    hardline: new Map(),
    dangerous: new Map(),
    warn: new Map(),
  };
  // Whole-script patterns also see scripts decoded or unwrapped from the command (eval, | sh, ...).
  const texts = [command, ...scripts].map((t) => t.replace(/\s+/g, " "));
  for (const { severity, idx } of TABLES) {
    const seen = found[severity];
    for (const p of idx.raw) {
      const hit = texts.find((t) => p.raw!.test(t));
      if (!seen.has(p.key) && hit !== undefined) seen.set(p.key, toMatch(p, severity, hit.trim()));
    }
    for (const c of commands) {
      const candidates = [...(idx.byProgram.get(c.name) ?? []), ...idx.anyProgram];
      for (const p of candidates) {
        if (seen.has(p.key)) continue;
        let hit = false;
        try {
          hit = runs(p, c);
        } catch {
          hit = false;
        }
        if (hit) seen.set(p.key, toMatch(p, severity, c.text));
      }
    }
  }
  for (const m of exfiltrationMatches(commands))
    if (!found.dangerous.has(m.key)) found.dangerous.set(m.key, m);
  if (opts.confine)
    for (const m of confinementMatches(commands, { ...opts, confine: opts.confine }))
      found.hardline.set(m.key, m);
  const detection: Detection = {
    hardline: [...found.hardline.values()],
    dangerous: [...found.dangerous.values()],
    warnings: [...found.warn.values()],
    modifies: modifiedBy(commands),
  };
  return screenNested(detection, [command, ...scripts], commands, opts, detectCommand);
}

function toMatch(p: CommandPattern, severity: Severity, command: string): PatternMatch {
  return { key: p.key, description: p.description, class: p.class, severity, command };
}

const FILE_CHANGERS = new Set([
  "rm",
  "rmdir",
  "unlink",
  "cp",
  "mv",
  "install",
  "truncate",
  "dd",
  "shred",
  "ln",
]);

/** The §2.4 guard: programs and redirections in the command that change files. */
function modifiedBy(commands: readonly Command[]): string[] {
  const out = new Set<string>();
  for (const c of commands) {
    if (FILE_CHANGERS.has(c.name)) out.add(c.name);
    if (
      (c.name === "sed" || c.name === "perl") &&
      c.args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place"))
    )
      out.add(`${c.name} -i`);
    if (c.name === "git" && /^(?:reset|clean|checkout|restore)$/.test(c.args[0] ?? ""))
      out.add(`git ${c.args[0]}`);
    for (const r of c.redirects) if (r.op === ">" && !isHarmlessSink(r.target)) out.add(`> ${r.target}`);
  }
  return [...out];
}
