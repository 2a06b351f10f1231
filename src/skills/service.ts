import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type {
  SkillListItem,
  SkillsService,
  SkillViewData,
  SkillWriteOp,
  SkillWriteOutcome,
} from "../tools/skills-service.js";
import type { SkillRecord } from "./discovery.js";
import { type IndexEntry, loadIndexEntries } from "./index-cache.js";
import { renderInvocation, renderPreloaded } from "./invoke.js";
import {
  describeMissing,
  type LoadedSkill,
  loadSkill,
  readSkillFile,
  type SkillLoadSettings,
} from "./load.js";
import {
  createSkill,
  deleteSkill,
  editSkill,
  type ManageTarget,
  readSkillSource,
  removeSkillFile,
  type WriteResult,
  writeSkillFile,
} from "./manage.js";
import { skillsDir } from "./paths.js";
import { parseSkillMd } from "./skill-file.js";
import { syncBundledSkills } from "./sync.js";
import { disabledSkills, hiddenReason, type VisibilityContext } from "./visibility.js";

/**
 * One session's view of the skills store: what the tools list, load and change, which skills'
 * variables pass through to commands, and `/<skill>` invocations. Reads are live (a skill written
 * now can be viewed now); only the system prompt's index is frozen for the session.
 */

/** The `skills` block of config.yaml, as far as this service reads it. */
export interface SkillSettings extends SkillLoadSettings {
  external_dirs?: readonly string[];
  disabled?: readonly string[];
  platform_disabled?: Readonly<Record<string, readonly string[]>>;
  guard_agent_created?: boolean;
}

export type SkillUseEvent = "view" | "invoke" | SkillWriteOp["action"];

export interface SkillSessionOptions {
  home: string;
  settings: SkillSettings;
  /** cli, telegram, cron, ... */
  platform: string;
  /** OS the tools act on; default this machine's. */
  os?: string;
  sessionId?: () => string;
  /** The session's tools and their toolsets; unset = no toolset rules applied. */
  toolScope?: () => { tools: ReadonlySet<string>; toolsets: ReadonlySet<string> } | undefined;
  /** With skills.guard_agent_created: checks a skill folder after a write; a message refuses (the write is undone). */
  scanWrite?: (skillDir: string, name: string) => Promise<string | undefined> | string | undefined;
  /** Told when a skill is loaded, invoked or changed (usage tracking). Must not throw. */
  onUse?: (name: string, event: SkillUseEvent) => void;
  /** Where variable values and PATH come from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export class SkillSession implements SkillsService {
  private readonly passthrough = new Set<string>();
  private synced = false;

  constructor(private readonly opts: SkillSessionOptions) {}

  private get target(): ManageTarget {
    return { home: this.opts.home, externalDirs: this.opts.settings.external_dirs ?? [] };
  }

  /** Syncs the bundled skills once per session, before the first read. */
  private entries(): IndexEntry[] {
    if (!this.synced) {
      this.synced = true;
      try {
        syncBundledSkills(this.opts.home);
      } catch {
        // a read-only home still serves the skills it has
      }
    }
    return loadIndexEntries(this.opts.home, this.opts.settings.external_dirs ?? []).entries;
  }

  /** The session's tools and toolsets (undefined before they are fixed). */
  scope(): { tools: ReadonlySet<string>; toolsets: ReadonlySet<string> } | undefined {
    return this.opts.toolScope?.();
  }

  visibility(): VisibilityContext {
    const scope = this.opts.toolScope?.();
    return {
      os: this.opts.os ?? process.platform,
      tools: scope?.tools ?? new Set(),
      toolsets: scope?.toolsets ?? new Set(),
      disabled: disabledSkills(this.opts.settings, this.opts.platform),
    };
  }

  /** Hidden by platform or config (those cannot be used at all); toolset rules only shape listings. */
  private blocked(entry: IndexEntry, ctx: VisibilityContext): string | undefined {
    const why = hiddenReason(entry, { ...ctx, tools: new Set(), toolsets: new Set() });
    if (why?.kind === "disabled") return `Skill '${entry.name}' is disabled in config (skills.disabled).`;
    if (why?.kind === "platform") {
      return `Skill '${entry.name}' is for ${why.platforms.join(", ")} only, not this machine.`;
    }
    return undefined;
  }

  list(category?: string): { skills: SkillListItem[]; categories: string[] } {
    const ctx = this.visibility();
    const scoped = this.opts.toolScope?.() !== undefined;
    const home = resolve(skillsDir(this.opts.home));
    const visible = this.entries().filter((e) =>
      scoped ? hiddenReason(e, ctx) === undefined : !this.blocked(e, ctx),
    );
    const categories = [...new Set(visible.map((e) => e.category ?? "general"))].sort();
    const wanted = category?.trim();
    const skills = visible
      .filter((e) => !wanted || (e.category ?? "general") === wanted)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((e): SkillListItem => {
        const item: SkillListItem = { name: e.name, description: e.description };
        if (e.category) item.category = e.category;
        if (relative(home, e.path).startsWith("..")) item.read_only = true;
        return item;
      });
    return { skills, categories };
  }

  /** A skill by name, parsed fresh from disk; an error says why it cannot be used. */
  record(name: string): SkillRecord | { error: string } {
    const entry = this.entries().find((e) => e.name === name);
    if (!entry) {
      const names = this.entries().map((e) => e.name);
      const close = names.filter((n) => n.includes(name) || name.includes(n)).slice(0, 5);
      const hint =
        close.length > 0 ? ` Did you mean: ${close.join(", ")}?` : " skills_list shows what exists.";
      return { error: `Skill '${name}' not found.${hint}` };
    }
    const blocked = this.blocked(entry, this.visibility());
    if (blocked) return { error: blocked };
    let text: string;
    try {
      text = readFileSync(entry.path, "utf8");
    } catch {
      return { error: `Skill '${name}' could not be read at ${entry.path}.` };
    }
    const parsed = parseSkillMd(text, entry.path);
    if (!parsed.ok) return { error: parsed.error };
    const home = resolve(skillsDir(this.opts.home));
    return {
      skill: parsed.skill,
      dir: dirname(entry.path),
      path: entry.path,
      source: relative(home, entry.path).startsWith("..") ? "external" : "home",
      category: entry.category,
    };
  }

  private async load(name: string, event: SkillUseEvent): Promise<LoadedSkill | { error: string }> {
    const record = this.record(name);
    if ("error" in record) return record;
    const loaded = await loadSkill(record, {
      settings: this.opts.settings,
      ...(this.opts.sessionId ? { sessionId: this.opts.sessionId() } : {}),
      ...(this.opts.env ? { env: this.opts.env } : {}),
    });
    for (const n of loaded.requirements.envNames) this.passthrough.add(n);
    this.used(name, event);
    return loaded;
  }

  async view(name: string): Promise<SkillViewData | { error: string }> {
    const loaded = await this.load(name, "view");
    if ("error" in loaded) return loaded;
    const { record, requirements } = loaded;
    const data: SkillViewData = {
      name: record.skill.name,
      description: record.skill.description,
      dir: record.dir,
      content: loaded.content,
      linked_files: loaded.linkedFiles as Record<string, string[]>,
    };
    if (record.category) data.category = record.category;
    if (record.skill.tags.length > 0) data.tags = record.skill.tags;
    if (record.skill.relatedSkills.length > 0) data.related_skills = record.skill.relatedSkills;
    if (requirements.envNames.length > 0) data.required_environment_variables = requirements.envNames;
    const missing = describeMissing(record.skill.name, requirements);
    if (missing) data.setup_needed = missing;
    if (record.source !== "home") data.read_only = true;
    return data;
  }

  viewFile(name: string, filePath: string): { content: string } | { error: string } {
    const record = this.record(name);
    if ("error" in record) return record;
    return readSkillFile(record, filePath);
  }

  source(
    name: string,
    filePath?: string,
  ): { ok: true; text: string; rel: string } | { ok: false; error: string } {
    const r = readSkillSource(this.target, name, filePath);
    return r.ok ? { ok: true, text: r.text, rel: r.rel } : r;
  }

  async write(op: SkillWriteOp): Promise<SkillWriteOutcome> {
    let result: WriteResult;
    try {
      result = this.apply(op);
    } catch (err) {
      return { ok: false, error: `skill_manage ${op.action} failed: ${(err as Error).message}` };
    }
    if (!result.ok) return result;
    const adds = op.action !== "delete" && op.action !== "remove_file";
    if (adds && this.opts.settings.guard_agent_created && this.opts.scanWrite) {
      const dir = op.action === "create" ? dirname(result.path) : this.skillDirOf(op.name);
      let refusal: string | undefined;
      try {
        refusal = dir ? await this.opts.scanWrite(dir, op.name) : undefined;
      } catch (err) {
        refusal = `the security scan failed (${(err as Error).message})`;
      }
      if (refusal) {
        result.undo();
        return { ok: false, error: `Security scan refused this change, so it was undone: ${refusal}` };
      }
    }
    this.used(op.name, op.action);
    return { ok: true, message: result.message, path: result.path };
  }

  private apply(op: SkillWriteOp): WriteResult {
    switch (op.action) {
      case "create":
        return createSkill(this.target, op.name, op.content, op.category);
      case "edit":
        return editSkill(this.target, op.name, op.content);
      case "delete":
        return deleteSkill(this.target, op.name);
      case "write_file":
        return writeSkillFile(this.target, op.name, op.filePath, op.content);
      case "remove_file":
        return removeSkillFile(this.target, op.name, op.filePath);
    }
  }

  private skillDirOf(name: string): string | undefined {
    const r = this.record(name);
    return "error" in r ? undefined : r.dir;
  }

  envPassthrough(): readonly string[] {
    return [...this.passthrough];
  }

  /**
   * The user message for `/<name> args`: the skill's instructions plus the arguments. Loading it
   * counts as a load (its variables pass through from now on).
   */
  async invoke(name: string, args: string): Promise<{ message: string } | { error: string }> {
    const loaded = await this.load(name, "invoke");
    if ("error" in loaded) return loaded;
    return { message: renderInvocation(loaded, args) };
  }

  /** A skill's instructions loaded ahead of a request by configuration (counts as an invocation). */
  async preload(name: string): Promise<{ message: string } | { error: string }> {
    const loaded = await this.load(name, "invoke");
    if ("error" in loaded) return loaded;
    return { message: renderPreloaded(loaded) };
  }

  /** Whether a skill of this name exists (usable or not). */
  has(name: string): boolean {
    return this.entries().some((e) => e.name === name);
  }

  /** Names usable as `/<name>` (visible skills), sorted. */
  commandNames(): string[] {
    return this.list().skills.map((s) => s.name);
  }

  private used(name: string, event: SkillUseEvent): void {
    try {
      this.opts.onUse?.(name, event);
    } catch {
      // usage tracking never affects the tool result
    }
  }
}
