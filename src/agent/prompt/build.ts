import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EnvironmentProbe } from "../../tools/environments/types.js";
import { buildContextFilesLayer } from "./context-files.js";
import { guardPromptText } from "./injection.js";
import {
  DEFAULT_IDENTITY,
  MEMORY_GUIDANCE,
  OPENAI_EXECUTION_GUIDANCE,
  PLATFORM_HINTS,
  SESSION_SEARCH_GUIDANCE,
  TOOL_USE_ENFORCEMENT,
} from "./texts.js";
import { hostTimeZone } from "./time-zone.js";

export interface SystemPromptInput {
  home: string;
  platform: string;
  model: string;
  /** Live probe of the active backend. */
  environment: EnvironmentProbe;
  backend: string;
  /** config agent.tool_use_enforcement: "auto" | true | false. */
  toolUseEnforcement: string | boolean;
  /** Tools the model will see; guidance for absent tools is left out. */
  toolNames: readonly string[];
  /** Directory whose project context files (AGENTS.md, ...) are loaded; none when unset. */
  contextCwd?: string;
  /** The memory layer, snapshotted at session start ("" or unset for none). */
  memoryBlock?: string;
  /** The skills index layer (hook: no skills yet). */
  skillsIndex?: string;
  /** What enabled plugins add to the prompt ("" or unset for none). */
  pluginSections?: string;
  now?: Date;
}

export type PromptLayerName =
  | "identity"
  | "platform"
  | "environment"
  | "tool_enforcement"
  | "model_guidance"
  | "behaviour"
  | "skills"
  | "context_files"
  | "plugins"
  | "memory";

export interface PromptLayer {
  name: PromptLayerName;
  text: string;
}

const ENFORCED_FAMILIES = ["gpt", "gemini", "gemma", "grok", "glm", "codex", "o1", "o3", "o4"];

/** Models that tend to narrate instead of acting get the tool-use block (auto mode). */
export function needsToolUseEnforcement(model: string, setting: string | boolean): boolean {
  if (setting === true || setting === "true") return true;
  if (setting === false || setting === "false") return false;
  const id = (model.split("/").pop() ?? model).toLowerCase();
  return ENFORCED_FAMILIES.some((f) => id.startsWith(f) || id.includes(`-${f}`));
}

const isOpenAiFamily = (model: string): boolean => {
  const id = (model.split("/").pop() ?? model).toLowerCase();
  return id.startsWith("gpt") || id.includes("codex") || /^o\d/.test(id);
};

/**
 * SOUL.md from HERMES_HOME replaces the default identity when present and non-empty. It is scanned
 * for injection like a context file: a blocked SOUL.md leaves the default identity plus the notice.
 */
function identity(home: string): string {
  const soulPath = join(home, "SOUL.md");
  if (existsSync(soulPath)) {
    try {
      const soul = readFileSync(soulPath, "utf8").trim();
      if (soul) {
        const guarded = guardPromptText("SOUL.md", soul);
        return guarded.blocked ? `${DEFAULT_IDENTITY}\n\n${guarded.text}` : soul;
      }
    } catch {
      // An unreadable SOUL.md falls back to the default identity rather than failing the session.
    }
  }
  return DEFAULT_IDENTITY;
}

export function environmentHint(backend: string, probe: EnvironmentProbe): string {
  if (backend === "local") {
    return [`Host: ${probe.os}`, `Home: ${probe.home}`, `Working directory: ${probe.cwd}`].join("\n");
  }
  return [
    `Terminal backend: ${backend}. terminal, read_file, write_file, patch and search_files all act inside`,
    `this ${backend} environment, not on the machine running Hermes. What matters is this state:`,
    `  OS: ${probe.os}`,
    `  User: ${probe.user}`,
    `  Home: ${probe.home}`,
    `  Working directory: ${probe.cwd}`,
  ].join("\n");
}

/** The layers of §12.1 in order (plus what plugins add, after the context files); empty layers are left out. */
export function buildPromptLayers(input: SystemPromptInput): PromptLayer[] {
  const layers: PromptLayer[] = [];
  const add = (name: PromptLayerName, text: string | undefined): void => {
    if (text?.trim()) layers.push({ name, text });
  };
  add("identity", identity(input.home));
  add("platform", PLATFORM_HINTS[input.platform]);
  const now = input.now ?? new Date();
  add(
    "environment",
    `${environmentHint(input.backend, input.environment)}\nSession started: ${now.toISOString().slice(0, 10)} (${hostTimeZone()}).`,
  );
  const enforce =
    input.toolNames.length > 0 && needsToolUseEnforcement(input.model, input.toolUseEnforcement);
  add("tool_enforcement", enforce ? TOOL_USE_ENFORCEMENT : undefined);
  add("model_guidance", enforce && isOpenAiFamily(input.model) ? OPENAI_EXECUTION_GUIDANCE : undefined);
  const behaviour: string[] = [];
  if (input.toolNames.includes("memory")) behaviour.push(MEMORY_GUIDANCE);
  if (input.toolNames.includes("session_search")) behaviour.push(SESSION_SEARCH_GUIDANCE);
  add("behaviour", behaviour.join("\n\n"));
  add("skills", input.skillsIndex);
  if (input.contextCwd) add("context_files", buildContextFilesLayer(input.contextCwd).text);
  add("plugins", input.pluginSections);
  add("memory", input.memoryBlock);
  return layers;
}

export const joinLayers = (layers: readonly PromptLayer[]): string => layers.map((l) => l.text).join("\n\n");

/**
 * Builds the session's system prompt. Called once per session; the result is stored and reused
 * byte-for-byte on every request (prompt-cache rule).
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  return joinLayers(buildPromptLayers(input));
}
