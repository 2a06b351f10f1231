import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fingerprint } from "../core/fingerprint.js";
import { writeFileAtomic } from "../core/fs.js";
import {
  type BundledSkill,
  bundledSkillsDir,
  hashSkillFiles,
  listBundledSkills,
  listSkillFiles,
} from "./bundled-files.js";
import { BUNDLED_MANIFEST, SKILL_FILE, skillsDir } from "./paths.js";

/**
 * Manifest-based sync of the bundled skills into HERMES_HOME/skills. The manifest remembers, per
 * bundled skill, the hash of each file as last installed. On each sync: a new bundled skill is
 * copied in; an installed one whose files still match the manifest (untouched by the user) is
 * updated; one the user edited is kept as is; one the user deleted stays deleted.
 */

interface ManifestEntry {
  /** Folder under skills/ ('/' separators). */
  dir: string;
  /** Hashes of the files as last installed from the bundle. */
  files: Record<string, string>;
}

interface Manifest {
  version: 1;
  /** Stat fingerprint of the bundle at the last sync: equal means nothing to do. */
  stamp?: string;
  skills: Record<string, ManifestEntry>;
}

export interface SyncReport {
  added: string[];
  updated: string[];
  /** Installed skills with user edits that a newer bundled version did not overwrite. */
  keptEdited: string[];
  /** Bundled skills the user deleted (never re-added). */
  skippedDeleted: string[];
  /** Nothing to compare (no bundled skills shipped). */
  noBundle?: boolean;
}

export type BundledState = "pristine" | "modified" | "deleted";

const manifestPath = (home: string): string => join(skillsDir(home), BUNDLED_MANIFEST);

function readManifest(home: string): Manifest {
  try {
    const raw = JSON.parse(readFileSync(manifestPath(home), "utf8")) as Partial<Manifest>;
    if (raw && typeof raw.skills === "object" && raw.skills !== null) {
      return { version: 1, ...(raw.stamp ? { stamp: raw.stamp } : {}), skills: raw.skills };
    }
  } catch {
    // missing or damaged: start over (installed files are compared, so nothing is clobbered)
  }
  return { version: 1, skills: {} };
}

function writeManifest(home: string, manifest: Manifest): void {
  writeFileAtomic(manifestPath(home), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Cheap fingerprint of the bundle (paths, sizes, mtimes): no file is read when it has not moved. */
function bundleStamp(root: string): string {
  const parts: string[] = [root];
  const walk = (dir: string): void => {
    for (const rel of listSkillFiles(dir)) {
      try {
        const st = statSync(join(dir, rel));
        parts.push(`${rel}:${st.size}:${Math.trunc(st.mtimeMs)}`);
      } catch {
        parts.push(`${rel}:?`);
      }
    }
  };
  walk(root);
  return fingerprint(parts.join("\n"));
}

/** The shipped bundle does not change under a running process: its stamp is taken once per root. */
let shippedStamp: { root: string; stamp: string } | undefined;

function stampOf(root: string, shipped: boolean): string {
  if (!shipped) return bundleStamp(root);
  if (shippedStamp?.root !== root) shippedStamp = { root, stamp: bundleStamp(root) };
  return shippedStamp.stamp;
}

const sameFiles = (a: Record<string, string>, b: Record<string, string>): boolean => {
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => a[k] === b[k]);
};

/** Copies every file of a bundled skill into `target`, each atomically. */
function copySkill(skill: BundledSkill, target: string): void {
  for (const rel of Object.keys(skill.files)) {
    const dest = join(target, rel);
    mkdirSync(dirname(dest), { recursive: true });
    writeFileAtomic(dest, readFileSync(join(skill.dir, rel)));
  }
}

/** Where a bundled skill lives in the home (its manifest folder, else its bundle folder). */
const installedDir = (home: string, skill: BundledSkill, entry: ManifestEntry | undefined): string =>
  join(skillsDir(home), entry?.dir ?? skill.relDir);

/** Whether the installed copy still has exactly the files last installed from the bundle. */
function untouched(dir: string, entry: ManifestEntry): boolean {
  const current = hashSkillFiles(dir);
  return Object.entries(entry.files).every(([rel, hash]) => current[rel] === hash);
}

/**
 * Brings HERMES_HOME/skills up to date with the bundle. Idempotent; cheap when the bundle has not
 * changed since the last sync (one stat per bundled file). Never throws for a single bad skill.
 */
export function syncBundledSkills(home: string, root?: string | null): SyncReport {
  const report: SyncReport = { added: [], updated: [], keptEdited: [], skippedDeleted: [] };
  const shipped = root === undefined;
  root = bundleRoot(root);
  if (!root) return { ...report, noBundle: true };
  const manifest = readManifest(home);
  const stamp = stampOf(root, shipped);
  if (manifest.stamp === stamp && existsSync(skillsDir(home))) return report;
  for (const skill of listBundledSkills(root)) {
    const entry = manifest.skills[skill.name];
    const target = installedDir(home, skill, entry);
    const present = existsSync(join(target, SKILL_FILE));
    try {
      if (!entry) {
        // First sight of this bundled skill: install it, or adopt a same-named skill already there.
        if (!present) {
          copySkill(skill, target);
          report.added.push(skill.name);
        } else if (!sameFiles(hashSkillFiles(target), skill.files)) {
          report.keptEdited.push(skill.name);
        }
        manifest.skills[skill.name] = { dir: skill.relDir, files: skill.files };
        continue;
      }
      if (!present) {
        report.skippedDeleted.push(skill.name);
        continue;
      }
      if (sameFiles(entry.files, skill.files)) continue;
      if (!untouched(target, entry)) {
        report.keptEdited.push(skill.name);
        continue;
      }
      copySkill(skill, target);
      for (const rel of Object.keys(entry.files)) {
        if (!(rel in skill.files)) rmSync(join(target, rel), { force: true });
      }
      manifest.skills[skill.name] = { dir: entry.dir, files: skill.files };
      report.updated.push(skill.name);
    } catch {
      // A skill that cannot be written (permissions, disk) is retried on the next sync.
    }
  }
  manifest.stamp = stamp;
  try {
    writeManifest(home, manifest);
  } catch {
    // A read-only home still works with the skills it has.
  }
  return report;
}

/** The bundle folder: the one given, none for null, the package's when omitted. */
const bundleRoot = (root: string | null | undefined): string | undefined =>
  root === undefined ? bundledSkillsDir() : (root ?? undefined);

function findBundled(name: string, root: string | null | undefined): BundledSkill | undefined {
  return listBundledSkills(bundleRoot(root)).find((s) => s.name === name);
}

export type ResetResult = { ok: true; name: string; dir: string } | { ok: false; error: string };

/** Restores a bundled skill to its shipped files (re-adds it if the user deleted it). */
export function resetBundledSkill(home: string, name: string, root?: string | null): ResetResult {
  const skill = findBundled(name, root);
  if (!skill) return { ok: false, error: `'${name}' is not a bundled skill.` };
  const manifest = readManifest(home);
  const target = installedDir(home, skill, manifest.skills[name]);
  try {
    rmSync(target, { recursive: true, force: true });
    copySkill(skill, target);
    manifest.skills[name] = { dir: manifest.skills[name]?.dir ?? skill.relDir, files: skill.files };
    writeManifest(home, manifest);
  } catch (err) {
    return { ok: false, error: `Could not restore '${name}': ${(err as Error).message}` };
  }
  return { ok: true, name, dir: target };
}

export interface FileDiff {
  /** Relative to the skill folder. */
  path: string;
  /** modified: both differ; added: only the installed copy has it; removed: only the bundle has it. */
  status: "modified" | "added" | "removed";
  bundled?: string;
  installed?: string;
}

export type DiffResult =
  | { ok: true; name: string; dir: string; bundledDir: string; files: FileDiff[] }
  | { ok: false; error: string };

/** How the installed copy of a bundled skill differs from the shipped one (empty `files` = identical). */
export function diffBundledSkill(home: string, name: string, root?: string | null): DiffResult {
  const skill = findBundled(name, root);
  if (!skill) return { ok: false, error: `'${name}' is not a bundled skill.` };
  const target = installedDir(home, skill, readManifest(home).skills[name]);
  if (!existsSync(join(target, SKILL_FILE))) {
    return {
      ok: false,
      error: `'${name}' is not installed (deleted?); 'hermes skills reset ${name}' restores it.`,
    };
  }
  const installed = hashSkillFiles(target);
  const read = (dir: string, rel: string): string => readFileSync(join(dir, rel), "utf8");
  const files: FileDiff[] = [];
  for (const rel of [...new Set([...Object.keys(skill.files), ...Object.keys(installed)])].sort()) {
    const b = skill.files[rel];
    const i = installed[rel];
    if (b === i) continue;
    if (b && i)
      files.push({
        path: rel,
        status: "modified",
        bundled: read(skill.dir, rel),
        installed: read(target, rel),
      });
    else if (i) files.push({ path: rel, status: "added", installed: read(target, rel) });
    else files.push({ path: rel, status: "removed", bundled: read(skill.dir, rel) });
  }
  return { ok: true, name, dir: target, bundledDir: skill.dir, files };
}

/** State of each bundled skill in a home: name → pristine | modified | deleted. */
export function bundledSkillStates(home: string, root?: string | null): Map<string, BundledState> {
  const manifest = readManifest(home);
  const out = new Map<string, BundledState>();
  for (const skill of listBundledSkills(bundleRoot(root))) {
    const target = installedDir(home, skill, manifest.skills[skill.name]);
    if (!existsSync(join(target, SKILL_FILE))) out.set(skill.name, "deleted");
    else out.set(skill.name, sameFiles(hashSkillFiles(target), skill.files) ? "pristine" : "modified");
  }
  return out;
}
