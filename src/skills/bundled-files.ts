import { createHash } from "node:crypto";
import { type Dirent, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { prebuiltParse } from "./bundled-parsed.js";
import { isHiddenEntry, SKILL_FILE } from "./paths.js";
import { type ParsedSkill, parseSkillMd, rememberParsedSkill } from "./skill-file.js";

/**
 * The skills shipped with the package (`skills/<category>/<name>/` at the package root) and the
 * file hashes the sync compares. `HERMES_BUNDLED_SKILLS` points elsewhere (packagers, tests).
 */

/** One bundled skill: its name, its folder relative to the skills root, and a hash per file. */
export interface BundledSkill {
  name: string;
  /** `category/name` (or `name`), with '/' separators: where it goes under HERMES_HOME/skills. */
  relDir: string;
  /** Absolute folder in the package. */
  dir: string;
  /** Relative file path ('/' separators) → sha256 hex. */
  files: Record<string, string>;
}

let cachedRoot: string | undefined;

/** The folder of bundled skills, or undefined when the package ships none. */
export function bundledSkillsDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env.HERMES_BUNDLED_SKILLS?.trim();
  if (override) return existsSync(override) ? override : undefined;
  if (cachedRoot !== undefined) return cachedRoot || undefined;
  const pkg = packageRoot();
  const skills = pkg ? join(pkg, "skills") : undefined;
  cachedRoot = skills && existsSync(skills) ? skills : "";
  return cachedRoot || undefined;
}

let cachedPackage: string | null | undefined;

/** The package's folder (its package.json names hermes-agent), or undefined. */
function packageRoot(): string | undefined {
  if (cachedPackage !== undefined) return cachedPackage ?? undefined;
  cachedPackage = null;
  // Walk up from this module: the same lookup works from src/, dist/ and the esbuild bundle.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === "hermes-agent") {
        cachedPackage = dir;
        break;
      }
    } catch {
      // keep walking up
    }
    dir = dirname(dir);
  }
  return cachedPackage ?? undefined;
}

export const sha256 = (data: Buffer | string): string => createHash("sha256").update(data).digest("hex");

/** Every regular file under a skill folder (relative, '/' separators, sorted), hidden entries skipped. */
export function listSkillFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (isHiddenEntry(e.name)) continue;
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile()) out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/** Hash of each file of a folder; missing or unreadable folders give {}. */
export function hashSkillFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of listSkillFiles(dir)) {
    try {
      files[rel] = sha256(readFileSync(join(dir, rel)));
    } catch {
      // vanished between listing and reading: treat as absent
    }
  }
  return files;
}

/**
 * A bundled SKILL.md parsed, or undefined when it is invalid. The build's parse is taken when it has
 * this exact text (see bundled-parsed.ts) and remembered for the index, which reads the installed
 * copy of the same text next.
 */
function parseBundled(text: string, path: string, relDir: string): ParsedSkill | undefined {
  const prebuilt = prebuiltParse(packageRoot(), relDir, sha256(text));
  if (prebuilt) {
    rememberParsedSkill(text, path, prebuilt);
    return prebuilt;
  }
  const parsed = parseSkillMd(text, path);
  return parsed.ok ? parsed.skill : undefined;
}

/** The bundled skills, found like discovery finds a home's (a folder with SKILL.md is a skill). */
export function listBundledSkills(root: string | undefined = bundledSkillsDir()): BundledSkill[] {
  if (!root) return [];
  const out: BundledSkill[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > 4) return;
    const skillMd = join(dir, SKILL_FILE);
    if (dir !== root && existsSync(skillMd)) {
      const relDir = relative(root, dir).split(sep).join("/");
      const skill = parseBundled(readFileSync(skillMd, "utf8"), skillMd, relDir);
      if (skill) out.push({ name: skill.name, relDir, dir, files: hashSkillFiles(dir) });
      return;
    }
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (isHiddenEntry(n)) continue;
      const full = join(dir, n);
      try {
        if (statSync(full).isDirectory()) walk(full, depth + 1);
      } catch {
        // unreadable entry: skip
      }
    }
  };
  walk(root, 0);
  return out;
}
