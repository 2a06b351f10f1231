import { parseSkillCommand } from "../skills/invoke.js";
import type { SkillSession } from "../skills/service.js";

/**
 * `/<skill-name> args` typed as a prompt: the user message that runs the skill. A prompt that does
 * not name an existing skill is returned unchanged; a skill that cannot be used (disabled, another
 * OS) is an error for the user.
 */
export async function expandSkillCommand(
  skills: SkillSession | undefined,
  prompt: string,
): Promise<{ text: string } | { error: string }> {
  const command = skills ? parseSkillCommand(prompt) : undefined;
  if (!skills || !command || !skills.has(command.name)) return { text: prompt };
  const r = await skills.invoke(command.name, command.args);
  return "error" in r ? r : { text: r.message };
}

/** `/skills`: the skills this chat can run, one per line. */
export function skillsListing(skills: SkillSession | undefined): string {
  const list = skills?.list().skills ?? [];
  if (list.length === 0) return "No skills yet (the agent writes them with skill_manage).";
  const width = Math.min(32, Math.max(...list.map((s) => s.name.length)) + 2);
  const lines = list.map((s) => `  /${s.name.padEnd(width)}${s.description}`);
  return [`Skills (run one with /<name> [arguments]):`, ...lines].join("\n");
}
