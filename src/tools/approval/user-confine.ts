import { realpathSync } from "node:fs";
import type { Command } from "./commands.js";
import { spelled } from "./protected-paths.js";
import { walksTree, walksWorkingFolder } from "./recursive-programs.js";
import { absoluteOf, isUnder, linkFollower, resolveDots, type WordRoots } from "./resolved-paths.js";
import { SUBSTITUTION } from "./shell-parse.js";
import { normPath, operands } from "./targets.js";
import type { PatternMatch } from "./types.js";

/**
 * What a chat user's commands may reach on a shared gateway. Writes are judged by the HERMES_HOME
 * rules; this judges every path word of every command, read or write: nothing under another
 * user's folder (nor the list of users), nothing of Hermes's private files (config.yaml, .env,
 * auth.json, state.db, logs, pairing, other profiles: all of HERMES_HOME except the user's own
 * folder, their memory, the skills and the tools' spilled output), and no recursive walk of a
 * folder that holds any of these. Globs are judged by what they could expand to, words built
 * from unknown variables by their literal beginning.
 */

/** One chat user's places, as the gate receives them from their scope. */
export interface Confinement {
  /** HERMES_HOME/users/<platform>/<user id>: their memory and, by default, their working folder. */
  dir: string;
  /** Their working folder when it is theirs alone. */
  work?: string;
  /** The folder holding every user's working folder (gateway.workdir_root, or HERMES_HOME/users). */
  workRoot: string;
  /** Their memory folder: their own, or the profile's when memory is shared. */
  memoryDir: string;
}

export const CHAT_USER_SCOPE_KEY = "chat_user_scope";

/** Everything a judgement needs, each folder absolute and (on this machine) also with links followed. */
interface Zones {
  open: string[];
  userRoots: string[];
  privateRoots: string[];
  hermes?: string;
  home?: string;
}

/** Names HERMES_HOME keeps at its top, tried against a glob there (`~/.hermes/*`). */
const PRIVATE_NAMES = [
  "config.yaml",
  ".env",
  "auth.json",
  "state.db",
  "state.db-wal",
  "processes.json",
  "logs",
  "platforms",
  "cron",
  "profiles",
  "users",
  "memories",
  "sessions",
  "trajectories",
  "SOUL.md",
];

type Reason = "other_user" | "private" | "walk";

const REASONS: Record<Reason, string> = {
  other_user: "another user's folder or memory, or the list of this gateway's users",
  private: "Hermes's private files (HERMES_HOME: config, keys, sessions, logs, pairing)",
  walk: "a whole folder that holds Hermes's private files or other users' folders",
};

const zonesCache = new Map<string, Zones>();

function zonesOf(
  c: Confinement,
  hermesHome: string | undefined,
  home: string | undefined,
  follow: boolean,
): Zones {
  const key = JSON.stringify([c, hermesHome, home, follow]);
  const hit = zonesCache.get(key);
  if (hit) return hit;
  const both = (p: string): string[] => {
    const abs = resolveDots(normPath(p));
    if (!follow) return [abs];
    try {
      const real = realpathSync.native(abs);
      return real === abs ? [abs] : [abs, real];
    } catch {
      return [abs];
    }
  };
  const hermes = hermesHome ? resolveDots(normPath(hermesHome)) : undefined;
  const open = [c.dir, c.work, c.memoryDir, hermes && `${hermes}/skills`, hermes && `${hermes}/cache`]
    .filter((p): p is string => p !== undefined)
    .flatMap(both);
  const userRoots = [c.workRoot, hermes && `${hermes}/users`].filter((p): p is string => !!p).flatMap(both);
  // A profile's HERMES_HOME (~/.hermes/profiles/NAME) sits inside the default one, and ~/.hermes
  // may be another installation's: both are as private as HERMES_HOME itself.
  const profileRoot = hermes && /^(.*)\/profiles\/[^/]+$/.exec(hermes)?.[1];
  const privateRoots = [hermes, profileRoot, home && `${resolveDots(normPath(home))}/.hermes`]
    .filter((p): p is string => !!p)
    .flatMap(both);
  const zones: Zones = {
    open,
    userRoots,
    privateRoots,
    ...(hermes ? { hermes } : {}),
    ...(home ? { home: resolveDots(normPath(home)) } : {}),
  };
  if (zonesCache.size > 64) zonesCache.clear();
  zonesCache.set(key, zones);
  return zones;
}

/** Why the concrete path `p` is out of reach, or undefined when it is not. */
function refusalOf(p: string, z: Zones): Reason | undefined {
  if (z.open.some((d) => isUnder(p, d))) return undefined;
  if (z.userRoots.some((d) => isUnder(p, d))) return "other_user";
  // HERMES_HOME itself may be listed (names only); what is in it may not be read.
  if (z.privateRoots.includes(p)) return undefined;
  return z.privateRoots.some((d) => isUnder(p, d)) ? "private" : undefined;
}

/** True when walking `p` would pass through somewhere out of reach. */
const holdsProtected = (p: string, z: Zones): boolean =>
  [...z.userRoots, ...z.privateRoots].some((q) => q !== p && isUnder(q, p)) ||
  (z.privateRoots.includes(p) && !z.open.some((d) => isUnder(p, d)));

/** Glob characters, brace alternatives, variables and backticks: a part of a word known only when it runs. */
const UNKNOWN_PART = /[*?[{$`]/;

/** A shell glob segment as a regular expression; `*` and `?` skip dotfiles at the start, as bash does. */
function segmentMatches(glob: string, name: string): boolean {
  if (name.startsWith(".") && !glob.startsWith(".")) return false;
  const source = glob
    .replace(/[.+^$()|\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\[!/g, "[^")
    .replace(/\{([^}]*)\}/g, (_, alts: string) => `(?:${alts.split(",").join("|")})`);
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return true;
  }
}

/** Where a word starts from: its root folder and the rest, or undefined when that cannot be known. */
function anchorOf(word: string, roots: WordRoots): { base: string; rest: string } | undefined {
  const w = word.replace(/^\$\{(HOME|HERMES_HOME|PWD)\}(?=\/|$)/, "$$$1");
  const root = /^(?:~|\$HOME|\$HERMES_HOME|\$PWD)(?=\/|$)/.exec(w)?.[0];
  if (root !== undefined) {
    const base = root === "$HERMES_HOME" ? roots.hermes : root === "$PWD" ? roots.cwd : roots.home;
    return base ? { base, rest: w.slice(root.length) } : undefined;
  }
  if (w.startsWith("/")) return { base: "", rest: w };
  if (/^[~$`-]/.test(w) || w.startsWith(SUBSTITUTION) || !roots.cwd) return undefined;
  return { base: roots.cwd, rest: `/${w}` };
}

/**
 * Judges one word that is not a plain path: a glob, or a word with a variable or substitution
 * in it. `walks`: the command reads what it names recursively.
 */
function judgePattern(word: string, roots: WordRoots, z: Zones, walks: boolean): Reason | undefined {
  const anchored = anchorOf(word, roots);
  if (!anchored) return undefined;
  const { base, rest } = anchored;
  const special = rest.search(new RegExp(`${UNKNOWN_PART.source}|${SUBSTITUTION}`));
  const cut = rest.lastIndexOf("/", special);
  const folder = resolveDots(`${base}${rest.slice(0, cut)}`);
  const refusal = refusalOf(folder, z);
  if (refusal) return refusal;
  const after = rest.slice(cut + 1);
  const segments = after.split("/");
  // Each unknown segment as one folder level: `work/*/../../../43` still leads to 43.
  const placeholder = resolveDots(
    `${folder}/${segments.map((s) => (UNKNOWN_PART.test(s) || s.includes(SUBSTITUTION) ? "x" : s)).join("/")}`,
  );
  const through = refusalOf(placeholder, z);
  if (through) return through;
  const first = segments[0] ?? "";
  const isGlob = !/[$`]/.test(first) && !first.includes(SUBSTITUTION);
  // A variable right under HERMES_HOME may name any of its files.
  if (!isGlob) return z.privateRoots.includes(folder) ? "private" : undefined;
  // What the first glob segment may expand to below `folder`.
  for (const q of [...z.userRoots, ...z.privateRoots]) {
    if (q === folder) {
      if (PRIVATE_NAMES.some((n) => segmentMatches(first, n) && refusalOf(`${folder}/${n}`, z)))
        return "private";
    } else if (isUnder(q, folder)) {
      const next = q.slice(folder === "/" ? 1 : folder.length + 1).split("/")[0]!;
      if (!segmentMatches(first, next)) continue;
      // Walked, or gone into (`~/.h*/config.yaml`); merely naming HERMES_HOME lists names only.
      if (walks) return "walk";
      const reason = refusalOf(q, z) ?? (segments.length > 1 ? "private" : undefined);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** `${HOME}/x` and `${HERMES_HOME}/x`, spelled with braces but otherwise plain paths. */
function bracedRoot(word: string, roots: WordRoots): string | undefined {
  if (!word.startsWith("${")) return undefined;
  const anchored = anchorOf(word, roots);
  const rest = anchored?.rest ?? "";
  if (!anchored || UNKNOWN_PART.test(rest) || rest.includes(SUBSTITUTION)) return undefined;
  return resolveDots(`${anchored.base}${rest}`);
}

/** The path part of a word: `of=PATH`, `--file=PATH`, `@PATH`, `name=@PATH` give PATH. */
const pathPart = (word: string): string =>
  /^(?:--?[a-zA-Z][\w-]*=|[\w.-]+=[@<]?|@)(.+)$/.exec(word)?.[1] ?? word;

/** Judges one word of a command; undefined when it stays within reach. */
function judgeWord(
  raw: string,
  roots: WordRoots,
  z: Zones,
  walks: boolean,
  follow: ((abs: string) => string) | undefined,
): { reason: Reason; shown: string } | undefined {
  const word = pathPart(raw);
  if (word === "" || word.includes("://")) return undefined;
  const abs = absoluteOf(word, roots) ?? bracedRoot(word, roots);
  if (abs === undefined) {
    if (!UNKNOWN_PART.test(word) && !word.includes(SUBSTITUTION)) return undefined;
    const reason = judgePattern(word, roots, z, walks);
    return reason ? { reason, shown: word } : undefined;
  }
  for (const p of follow ? new Set([abs, follow(abs)]) : [abs]) {
    const reason = refusalOf(p, z) ?? (walks && holdsProtected(p, z) ? "walk" : undefined);
    if (reason) return { reason, shown: spelled(p, z.home, z.hermes) };
  }
  return undefined;
}

const matchOf = (hit: { reason: Reason; shown: string }, c: Command): PatternMatch => ({
  key: CHAT_USER_SCOPE_KEY,
  description: `reaching ${REASONS[hit.reason]} (${hit.shown})`,
  class: "security",
  severity: "hardline",
  command: c.text,
});

const SKIPPED_REDIRECTS = new Set(["<<", "<<<"]);

export interface ConfineOptions {
  confine: Confinement;
  cwd?: string;
  home?: string;
  hermesHome?: string;
  followLinks?: boolean;
}

/**
 * The hardline match for the first word of `commands` that reaches outside a chat user's places,
 * or none. Never throws.
 */
export function confinementMatches(commands: readonly Command[], opts: ConfineOptions): PatternMatch[] {
  try {
    const z = zonesOf(opts.confine, opts.hermesHome, opts.home, opts.followLinks === true);
    const roots: WordRoots = {
      ...(opts.cwd ? { cwd: resolveDots(normPath(opts.cwd)) } : {}),
      ...(z.home ? { home: z.home } : {}),
      ...(z.hermes ? { hermes: z.hermes } : {}),
    };
    const follow = opts.followLinks ? linkFollower() : undefined;
    // A folder out of reach is out of reach to work in too (`cd ../.. && ls`, a workdir there).
    const here = roots.cwd === undefined ? undefined : judgeWord(roots.cwd, roots, z, false, follow);
    if (here && commands[0]) return [matchOf(here, commands[0])];
    for (const c of commands) {
      const walks = walksTree(c);
      const words = [
        ...c.args,
        ...c.redirects.filter((r) => !SKIPPED_REDIRECTS.has(r.op)).map((r) => r.target),
      ];
      if (c.program) words.push(c.program);
      if (walks && walksWorkingFolder(c, operands(c.args))) words.push(".");
      for (const w of words) {
        const hit = judgeWord(w, roots, z, walks, follow);
        if (hit) return [matchOf(hit, c)];
      }
    }
  } catch {
    // A word that cannot be judged adds nothing.
  }
  return [];
}
