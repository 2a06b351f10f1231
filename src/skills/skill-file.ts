import { basename, dirname } from "node:path";
import { parse as parseYaml } from "yaml";
import { isRecord } from "../core/is-record.js";
import { MAX_DESCRIPTION_LENGTH, MAX_SKILL_MD_CHARS, validateSkillName } from "./paths.js";

/**
 * SKILL.md (agentskills.io format): a YAML frontmatter block between `---` lines, then a markdown
 * body. Hermes-specific fields sit under `metadata.hermes`; `tags` and `category` are also read
 * at the top level. Parsing never throws: a broken file is a `{ ok: false }` naming the path.
 */

/** One `required_environment_variables` entry (a bare string is `{ name }`). */
export interface SkillEnvVar {
  name: string;
  prompt?: string;
  help?: string;
  requiredFor?: string;
}

/** `prerequisites`: commands that must be on PATH and variables that must be set. */
export interface SkillPrerequisites {
  commands: string[];
  envVars: string[];
}

/** One `metadata.hermes.config` setting; its value comes from `skills.config.<key>`. */
export interface SkillConfigSetting {
  key: string;
  description?: string;
  default?: unknown;
  prompt?: string;
}

export interface ParsedSkill {
  name: string;
  description: string;
  version?: string;
  author?: string;
  license?: string;
  /** OS gate, lowercased (`macos`, `linux`, `windows`); empty = every platform. */
  platforms: string[];
  prerequisites: SkillPrerequisites;
  requiredEnvironmentVariables: SkillEnvVar[];
  tags: string[];
  category?: string;
  relatedSkills: string[];
  config: SkillConfigSetting[];
  /** Shown only when every listed toolset / tool is available. */
  requiresToolsets: string[];
  requiresTools: string[];
  /** Shown only when one of the listed toolsets / tools is missing (a fallback procedure). */
  fallbackForToolsets: string[];
  fallbackForTools: string[];
  /** Markdown after the frontmatter, leading blank lines removed. */
  body: string;
  /** The frontmatter mapping as parsed, for fields this type does not model. */
  frontmatter: Record<string, unknown>;
}

export type ParseSkillResult = { ok: true; skill: ParsedSkill } | { ok: false; error: string };

const FRONTMATTER_RE = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const EMPTY_FRONTMATTER_RE = /^\uFEFF?---[ \t]*\r?\n---[ \t]*(?:\r?\n|$)/;

/** A scalar as text (YAML reads `version: 1.0` as a number). */
function text(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/** A list of strings from a YAML list or a comma-separated string; other items dropped. */
function strings(v: unknown): string[] {
  const items = typeof v === "string" ? v.split(",") : Array.isArray(v) ? v : [];
  const out: string[] = [];
  for (const item of items) {
    const s = text(item);
    if (s) out.push(s.trim());
  }
  return out;
}

function envVars(v: unknown): SkillEnvVar[] {
  const items = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  const out: SkillEnvVar[] = [];
  for (const item of items) {
    if (typeof item === "string" && item.trim()) {
      out.push({ name: item.trim() });
    } else if (isRecord(item) && text(item.name)) {
      const entry: SkillEnvVar = { name: text(item.name) as string };
      const prompt = text(item.prompt);
      const help = text(item.help);
      const requiredFor = text(item.required_for);
      if (prompt) entry.prompt = prompt;
      if (help) entry.help = help;
      if (requiredFor) entry.requiredFor = requiredFor;
      out.push(entry);
    }
  }
  return out;
}

function configSettings(v: unknown): SkillConfigSetting[] {
  const out: SkillConfigSetting[] = [];
  const push = (key: string, spec: unknown) => {
    const setting: SkillConfigSetting = { key };
    if (isRecord(spec)) {
      const description = text(spec.description);
      const prompt = text(spec.prompt);
      if (description) setting.description = description;
      if (prompt) setting.prompt = prompt;
      if ("default" in spec) setting.default = spec.default;
    } else if (spec !== undefined) {
      setting.default = spec;
    }
    out.push(setting);
  };
  if (Array.isArray(v)) {
    for (const item of v) {
      if (isRecord(item) && text(item.key)) push(text(item.key) as string, item);
      else if (typeof item === "string" && item.trim()) push(item.trim(), undefined);
    }
  } else if (isRecord(v)) {
    for (const [key, spec] of Object.entries(v)) push(key, spec);
  }
  return out;
}

/** The folder name holding SKILL.md, used when the frontmatter has no `name`. */
function folderName(path: string): string {
  return basename(basename(path) === "SKILL.md" ? dirname(path) : path);
}

/**
 * Parses one SKILL.md. `path` is used in error messages and as the fallback name (its folder).
 * Never throws.
 */
export function parseSkillMd(text_: string, path: string): ParseSkillResult {
  if (typeof text_ !== "string") return parseUncached(text_, path);
  // A successful parse depends only on the text and the folder name (the fallback name).
  const key = `${folderName(path)}\0${text_}`;
  const hit = parsed.get(key);
  if (hit) return { ok: true, skill: structuredClone(hit) };
  const result = parseUncached(text_, path);
  if (result.ok) remember(key, result.skill);
  return result;
}

/** Records what parsing `text` at `path` gives (a parse done elsewhere: the build's, for bundled skills). */
export function rememberParsedSkill(text_: string, path: string, skill: ParsedSkill): void {
  remember(`${folderName(path)}\0${text_}`, skill);
}

function remember(key: string, skill: ParsedSkill): void {
  if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value as string);
  parsed.set(key, structuredClone(skill));
}

/**
 * Recent successful parses. The same SKILL.md is parsed twice when a home is first set up (the
 * bundled copy by the sync, the installed copy by the index); YAML parsing is most of that cost.
 */
const parsed = new Map<string, ParsedSkill>();
const PARSED_KEPT = 64;

function parseUncached(text_: string, path: string): ParseSkillResult {
  const fail = (why: string): ParseSkillResult => ({ ok: false, error: `${path}: ${why}` });
  if (typeof text_ !== "string") return fail("not a text file");
  if (text_.length > MAX_SKILL_MD_CHARS) {
    return fail(`SKILL.md is ${text_.length} characters; the limit is ${MAX_SKILL_MD_CHARS}.`);
  }
  let raw: unknown;
  let body: string;
  const empty = EMPTY_FRONTMATTER_RE.exec(text_);
  const match = empty ? null : FRONTMATTER_RE.exec(text_);
  if (empty) {
    raw = {};
    body = text_.slice(empty[0].length);
  } else if (match) {
    try {
      raw = parseYaml(match[1] as string);
    } catch (err) {
      const first = ((err as Error).message ?? String(err)).split("\n")[0];
      return fail(`invalid YAML frontmatter: ${first}`);
    }
    body = text_.slice(match[0].length);
  } else {
    return fail(
      "missing YAML frontmatter (the file must start with a '---' line and close it with another).",
    );
  }
  if (raw === null || raw === undefined) raw = {};
  if (!isRecord(raw)) return fail("the frontmatter must be a YAML mapping of fields.");
  const fm = raw;

  const name = text(fm.name) ?? folderName(path);
  const nameProblem = validateSkillName(name);
  if (nameProblem) return fail(nameProblem);
  const description = text(fm.description)?.replace(/\s+/g, " ");
  if (!description) return fail("the frontmatter needs a 'description' field.");
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return fail(`description is ${description.length} characters; the limit is ${MAX_DESCRIPTION_LENGTH}.`);
  }

  const metadata = isRecord(fm.metadata) ? fm.metadata : {};
  const hermes = isRecord(metadata.hermes) ? metadata.hermes : {};
  const prereq = isRecord(fm.prerequisites) ? fm.prerequisites : {};

  const skill: ParsedSkill = {
    name,
    description,
    platforms: strings(fm.platforms).map((p) => p.toLowerCase()),
    prerequisites: {
      commands: strings(prereq.commands),
      envVars: strings(prereq.env_vars),
    },
    requiredEnvironmentVariables: envVars(fm.required_environment_variables),
    tags: strings(hermes.tags ?? fm.tags),
    relatedSkills: strings(hermes.related_skills ?? fm.related_skills),
    config: configSettings(hermes.config),
    requiresToolsets: strings(hermes.requires_toolsets),
    requiresTools: strings(hermes.requires_tools),
    fallbackForToolsets: strings(hermes.fallback_for_toolsets),
    fallbackForTools: strings(hermes.fallback_for_tools),
    body: body.replace(/^(?:[ \t]*\r?\n)+/, ""),
    frontmatter: fm,
  };
  const version = text(fm.version);
  const author = text(fm.author);
  const license = text(fm.license);
  const category = text(hermes.category) ?? text(fm.category);
  if (version) skill.version = version;
  if (author) skill.author = author;
  if (license) skill.license = license;
  if (category) skill.category = category;
  return { ok: true, skill };
}
