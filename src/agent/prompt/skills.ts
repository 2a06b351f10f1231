import type { HermesConfig } from "../../core/config-defaults.js";
import { decideInstall, formatFindings, scanSkillDir } from "../../skills/guard/index.js";
import { buildSkillsIndex } from "../../skills/prompt-index.js";
import { SkillSession } from "../../skills/service.js";
import type { PromptLayer } from "./build.js";

/**
 * The agent's side of skills: one `SkillSession` per agent (what the skills tools act on) and the
 * index layer of its system prompt, built from the tools the session actually exposes.
 */

/** Tool names → the toolsets they belong to, and both as sets. */
export interface ToolScope {
  tools: ReadonlySet<string>;
  toolsets: ReadonlySet<string>;
}

/** The toolsets of a session's tools, looked up in the registry. */
export function toolScope(
  tools: readonly { function: { name: string } }[],
  registry: { get(name: string): { toolset: string } | undefined },
): ToolScope {
  const names = tools.map((t) => t.function.name);
  const toolsets = new Set<string>();
  for (const n of names) {
    const t = registry.get(n)?.toolset;
    if (t) toolsets.add(t);
  }
  return { tools: new Set(names), toolsets };
}

/** A skill the agent wrote, scanned like an install of trust "agent-created": dangerous is refused. */
function scanAgentWrite(dir: string): string | undefined {
  const result = scanSkillDir(dir);
  const decision = decideInstall(result.verdict, "agent-created");
  if (decision.action === "allow") return undefined;
  return `${result.verdict} verdict; rewrite the skill without these:\n${formatFindings(result.findings, 10).join("\n")}`;
}

/** The agent's skills session; `tools` are the session's tool definitions once fixed. */
export function createAgentSkills(
  opts: {
    home: string;
    config: HermesConfig;
    registry: { get(name: string): { toolset: string } | undefined };
  },
  platform: string,
  sessionId: () => string,
  tools: () => readonly { function: { name: string } }[] | undefined,
): SkillSession {
  return new SkillSession({
    home: opts.home,
    settings: opts.config.skills ?? {},
    platform,
    sessionId,
    toolScope: () => {
      const defs = tools();
      return defs && toolScope(defs, opts.registry);
    },
    scanWrite: scanAgentWrite,
  });
}

/**
 * The skills layer for a new session ("" without skill_view). Syncs the bundled skills first.
 * Never throws: a problem with the skills store leaves the layer empty rather than the session
 * without a prompt.
 */
export function skillsIndexLayer(options: {
  home: string;
  config: HermesConfig;
  platform: string;
  /** The terminal backend: its machine's OS decides `platforms` (remote backends run Linux). */
  backend: string;
  scope: ToolScope | undefined;
}): string {
  if (!options.scope) return "";
  try {
    return buildSkillsIndex({
      home: options.home,
      platform: options.platform,
      os: options.backend === "local" ? process.platform : "linux",
      tools: options.scope.tools,
      toolsets: options.scope.toolsets,
      settings: options.config.skills ?? {},
    }).text;
  } catch {
    return "";
  }
}

/** The layers with the skills layer replaced by `text` (removed when empty, inserted in its place). */
export function replaceSkillsLayer(layers: readonly PromptLayer[], text: string): PromptLayer[] {
  const out = layers.filter((l) => l.name !== "skills");
  if (!text.trim()) return out;
  const after = out.findIndex((l) => l.name === "context_files" || l.name === "memory");
  out.splice(after < 0 ? out.length : after, 0, { name: "skills", text });
  return out;
}
