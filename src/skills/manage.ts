import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { writeFileAtomic } from "../core/fs.js";
import { findSkill, type SkillRecord } from "./discovery.js";
import { checkLinkedPath, normaliseLinkedPath, resolveInside } from "./linked-files.js";
import {
  MAX_LINKED_FILE_BYTES,
  MAX_SKILL_MD_CHARS,
  SKILL_FILE,
  skillsDir,
  validateCategory,
  validateSkillName,
} from "./paths.js";
import { parseSkillMd } from "./skill-file.js";

/**
 * The writes behind skill_manage. Only skills under HERMES_HOME/skills are writable; external
 * folders are read-only. Every file is replaced atomically, and each successful write returns an
 * `undo` so a caller (the optional scan of agent-written skills) can take it back.
 */

export interface ManageTarget {
  home: string;
  externalDirs?: readonly string[];
}

export type WriteResult =
  | { ok: true; name: string; path: string; message: string; undo: () => void }
  | { ok: false; error: string };

const fail = (error: string): WriteResult => ({ ok: false, error });

/** Why `content` is not an acceptable SKILL.md for skill `name`, or undefined. */
export function checkSkillContent(content: unknown, name: string): string | undefined {
  if (typeof content !== "string" || !content.trim()) return "content is required: the whole SKILL.md text.";
  if (content.length > MAX_SKILL_MD_CHARS) {
    return `SKILL.md is ${content.length} characters; the limit is ${MAX_SKILL_MD_CHARS}. Move detail into references/ files.`;
  }
  if (!/^\uFEFF?---[ \t]*\r?\n/.test(content)) {
    return "SKILL.md must start with YAML frontmatter: a '---' line, name and description fields, then '---'.";
  }
  const parsed = parseSkillMd(content, `${name}/${SKILL_FILE}`);
  if (!parsed.ok) return parsed.error.replace(`${name}/${SKILL_FILE}: `, "");
  if (typeof parsed.skill.frontmatter.name !== "string") return "The frontmatter needs a 'name' field.";
  if (parsed.skill.name !== name) {
    return `The frontmatter name '${parsed.skill.name}' does not match the skill name '${name}'.`;
  }
  if (!parsed.skill.body.trim()) return "SKILL.md needs a body after the frontmatter: the procedure itself.";
  return undefined;
}

/** A writable skill by name, or an error naming why it cannot be written. */
function writableSkill(target: ManageTarget, name: string): SkillRecord | string {
  const nameProblem = validateSkillName(name);
  if (nameProblem) return nameProblem;
  const record = findSkill(target.home, name, target.externalDirs);
  if (!record) return `Skill '${name}' not found. skills_list shows the installed ones.`;
  if (record.source !== "home") {
    return `Skill '${name}' lives in ${record.dir} (skills.external_dirs), which is read-only; create a copy under another name instead.`;
  }
  return record;
}

/** Snapshot of one file so it can be put back: its previous bytes, or its absence. */
function remember(path: string): () => void {
  const before = existsSync(path) ? readFileSync(path) : undefined;
  return () => {
    if (before === undefined) rmSync(path, { force: true });
    else writeFileAtomic(path, before);
  };
}

export function createSkill(
  target: ManageTarget,
  name: string,
  content: unknown,
  category?: string,
): WriteResult {
  const nameProblem = validateSkillName(name);
  if (nameProblem) return fail(nameProblem);
  const cat = category?.trim() || undefined;
  if (cat) {
    const catProblem = validateCategory(cat);
    if (catProblem) return fail(catProblem);
  }
  const contentProblem = checkSkillContent(content, name);
  if (contentProblem) return fail(contentProblem);
  const existing = findSkill(target.home, name, target.externalDirs);
  if (existing)
    return fail(`A skill named '${name}' already exists at ${existing.dir}; use edit or patch to change it.`);
  const root = skillsDir(target.home);
  const dir = cat ? join(root, cat, name) : join(root, name);
  if (existsSync(dir))
    return fail(`${dir} already exists (without a valid SKILL.md); remove it or pick another name.`);
  const createdCategory = cat !== undefined && !existsSync(join(root, cat));
  const path = join(dir, SKILL_FILE);
  try {
    writeFileAtomic(path, content as string);
  } catch (err) {
    return fail(`Could not write ${path}: ${(err as Error).message}`);
  }
  return {
    ok: true,
    name,
    path,
    message: `Created skill '${name}' at ${path}.`,
    undo: () => {
      rmSync(dir, { recursive: true, force: true });
      if (createdCategory) rmSync(join(root, cat), { recursive: true, force: true });
    },
  };
}

/** Replaces SKILL.md of an existing skill with `content` (checked like a new one). */
export function editSkill(target: ManageTarget, name: string, content: unknown): WriteResult {
  const record = writableSkill(target, name);
  if (typeof record === "string") return fail(record);
  const contentProblem = checkSkillContent(content, name);
  if (contentProblem) return fail(`${contentProblem} The skill was not changed.`);
  const undo = remember(record.path);
  try {
    writeFileAtomic(record.path, content as string);
  } catch (err) {
    return fail(`Could not write ${record.path}: ${(err as Error).message}`);
  }
  return { ok: true, name, path: record.path, message: `Updated ${record.path}.`, undo };
}

/** Removes a skill's folder (and its category folder when that leaves it empty). */
export function deleteSkill(target: ManageTarget, name: string): WriteResult {
  const record = writableSkill(target, name);
  if (typeof record === "string") return fail(record);
  const root = resolve(skillsDir(target.home));
  if (resolve(record.dir) === root || relative(root, record.dir).startsWith("..")) {
    return fail(`Refusing to delete ${record.dir}: it is not a skill folder under ${root}.`);
  }
  try {
    rmSync(record.dir, { recursive: true, force: true });
    const parent = dirname(record.dir);
    if (resolve(parent) !== root && readdirSync(parent).length === 0) rmdirSync(parent);
  } catch (err) {
    return fail(`Could not delete ${record.dir}: ${(err as Error).message}`);
  }
  return {
    ok: true,
    name,
    path: record.dir,
    message: `Deleted skill '${name}' (${record.dir}).`,
    undo: () => {
      // Deletion is not staged: the scan only runs on writes that add content.
    },
  };
}

/** Writes one linked file (references/, templates/, scripts/, assets/) of an existing skill. */
export function writeSkillFile(
  target: ManageTarget,
  name: string,
  filePath: string,
  content: unknown,
): WriteResult {
  const record = writableSkill(target, name);
  if (typeof record === "string") return fail(record);
  const pathProblem = checkLinkedPath(filePath);
  if (pathProblem) return fail(pathProblem);
  if (typeof content !== "string") return fail("file_content is required (the file's text).");
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > MAX_LINKED_FILE_BYTES) {
    return fail(
      `file_content is ${bytes} bytes; linked files may hold at most ${MAX_LINKED_FILE_BYTES} bytes.`,
    );
  }
  const rel = normaliseLinkedPath(filePath);
  const inside = resolveInside(record.dir, rel);
  if ("error" in inside) return fail(inside.error);
  const undo = remember(inside.path);
  try {
    writeFileAtomic(inside.path, content, rel.startsWith("scripts/") ? 0o755 : 0o644);
  } catch (err) {
    return fail(`Could not write ${inside.path}: ${(err as Error).message}`);
  }
  return {
    ok: true,
    name,
    path: inside.path,
    message: `Wrote ${rel} (${bytes} bytes) in skill '${name}'.`,
    undo,
  };
}

export function removeSkillFile(target: ManageTarget, name: string, filePath: string): WriteResult {
  const record = writableSkill(target, name);
  if (typeof record === "string") return fail(record);
  const pathProblem = checkLinkedPath(filePath);
  if (pathProblem) return fail(pathProblem);
  const rel = normaliseLinkedPath(filePath);
  const inside = resolveInside(record.dir, rel);
  if ("error" in inside) return fail(inside.error);
  let isFile = false;
  try {
    isFile = statSync(inside.path).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) return fail(`Skill '${name}' has no file '${rel}'.`);
  const undo = remember(inside.path);
  try {
    rmSync(inside.path);
    const parent = dirname(inside.path);
    if (resolve(parent) !== resolve(record.dir) && readdirSync(parent).length === 0) rmdirSync(parent);
  } catch (err) {
    return fail(`Could not remove ${inside.path}: ${(err as Error).message}`);
  }
  return { ok: true, name, path: inside.path, message: `Removed ${rel} from skill '${name}'.`, undo };
}

export type SourceResult =
  | { ok: true; path: string; text: string; rel: string }
  | { ok: false; error: string };

/** The current text of SKILL.md (no file_path) or of a linked file, for patching. */
export function readSkillSource(target: ManageTarget, name: string, filePath?: string): SourceResult {
  const record = writableSkill(target, name);
  if (typeof record === "string") return { ok: false, error: record };
  let path = record.path;
  let rel = SKILL_FILE;
  if (filePath && normaliseLinkedPath(filePath) !== SKILL_FILE) {
    const pathProblem = checkLinkedPath(filePath);
    if (pathProblem) return { ok: false, error: pathProblem };
    rel = normaliseLinkedPath(filePath);
    const inside = resolveInside(record.dir, rel);
    if ("error" in inside) return { ok: false, error: inside.error };
    path = inside.path;
  }
  try {
    return { ok: true, path, rel, text: readFileSync(path, "utf8") };
  } catch {
    return { ok: false, error: `Skill '${name}' has no file '${rel}'.` };
  }
}
