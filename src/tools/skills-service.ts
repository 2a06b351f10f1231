/**
 * What the skills tools (skills_list, skill_view, skill_manage) need from the skills store, and
 * what terminal and execute_code read from it. Implemented in `skills/`; tools see only this.
 */

export interface SkillListItem {
  name: string;
  description: string;
  category?: string;
  /** From skills.external_dirs: viewable, not writable. */
  read_only?: boolean;
}

export interface SkillViewData {
  name: string;
  description: string;
  category?: string;
  /** The skill's folder (its scripts and templates are used from here). */
  dir: string;
  /** The instructions: SKILL.md's body, with variables and settings filled in. */
  content: string;
  /** Folder → files, each readable with skill_view(name, file_path). */
  linked_files: Record<string, string[]>;
  tags?: string[];
  related_skills?: string[];
  /** Variables this skill's commands receive in terminal and execute_code. */
  required_environment_variables?: string[];
  /** What is missing before the skill can work, in words. */
  setup_needed?: string;
  read_only?: boolean;
}

export type SkillWriteOp =
  | { action: "create"; name: string; content: unknown; category?: string }
  | { action: "edit"; name: string; content: unknown }
  | { action: "delete"; name: string }
  | { action: "write_file"; name: string; filePath: string; content: unknown }
  | { action: "remove_file"; name: string; filePath: string };

export type SkillWriteOutcome = { ok: true; message: string; path: string } | { ok: false; error: string };

export interface SkillsService {
  /** Skills this session may use (platform, config and toolset rules applied), read live. */
  list(category?: string): { skills: SkillListItem[]; categories: string[] };
  /** Loads a skill; its environment variables pass through to commands from now on. */
  view(name: string): Promise<SkillViewData | { error: string }>;
  /** One file of a skill (references/, templates/, scripts/, ...). */
  viewFile(name: string, filePath: string): { content: string } | { error: string };
  /** Current text of SKILL.md (no file_path) or of a linked file of a writable skill, for patching. */
  source(
    name: string,
    filePath?: string,
  ): { ok: true; text: string; rel: string } | { ok: false; error: string };
  /** Applies one change atomically. Never throws. */
  write(op: SkillWriteOp): Promise<SkillWriteOutcome>;
  /** Names of variables that loaded skills need (passed to terminal and execute_code). */
  envPassthrough(): readonly string[];
}

/** The values of the variables loaded skills asked for, taken from `source` (unset ones left out). */
export function skillEnv(
  service: Pick<SkillsService, "envPassthrough"> | undefined,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> | undefined {
  const names = service?.envPassthrough() ?? [];
  if (names.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = source[n];
    if (v !== undefined && v !== "") out[n] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
