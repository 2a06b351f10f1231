import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fingerprint } from "../core/fingerprint.js";
import { writeFileAtomic } from "../core/fs.js";
import { loadSkills, locateSkills, type SkillLocation, skillRoots } from "./discovery.js";

/**
 * What the prompt index needs of each skill, cached in two layers: in the process, and as a
 * snapshot on disk (HERMES_HOME/cache/skills-index.json). Both are keyed by the skills tree's
 * shape (each SKILL.md's path, size and mtime), so a fresh process skips parsing every SKILL.md
 * when nothing changed, and any edit, addition or removal rebuilds.
 */

export interface IndexEntry {
  name: string;
  description: string;
  category?: string;
  platforms: string[];
  requiresToolsets: string[];
  requiresTools: string[];
  fallbackForToolsets: string[];
  fallbackForTools: string[];
  /** Absolute path of SKILL.md. */
  path: string;
}

export interface IndexSnapshot {
  entries: IndexEntry[];
  /** Broken or duplicate skills (paths named), for `hermes skills list` and the log. */
  problems: string[];
  /** Where this answer came from: the process cache, the disk snapshot, or a fresh parse. */
  from: "memory" | "disk" | "scan";
}

const SNAPSHOT_VERSION = 1;
const memory = new Map<string, { key: string; entries: IndexEntry[]; problems: string[] }>();

export const snapshotPath = (home: string): string => join(home, "cache", "skills-index.json");

function treeKey(roots: readonly string[], locations: readonly SkillLocation[]): string {
  const lines = [`v${SNAPSHOT_VERSION}`, ...roots];
  for (const l of locations) lines.push(`${l.path}\t${l.size}\t${l.mtimeMs}`);
  return fingerprint(lines.join("\n"));
}

function readSnapshot(path: string, key: string): { entries: IndexEntry[]; problems: string[] } | undefined {
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as {
      key?: string;
      entries?: IndexEntry[];
      problems?: string[];
    };
    if (raw.key === key && Array.isArray(raw.entries)) {
      return { entries: raw.entries, problems: Array.isArray(raw.problems) ? raw.problems : [] };
    }
  } catch {
    // absent or damaged: rebuild
  }
  return undefined;
}

/**
 * The index entries of every skill under the home (plus external dirs). Never throws; a snapshot
 * that cannot be written only costs the next process a re-parse.
 */
export function loadIndexEntries(home: string, externalDirs: readonly string[] = []): IndexSnapshot {
  const roots = skillRoots(home, externalDirs);
  const locations = locateSkills(roots);
  const key = treeKey(
    roots.map((r) => r.dir),
    locations,
  );
  const memoKey = `${home}\0${roots.map((r) => r.dir).join("\0")}`;
  const cached = memory.get(memoKey);
  if (cached?.key === key) return { entries: cached.entries, problems: cached.problems, from: "memory" };
  const file = snapshotPath(home);
  const disk = readSnapshot(file, key);
  if (disk) {
    memory.set(memoKey, { key, ...disk });
    return { ...disk, from: "disk" };
  }
  const scan = loadSkills(locations);
  const entries = scan.skills.map(
    (r): IndexEntry => ({
      name: r.skill.name,
      description: r.skill.description,
      ...(r.category ? { category: r.category } : {}),
      platforms: r.skill.platforms,
      requiresToolsets: r.skill.requiresToolsets,
      requiresTools: r.skill.requiresTools,
      fallbackForToolsets: r.skill.fallbackForToolsets,
      fallbackForTools: r.skill.fallbackForTools,
      path: r.path,
    }),
  );
  memory.set(memoKey, { key, entries, problems: scan.problems });
  try {
    writeFileAtomic(file, JSON.stringify({ key, entries, problems: scan.problems }), 0o600);
  } catch {
    // read-only home: the in-process layer still serves this process
  }
  return { entries, problems: scan.problems, from: "scan" };
}

/** Drops the in-process layer (tests, `/reload-skills --now`); the disk snapshot re-validates itself. */
export function clearIndexMemory(): void {
  memory.clear();
}
