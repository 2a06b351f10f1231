import type { HermesToolRegistry } from "../../context.js";
import { handleSkillManage, SKILL_MANAGE_SCHEMA } from "./manage.js";
import { handleSkillsList, handleSkillView, SKILL_VIEW_SCHEMA, SKILLS_LIST_SCHEMA } from "./read.js";

/** skills_list, skill_view and skill_manage (toolset `skills`); they act through `ctx.skills`. */
export function registerSkillTools(registry: HermesToolRegistry): void {
  registry.register({
    name: "skills_list",
    toolset: "skills",
    schema: SKILLS_LIST_SCHEMA,
    handler: handleSkillsList,
    emoji: "📚",
    parallelSafe: true,
  });
  registry.register({
    name: "skill_view",
    toolset: "skills",
    schema: SKILL_VIEW_SCHEMA,
    handler: handleSkillView,
    emoji: "📖",
    parallelSafe: true,
  });
  registry.register({
    name: "skill_manage",
    toolset: "skills",
    schema: SKILL_MANAGE_SCHEMA,
    handler: handleSkillManage,
    emoji: "🛠️",
  });
}
