import { join } from "node:path";

/**
 * Where skills live inside a home, and the limits every writer (tools, installer, sync) enforces.
 * The home's `skills/` folder is the single source of truth; categories are plain folders.
 */

/** Name of a skill folder and of its `name:` field. */
export const SKILL_NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
/** SKILL.md size cap, in characters. */
export const MAX_SKILL_MD_CHARS = 100_000;
/** Size cap of one linked file (references/, templates/, scripts/, assets/), in bytes. */
export const MAX_LINKED_FILE_BYTES = 1024 * 1024;
/** Sub-folders a skill may carry besides SKILL.md. */
export const LINKED_DIRS = ["references", "templates", "scripts", "assets"] as const;
export type LinkedDir = (typeof LINKED_DIRS)[number];

export const SKILL_FILE = "SKILL.md";
/** Hash manifest of the bundled skills copied into the home. */
export const BUNDLED_MANIFEST = ".bundled_manifest";
/** Cached index of the skills tree (see index-cache.ts). */
export const INDEX_SNAPSHOT = ".index_snapshot.json";

/** `HERMES_HOME/skills`. */
export function skillsDir(home: string): string {
  return join(home, "skills");
}

/** Returns a message naming the problem, or undefined when `name` is a valid skill name. */
export function validateSkillName(name: string): string | undefined {
  if (typeof name !== "string" || name.length === 0) return "Skill name is required.";
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    return `Skill name '${name.slice(0, 80)}' is longer than ${MAX_SKILL_NAME_LENGTH} characters.`;
  }
  if (!SKILL_NAME_RE.test(name)) {
    return `Invalid skill name '${name}': use lowercase letters, digits, '.', '_' or '-', starting with a letter or digit.`;
  }
  return undefined;
}

/** Category folder names follow the same rule as skill names (they become path segments). */
export function validateCategory(category: string): string | undefined {
  const problem = validateSkillName(category);
  return problem?.replace(/Skill name/g, "Category").replace(/skill name/g, "category");
}

/** True for folder names the scanner never descends into (hidden state, archives, quarantine). */
export function isHiddenEntry(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}
