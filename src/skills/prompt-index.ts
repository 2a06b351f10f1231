import { type IndexEntry, loadIndexEntries } from "./index-cache.js";
import { syncBundledSkills } from "./sync.js";
import { disabledSkills, isVisible, type VisibilityContext } from "./visibility.js";

/**
 * The skills layer of the system prompt: one line per category naming its visible skills, each with
 * its description cut short, under a framing that makes loading a matching skill the default. It is
 * paid on every request, so it says only enough to pick a skill; bodies never appear here, the
 * model loads one with skill_view when it needs it.
 */

export const SKILLS_INDEX_HEADER = [
  "## Skills",
  "Saved procedures: how the user wants work done, what worked, pitfalls. Before acting, load any",
  "that fits the task even partly with skill_view(name) and follow it.",
].join("\n");

const UNCATEGORISED = "general";

/** Longest description shown per skill; skill_view has the rest. */
export const INDEX_DESCRIPTION_CHARS = 30;

/** Words that say nothing at the end of a cut description ("Find a bug's root cause by…"). */
const DANGLING_WORD =
  /\s+(?:a|an|and|as|at|by|for|from|in|into|its|of|on|one|or|so|than|that|the|their|then|to|with|your)$/i;

/**
 * `text` cut at a word boundary to at most `max` characters ("…" marks a cut, dangling little words
 * dropped before it), without the final period.
 */
export function clipDescription(text: string, max = INDEX_DESCRIPTION_CHARS): string {
  const clean = text.replace(/\s+/g, " ").trim();
  if (clean.length <= max) return clean.replace(/\.$/, "");
  const space = clean.lastIndexOf(" ", max);
  const trim = (s: string) => s.replace(/[\s,;:.\-–—]+$/, "");
  let cut = trim(clean.slice(0, space > 0 ? space : max));
  while (DANGLING_WORD.test(cut)) cut = trim(cut.replace(DANGLING_WORD, ""));
  return `${cut}…`;
}

const entryText = (e: IndexEntry): string => {
  const d = clipDescription(e.description);
  return d ? `${e.name} (${d})` : e.name;
};

/** The index text for these entries, or "" when none is visible. */
export function renderSkillsIndex(entries: readonly IndexEntry[], ctx: VisibilityContext): string {
  const groups = new Map<string, IndexEntry[]>();
  for (const e of entries) {
    if (!isVisible(e, ctx)) continue;
    const cat = e.category ?? UNCATEGORISED;
    const list = groups.get(cat) ?? [];
    list.push(e);
    groups.set(cat, list);
  }
  if (groups.size === 0) return "";
  const lines = [SKILLS_INDEX_HEADER];
  for (const cat of [...groups.keys()].sort()) {
    const list = groups.get(cat)!.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    lines.push(`${cat}: ${list.map(entryText).join("; ")}`);
  }
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
  const text = renderSkillsIndex(entries, {
    os: input.os,
    tools: input.tools,
    toolsets: input.toolsets,
    disabled: disabledSkills(input.settings, input.platform),
  });
  return { text, problems };
}
