import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { listSkillFiles } from "./bundled-files.js";
import { isHiddenEntry, LINKED_DIRS } from "./paths.js";

/**
 * A skill's extra files: what exists under references/, templates/, scripts/ and assets/, and the
 * checks that keep a `file_path` argument inside its skill folder (no `..`, no absolute paths, no
 * symlink leading out).
 */

/** Folder → files in it (relative to the skill, '/' separators). Empty folders are left out. */
export type LinkedFiles = Partial<Record<(typeof LINKED_DIRS)[number], string[]>>;

export function listLinkedFiles(skillDir: string): LinkedFiles {
  const out: LinkedFiles = {};
  for (const rel of listSkillFiles(skillDir)) {
    const top = rel.split("/")[0] as (typeof LINKED_DIRS)[number];
    if (!(LINKED_DIRS as readonly string[]).includes(top) || rel === top) continue;
    const list = out[top] ?? [];
    list.push(rel);
    out[top] = list;
  }
  return out;
}

/**
 * Checks a `file_path` for writing: relative, no `..`, under one of the linked folders, naming a
 * file. Returns an error message or undefined.
 */
export function checkLinkedPath(filePath: string): string | undefined {
  if (typeof filePath !== "string" || !filePath.trim()) return "file_path is required.";
  const p = filePath.replace(/\\/g, "/");
  if (isAbsolute(filePath) || p.startsWith("/"))
    return `file_path must be relative to the skill folder, not '${filePath}'.`;
  const parts = p.split("/").filter((s) => s !== "" && s !== ".");
  if (parts.includes("..")) return "file_path may not contain '..'.";
  const top = parts[0] ?? "";
  if (!(LINKED_DIRS as readonly string[]).includes(top)) {
    return `file_path '${filePath}' must be under one of: ${LINKED_DIRS.map((d) => `${d}/`).join(", ")}.`;
  }
  if (parts.length < 2)
    return `file_path '${filePath}' names a folder; give a file inside it, e.g. '${top}/notes.md'.`;
  if (parts.some((s) => isHiddenEntry(s))) return `file_path '${filePath}' may not use hidden names.`;
  return undefined;
}

/** Normalised relative form of a checked path. */
export const normaliseLinkedPath = (filePath: string): string =>
  filePath
    .replace(/\\/g, "/")
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");

/**
 * The absolute path of `rel` inside `skillDir`, or an error when it (or the nearest existing
 * folder above it) resolves outside the skill through a symlink.
 */
export function resolveInside(skillDir: string, rel: string): { path: string } | { error: string } {
  const root = realpathSync(skillDir);
  const target = join(skillDir, rel);
  // The deepest part that exists decides where the path really goes.
  let probe = target;
  for (;;) {
    try {
      lstatSync(probe);
      break;
    } catch {
      const up = dirname(probe);
      if (up === probe) break;
      probe = up;
    }
  }
  let real: string;
  try {
    real = realpathSync(probe);
  } catch {
    return { error: `'${rel}' cannot be resolved.` };
  }
  const back = relative(root, real);
  if (back.startsWith("..") || isAbsolute(back)) {
    return { error: `'${rel}' escapes the skill folder (through a symlink); refused.` };
  }
  return { path: target };
}

/** A path accepted for reading with skill_view: SKILL.md or any file inside the skill, no `..`. */
export function checkReadablePath(filePath: string): string | undefined {
  if (typeof filePath !== "string" || !filePath.trim()) return "file_path is empty.";
  const p = normaliseLinkedPath(filePath);
  if (isAbsolute(filePath) || filePath.startsWith("/"))
    return "file_path must be relative to the skill folder.";
  if (p.split("/").includes("..")) return "file_path may not contain '..'.";
  if (p === "") return "file_path is empty.";
  return undefined;
}
