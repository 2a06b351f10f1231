import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { isHiddenEntry, SKILL_FILE, skillsDir } from "./paths.js";
import { type ParsedSkill, parseSkillMd } from "./skill-file.js";

/**
 * Finds skills on disk. The home's `skills/` folder comes first and is writable; folders listed in
 * `skills.external_dirs` follow, read-only. A folder holding SKILL.md is a skill (its sub-folders
 * are its files, not more skills); any other folder is a category. Broken files are reported and
 * skipped, never fatal.
 */

/** Where a skill was found. */
export type SkillSource = "home" | "external";

export interface SkillRoot {
  dir: string;
  source: SkillSource;
}

/** A SKILL.md found on disk, before parsing. */
export interface SkillLocation {
  /** Absolute path of SKILL.md. */
  path: string;
  /** The skill's folder. */
  dir: string;
  root: SkillRoot;
  /** Category folders between the root and the skill, joined with '/' ("" at the top). */
  categoryPath: string;
  mtimeMs: number;
  size: number;
}

export interface SkillRecord {
  skill: ParsedSkill;
  dir: string;
  path: string;
  source: SkillSource;
  /** The frontmatter's category, else the folder path. */
  category: string | undefined;
}

export interface ScanResult {
  skills: SkillRecord[];
  /** Broken or duplicate skills, each naming its path. */
  problems: string[];
}

/** Deepest category nesting searched: deeper folders are ignored rather than walked forever. */
const MAX_DEPTH = 6;

/** The home's skills folder plus external ones (missing folders are dropped by the walk). */
export function skillRoots(home: string, externalDirs: readonly string[] = []): SkillRoot[] {
  const homeDir = resolve(skillsDir(home));
  const roots: SkillRoot[] = [{ dir: homeDir, source: "home" }];
  const seen = new Set([homeDir]);
  for (const raw of externalDirs) {
    if (typeof raw !== "string" || !raw.trim()) continue;
    const expanded = raw.startsWith("~/") ? join(process.env.HOME ?? "", raw.slice(2)) : raw;
    const dir = resolve(expanded);
    if (seen.has(dir)) continue;
    seen.add(dir);
    roots.push({ dir, source: "external" });
  }
  return roots;
}

function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A directory entry that is (or links to) a folder. */
function isDir(entry: Dirent, full: string): boolean {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(full).isDirectory();
  } catch {
    return false;
  }
}

/** Every SKILL.md under the roots with its stat, without reading any file (cheap: the cache key). */
export function locateSkills(roots: readonly SkillRoot[]): SkillLocation[] {
  const out: SkillLocation[] = [];
  const walk = (root: SkillRoot, dir: string, depth: number, visited: Set<string>): void => {
    const skillMd = join(dir, SKILL_FILE);
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(skillMd);
    } catch {
      st = undefined;
    }
    if (st?.isFile() && dir !== root.dir) {
      const rel = relative(root.dir, dir).split(sep);
      out.push({
        path: skillMd,
        dir,
        root,
        categoryPath: rel.slice(0, -1).join("/"),
        mtimeMs: st.mtimeMs,
        size: st.size,
      });
      return;
    }
    if (depth >= MAX_DEPTH) return;
    let real: string;
    try {
      const s = statSync(dir);
      real = `${s.dev}:${s.ino}`;
    } catch {
      return;
    }
    // Symlinked categories are followed, but a link back to an ancestor must not loop.
    if (visited.has(real)) return;
    const next = new Set(visited).add(real);
    const entries = listDir(dir).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (isHiddenEntry(entry.name)) continue;
      const full = join(dir, entry.name);
      if (isDir(entry, full)) walk(root, full, depth + 1, next);
    }
  };
  for (const root of roots) walk(root, root.dir, 0, new Set());
  return out;
}

/** Parses located skills. The first skill of a name wins (home before external dirs). */
export function loadSkills(locations: readonly SkillLocation[]): ScanResult {
  const skills: SkillRecord[] = [];
  const problems: string[] = [];
  const byName = new Map<string, SkillRecord>();
  for (const loc of locations) {
    let text: string;
    try {
      text = readFileSync(loc.path, "utf8");
    } catch (err) {
      problems.push(`${loc.path}: cannot read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
      continue;
    }
    const parsed = parseSkillMd(text, loc.path);
    if (!parsed.ok) {
      problems.push(parsed.error);
      continue;
    }
    const earlier = byName.get(parsed.skill.name);
    if (earlier) {
      problems.push(
        `${loc.path}: skill '${parsed.skill.name}' is already defined at ${earlier.path}; skipped`,
      );
      continue;
    }
    const record: SkillRecord = {
      skill: parsed.skill,
      dir: loc.dir,
      path: loc.path,
      source: loc.root.source,
      category: parsed.skill.category ?? (loc.categoryPath || undefined),
    };
    byName.set(parsed.skill.name, record);
    skills.push(record);
  }
  return { skills, problems };
}

/** Finds and parses every skill of a home (plus external dirs). */
export function scanSkills(home: string, externalDirs: readonly string[] = []): ScanResult {
  return loadSkills(locateSkills(skillRoots(home, externalDirs)));
}

/** One skill by name, or undefined. */
export function findSkill(
  home: string,
  name: string,
  externalDirs: readonly string[] = [],
): SkillRecord | undefined {
  return scanSkills(home, externalDirs).skills.find((s) => s.skill.name === name);
}
