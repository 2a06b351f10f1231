import { type IndexEntry, loadIndexEntries } from "./index-cache.js";
import { syncBundledSkills } from "./sync.js";
import { disabledSkills, isVisible, type VisibilityContext } from "./visibility.js";

/**
 * The skills layer of the system prompt: a name + description per visible skill, grouped by
 * category, under a framing that makes loading a matching skill the default. Bodies never appear
 * here; the model loads one with skill_view when it needs it.
 */

export const SKILLS_INDEX_HEADER = [
  "## Skills (check before acting)",
  "Skills are saved procedures: how this user wants work done, steps that worked, pitfalls met. If",
  "one fits the task, even partly, load it with skill_view(name) first and follow it, even when you",
  "could do without it: loading one costs little, skipping one repeats the mistakes it prevents.",
].join("\n");

export const SKILLS_INDEX_FOOTER = "Go ahead without a skill only when none of them is relevant.";

/** Shown when the session can write skills. */
export const SKILLS_WRITE_GUIDANCE = [
  "Once a task is done, save a non-obvious procedure worth reusing, or fix a loaded skill that was",
  "wrong, with skill_manage.",
].join("\n");

const UNCATEGORISED = "general";

/** The index text for these entries, or "" when none is visible. */
export function renderSkillsIndex(
  entries: readonly IndexEntry[],
  ctx: VisibilityContext,
  options: { canWrite?: boolean } = {},
): string {
  const groups = new Map<string, IndexEntry[]>();
  for (const e of entries) {
    if (!isVisible(e, ctx)) continue;
    const cat = e.category ?? UNCATEGORISED;
    const list = groups.get(cat) ?? [];
    list.push(e);
    groups.set(cat, list);
  }
  if (groups.size === 0) return "";
  const lines = [SKILLS_INDEX_HEADER, "", "<available_skills>"];
  for (const cat of [...groups.keys()].sort()) {
    lines.push(`  ${cat}:`);
    const list = groups.get(cat)!.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of list) lines.push(`    - ${e.name}: ${e.description}`);
  }
  lines.push("</available_skills>", "", SKILLS_INDEX_FOOTER);
  if (options.canWrite) lines.push("", SKILLS_WRITE_GUIDANCE);
  return lines.join("\n");
}

export interface SkillsIndexInput {
  home: string;
  /** cli, telegram, cron, ... (for skills.platform_disabled). */
  platform: string;
  /** The OS the tools act on (process.platform of that machine). */
  os: string;
  /** Tool names of the session, and the toolsets they belong to. */
  tools: ReadonlySet<string>;
  toolsets: ReadonlySet<string>;
  settings: {
    external_dirs?: readonly string[];
    disabled?: readonly string[];
    platform_disabled?: Readonly<Record<string, readonly string[]>>;
  };
}

/**
 * Builds the skills layer for a new session: syncs the bundled skills, reads the (cached) index and
 * renders what this session may see. "" when the session cannot load skills (no skill_view).
 * Never throws.
 */
export function buildSkillsIndex(input: SkillsIndexInput): { text: string; problems: string[] } {
  if (!input.tools.has("skill_view")) return { text: "", problems: [] };
  try {
    syncBundledSkills(input.home);
  } catch {
    // a home we cannot write still shows the skills it has
  }
  const { entries, problems } = loadIndexEntries(input.home, input.settings.external_dirs ?? []);
  const text = renderSkillsIndex(
    entries,
    {
      os: input.os,
      tools: input.tools,
      toolsets: input.toolsets,
      disabled: disabledSkills(input.settings, input.platform),
    },
    { canWrite: input.tools.has("skill_manage") },
  );
  return { text, problems };
}
