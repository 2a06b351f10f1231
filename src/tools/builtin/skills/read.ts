import type { ToolContext } from "../../context.js";
import { argString, toolError, toolResult } from "../util.js";

export const SKILLS_LIST_SCHEMA = {
  description: "List the skills you can load.",
  parameters: {
    type: "object",
    properties: {
      category: { type: "string" },
    },
  },
};

export const SKILL_VIEW_SCHEMA = {
  description: "Load a skill: its instructions and file list; file_path: read one of its files.",
  parameters: {
    type: "object",
    properties: {
      name: { type: "string" },
      file_path: { type: "string" },
    },
    required: ["name"],
  },
};

export const NO_SKILLS = "Skills are not available in this session.";

export function handleSkillsList(args: Record<string, unknown>, ctx: ToolContext): string {
  if (!ctx.skills) return toolError(NO_SKILLS);
  const category = argString(args, "category");
  const { skills, categories } = ctx.skills.list(category);
  const out: Record<string, unknown> = { skills, count: skills.length, categories };
  if (category && skills.length === 0) {
    out.note = `No skills in category '${category}'. Categories: ${categories.join(", ") || "none"}.`;
  } else if (skills.length === 0) {
    out.note = "No skills yet. Create one with skill_manage when you work out a procedure worth keeping.";
  }
  return toolResult(out);
}

export async function handleSkillView(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  if (!ctx.skills) return toolError(NO_SKILLS);
  const name = argString(args, "name")?.trim();
  if (!name) return toolError("name is required: the skill to load (skills_list shows them).");
  const filePath = argString(args, "file_path")?.trim();
  if (filePath) {
    const file = ctx.skills.viewFile(name, filePath);
    if ("error" in file) return toolError(file.error);
    return toolResult({ name, file_path: filePath, content: file.content });
  }
  const view = await ctx.skills.view(name);
  if ("error" in view) return toolError(view.error);
  return toolResult({ success: true, ...view });
}
