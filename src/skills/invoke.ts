import { describeMissing, type LoadedSkill } from "./load.js";
import { SKILL_NAME_RE } from "./paths.js";

/**
 * Skills as commands: `/<skill-name> rest` typed as a prompt becomes a user message carrying the
 * skill's instructions and the rest as its arguments.
 */

export interface SkillCommand {
  name: string;
  /** Everything after the name, trimmed ("" when none). */
  args: string;
}

/** Splits `/<name> args`; undefined when the text is not shaped like a skill command. */
export function parseSkillCommand(text: string): SkillCommand | undefined {
  const m = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const name = (m[1] as string).toLowerCase();
  if (!SKILL_NAME_RE.test(name) || name.length > 64) return undefined;
  return { name, args: (m[2] ?? "").trim() };
}

/** A skill's instructions for a user message: `intro`, the instructions, its folder and what it lacks. */
function instructions(loaded: LoadedSkill, intro: string): string[] {
  const { record } = loaded;
  const name = record.skill.name;
  const parts = [intro, "", loaded.content.trimEnd()];
  const files = Object.values(loaded.linkedFiles).flat();
  const notes: string[] = [`[Skill folder: ${record.dir}`];
  if (files.length > 0)
    notes.push(`; files (read with skill_view("${name}", file_path)): ${files.join(", ")}`);
  parts.push("", `${notes.join("")}]`);
  const missing = describeMissing(name, loaded.requirements);
  if (missing) parts.push(`[${missing}]`);
  return parts;
}

/** The user message for an invoked skill. */
export function renderInvocation(loaded: LoadedSkill, args: string): string {
  const name = loaded.record.skill.name;
  const parts = instructions(
    loaded,
    `[The user invoked the skill "${name}" with /${name}. Its instructions follow; apply them to this request.]`,
  );
  parts.push("", args ? `Arguments: ${args}` : "[No arguments were given with the command.]");
  return parts.join("\n");
}

/** A skill loaded ahead of a request by configuration (a webhook route's `skills`). */
export function renderPreloaded(loaded: LoadedSkill): string {
  const name = loaded.record.skill.name;
  return instructions(
    loaded,
    `[The skill "${name}" is loaded for this request. Its instructions follow; apply them.]`,
  ).join("\n");
}
