import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EnvironmentProbe } from "../../tools/environments/types.js";
import {
  DEFAULT_IDENTITY,
  OPENAI_EXECUTION_GUIDANCE,
  PLATFORM_HINTS,
  TOOL_USE_ENFORCEMENT,
} from "./texts.js";

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
  now?: Date;
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

/** SOUL.md from HERMES_HOME replaces the default identity when present and non-empty. */
function identity(home: string): string {
  const soulPath = join(home, "SOUL.md");
  if (existsSync(soulPath)) {
    try {
      const soul = readFileSync(soulPath, "utf8").trim();
      if (soul) return soul;
    } catch {
      // An unreadable SOUL.md falls back to the default identity rather than failing the session.
    }
  }
  return DEFAULT_IDENTITY;
}

export function environmentHint(backend: string, probe: EnvironmentProbe): string {
  if (backend === "local") {
    return [
      `Host: ${probe.os}`,
      `User home directory: ${probe.home}`,
      `Current working directory: ${probe.cwd}`,
    ].join("\n");
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

/**
 * Builds the session's system prompt. Called once per session; the result is stored and reused
 * byte-for-byte on every request (prompt-cache rule).
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const layers: string[] = [identity(input.home)];
  const platformHint = PLATFORM_HINTS[input.platform];
  if (platformHint) layers.push(platformHint);
  layers.push(environmentHint(input.backend, input.environment));
  if (input.toolNames.length > 0 && needsToolUseEnforcement(input.model, input.toolUseEnforcement)) {
    layers.push(TOOL_USE_ENFORCEMENT);
    if (isOpenAiFamily(input.model)) layers.push(OPENAI_EXECUTION_GUIDANCE);
  }
  const now = input.now ?? new Date();
  layers.push(
    `Session started: ${now.toISOString().slice(0, 10)} (${Intl.DateTimeFormat().resolvedOptions().timeZone}).`,
  );
  return layers.join("\n\n");
}
