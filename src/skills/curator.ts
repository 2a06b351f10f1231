import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { writeFileAtomic } from "../core/fs.js";
import { scanSkills } from "./discovery.js";
import { skillOrigins } from "./install-origin.js";
import { SKILL_FILE, skillsDir } from "./paths.js";
import { lastActivity, readUsage, type UsageEntry, updateUsage } from "./usage.js";

/**
 * Upkeep of skills nobody uses: an agent-created skill (and, with `prune_builtins`, a bundled one
 * the user never edited) unused for `archive_after_days` moves to skills/.archive/ — out of the
 * index, never deleted; `restore` brings it back. Pinned skills, installed skills and the user's
 * own are left alone.
 */

export interface CuratorOptions {
  home: string;
  archiveAfterDays: number;
  /** Reported as stale (not moved) after this many idle days. */
  staleAfterDays?: number;
  /** Unedited bundled skills may be archived too. */
  pruneBuiltins?: boolean;
  /** Copy skills/ to HERMES_HOME/backups/skills/ before moving anything, keeping this many copies (0 = no backup). */
  backupKeep?: number;
  now?: Date;
  /** Report what would happen without moving anything. */
  dryRun?: boolean;
}

export interface CuratedSkill {
  name: string;
  /** Folder under skills/ ('/' separators). */
  dir: string;
  idleDays: number;
  origin: "agent" | "bundled";
  /** Where it was archived (under skills/). */
  archivedTo?: string;
}

export interface CuratorReport {
  archived: CuratedSkill[];
  stale: CuratedSkill[];
  pinned: string[];
  /** Skills the curator may archive (agent-created, plus unedited bundled ones with pruneBuiltins). */
  considered: number;
  /** The backup taken before this run moved anything. */
  backup?: string;
}

const DAY_MS = 86_400_000;
const ARCHIVE = ".archive";

const stamp = (d: Date): string => d.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
const rel = (home: string, dir: string): string => relative(skillsDir(home), dir).split(sep).join("/");

function idleDays(entry: UsageEntry | undefined, dir: string, now: Date): number {
  let last = lastActivity(entry);
  if (last === undefined) {
    try {
      last = statSync(join(dir, SKILL_FILE)).mtimeMs;
    } catch {
      last = now.getTime();
    }
  }
  return Math.floor((now.getTime() - last) / DAY_MS);
}

/** Copies skills/ (its archive left out) into backups/skills/<stamp>, dropping the oldest copies past `keep`. */
function backup(home: string, keep: number, now: Date): string {
  const root = join(home, "backups", "skills");
  const target = join(root, stamp(now));
  cpSync(skillsDir(home), target, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (p) => relative(skillsDir(home), p).split(sep)[0] !== ARCHIVE,
  });
  const copies = readdirSync(root).sort();
  for (const old of copies.slice(0, Math.max(0, copies.length - keep)))
    rmSync(join(root, old), { recursive: true, force: true });
  return target;
}

/** Archives idle skills the curator looks after. Never deletes a skill. */
export function runCurator(opts: CuratorOptions): CuratorReport {
  const now = opts.now ?? new Date();
  const usage = readUsage(opts.home);
  const originOf = skillOrigins(opts.home);
  const report: CuratorReport = { archived: [], stale: [], pinned: [], considered: 0 };
  const due: Array<{ item: CuratedSkill; from: string }> = [];
  for (const record of scanSkills(opts.home).skills) {
    const name = record.skill.name;
    const entry = usage[name];
    const found = originOf(name);
    const origin =
      found === "agent" ? "agent" : opts.pruneBuiltins && found === "bundled" ? "bundled" : undefined;
    if (!origin) continue;
    report.considered++;
    if (entry?.pinned) {
      report.pinned.push(name);
      continue;
    }
    const item: CuratedSkill = {
      name,
      dir: rel(opts.home, record.dir),
      idleDays: idleDays(entry, record.dir, now),
      origin,
    };
    if (item.idleDays >= opts.archiveAfterDays) {
      item.archivedTo = `${ARCHIVE}/${name}-${stamp(now)}`;
      due.push({ item, from: record.dir });
      report.archived.push(item);
    } else if (opts.staleAfterDays !== undefined && item.idleDays >= opts.staleAfterDays) {
      report.stale.push(item);
    }
  }
  if (opts.dryRun) return report;
  if (due.length > 0 && (opts.backupKeep ?? 0) > 0) report.backup = backup(opts.home, opts.backupKeep!, now);
  for (const { item, from } of due) {
    const target = join(skillsDir(opts.home), item.archivedTo!);
    mkdirSync(dirname(target), { recursive: true });
    renameSync(from, target);
    updateUsage(opts.home, (u) => {
      const e = u[item.name] ?? {};
      e.archived_at = now.toISOString();
      e.archived_from = item.dir;
      e.archived_to = item.archivedTo;
      u[item.name] = e;
    });
  }
  try {
    writeFileAtomic(
      join(skillsDir(opts.home), ".curator_state"),
      `${JSON.stringify({ last_run: now.toISOString(), archived: report.archived.length }, null, 2)}\n`,
    );
  } catch {
    // the state file only records when the curator last ran
  }
  return report;
}

export type RestoreResult = { ok: true; dir: string } | { ok: false; error: string };

/** Moves an archived skill back to where it was; the idle clock restarts. */
export function restoreSkill(home: string, name: string, now: Date = new Date()): RestoreResult {
  const entry = readUsage(home)[name];
  if (!entry?.archived_to || !entry.archived_from)
    return { ok: false, error: `'${name}' is not an archived skill` };
  const from = join(skillsDir(home), entry.archived_to);
  const to = join(skillsDir(home), entry.archived_from);
  if (!existsSync(from)) return { ok: false, error: `the archived copy of '${name}' is missing (${from})` };
  if (existsSync(to)) return { ok: false, error: `${to} already exists; move it away first` };
  mkdirSync(dirname(to), { recursive: true });
  renameSync(from, to);
  updateUsage(home, (u) => {
    const e = u[name] ?? {};
    delete e.archived_at;
    delete e.archived_from;
    delete e.archived_to;
    e.last_changed = now.toISOString();
    u[name] = e;
  });
  return { ok: true, dir: to };
}
