import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { SkillRecord } from "./discovery.js";
import {
  checkReadablePath,
  type LinkedFiles,
  listLinkedFiles,
  normaliseLinkedPath,
  resolveInside,
} from "./linked-files.js";
import { MAX_LINKED_FILE_BYTES } from "./paths.js";
import type { ParsedSkill } from "./skill-file.js";

/**
 * Turns a skill on disk into what the model reads when it loads it: the body with template
 * variables (and, when enabled, inline shell output) filled in, its settings from config, the map
 * of linked files, and what it needs that is missing (environment variables, commands).
 */

export interface SkillLoadSettings {
  template_vars?: boolean;
  inline_shell?: boolean;
  inline_shell_timeout?: number;
  /** `skills.config`: values of settings that skills declare. */
  config?: Record<string, unknown>;
}

export interface SkillRequirements {
  /** Variables named by required_environment_variables or prerequisites.env_vars. */
  envNames: string[];
  missingEnv: string[];
  missingCommands: string[];
}

export interface LoadedSkill {
  record: SkillRecord;
  content: string;
  linkedFiles: LinkedFiles;
  requirements: SkillRequirements;
  /** Declared settings with their values (undefined = not set and no default). */
  settings: Record<string, unknown>;
}

/** `${NAME}` as written in a skill. */
const templateVar = (name: string): string => `\${${name}}`;

const INLINE_SHELL_RE = /!`([^`\n]+)`/g;
const INLINE_OUTPUT_CAP = 4000;

function onPath(command: string, pathVar: string | undefined): boolean {
  const bin = command.trim().split(/\s+/)[0] ?? "";
  if (!bin) return true;
  if (bin.includes("/")) {
    try {
      accessSync(bin, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  for (const dir of (pathVar ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/** What a skill needs from the environment, and which of it is missing now. */
export function checkRequirements(
  skill: ParsedSkill,
  env: NodeJS.ProcessEnv = process.env,
): SkillRequirements {
  const envNames = [
    ...new Set([...skill.requiredEnvironmentVariables.map((v) => v.name), ...skill.prerequisites.envVars]),
  ];
  return {
    envNames,
    missingEnv: envNames.filter((n) => !env[n]),
    missingCommands: skill.prerequisites.commands.filter((c) => !onPath(c, env.PATH)),
  };
}

/** One line naming what is missing, or "" when nothing is. */
export function describeMissing(name: string, req: SkillRequirements): string {
  const parts: string[] = [];
  if (req.missingEnv.length > 0) {
    parts.push(
      `environment variable${req.missingEnv.length > 1 ? "s" : ""} ${req.missingEnv.join(", ")} not set (add to HERMES_HOME/.env)`,
    );
  }
  if (req.missingCommands.length > 0) {
    parts.push(
      `command${req.missingCommands.length > 1 ? "s" : ""} ${req.missingCommands.join(", ")} not found on PATH`,
    );
  }
  return parts.length > 0 ? `Skill '${name}' needs setup: ${parts.join("; ")}.` : "";
}

/** A dotted key looked up as nested mappings, else as a flat key. */
function configValue(config: Record<string, unknown> | undefined, key: string): unknown {
  if (!config) return undefined;
  if (key in config) return config[key];
  let cur: unknown = config;
  for (const part of key.split(".")) {
    if (typeof cur !== "object" || cur === null || !(part in cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function resolveSettings(
  skill: ParsedSkill,
  config: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of skill.config) out[s.key] = configValue(config, s.key) ?? s.default;
  return out;
}

function settingsBlock(skill: ParsedSkill, values: Record<string, unknown>): string {
  if (skill.config.length === 0) return "";
  const lines = ["[Settings of this skill (skills.config in config.yaml):"];
  for (const s of skill.config) {
    const v = values[s.key];
    const what = s.description ? ` (${s.description})` : "";
    lines.push(v === undefined ? `- ${s.key}: not set${what}` : `- ${s.key} = ${JSON.stringify(v)}${what}`);
  }
  return `${lines.join("\n")}]`;
}

function runInline(command: string, cwd: string, timeoutS: number): Promise<string> {
  return new Promise((resolveRun) => {
    execFile(
      "bash",
      ["-c", command],
      { cwd, timeout: Math.max(1, timeoutS) * 1000, maxBuffer: 1024 * 1024, encoding: "utf8" },
      (err, stdout) => {
        if (err && !stdout) resolveRun(`[inline command failed: ${err.message.split("\n")[0]}]`);
        else resolveRun(stdout.trimEnd().slice(0, INLINE_OUTPUT_CAP));
      },
    );
  });
}

async function expandInlineShell(text: string, cwd: string, timeoutS: number): Promise<string> {
  const matches = [...text.matchAll(INLINE_SHELL_RE)];
  if (matches.length === 0) return text;
  const outputs = await Promise.all(matches.map((m) => runInline(m[1] as string, cwd, timeoutS)));
  let i = 0;
  return text.replace(INLINE_SHELL_RE, () => outputs[i++] ?? "");
}

/** Loads a skill for the model. Never throws. */
export async function loadSkill(
  record: SkillRecord,
  options: { sessionId?: string; settings?: SkillLoadSettings; env?: NodeJS.ProcessEnv } = {},
): Promise<LoadedSkill> {
  const s = options.settings ?? {};
  let content = record.skill.body;
  if (s.template_vars !== false) {
    content = content.replaceAll(templateVar("HERMES_SKILL_DIR"), record.dir);
    if (options.sessionId) content = content.replaceAll(templateVar("HERMES_SESSION_ID"), options.sessionId);
  }
  if (s.inline_shell === true)
    content = await expandInlineShell(content, record.dir, s.inline_shell_timeout ?? 10);
  const settings = resolveSettings(record.skill, s.config);
  const block = settingsBlock(record.skill, settings);
  if (block) content = `${content.trimEnd()}\n\n${block}`;
  return {
    record,
    content,
    linkedFiles: listLinkedFiles(record.dir),
    requirements: checkRequirements(record.skill, options.env),
    settings,
  };
}

/** Reads one file of a skill for skill_view's second call. */
export function readSkillFile(
  record: SkillRecord,
  filePath: string,
): { content: string } | { error: string } {
  const problem = checkReadablePath(filePath);
  if (problem) return { error: problem };
  const rel = normaliseLinkedPath(filePath);
  const inside = resolveInside(record.dir, rel);
  if ("error" in inside) return inside;
  let size: number;
  try {
    const st = statSync(inside.path);
    if (!st.isFile()) return { error: `'${rel}' is not a file of skill '${record.skill.name}'.` };
    size = st.size;
  } catch {
    const files = Object.values(listLinkedFiles(record.dir)).flat();
    const hint =
      files.length > 0 ? ` Its files: ${files.slice(0, 20).join(", ")}.` : " It has no linked files.";
    return { error: `Skill '${record.skill.name}' has no file '${rel}'.${hint}` };
  }
  if (size > MAX_LINKED_FILE_BYTES)
    return { error: `'${rel}' is ${size} bytes; read it with read_file instead.` };
  const buf = readFileSync(inside.path);
  if (buf.subarray(0, 8000).includes(0)) {
    return {
      error: `'${rel}' is a binary file (${size} bytes) at ${inside.path}; it cannot be shown as text.`,
    };
  }
  return { content: buf.toString("utf8") };
}
