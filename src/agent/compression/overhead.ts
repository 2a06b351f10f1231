/**
 * The fixed part of every request: the system prompt and tool schemas. On small windows (8k–32k)
 * it can leave little room for the conversation; compression cannot shrink it, so the user is told
 * which toolsets cost the most.
 */
import type { ToolDefinition } from "../../llm/types.js";
import { TOOLSETS } from "../../tools/toolsets.js";
import { estimateTextTokens, estimateToolsTokens } from "./estimate.js";

/** Overhead above this share of the compression threshold triggers the warning. */
export const OVERHEAD_WARN_SHARE = 0.6;

/** Leaf toolsets only: presets and composites would name tools twice. */
function leafToolsets(): Array<[string, readonly string[]]> {
  return Object.entries(TOOLSETS)
    .filter(([name, def]) => !name.startsWith("hermes-") && def.includes.length === 0 && name !== "search")
    .map(([name, def]) => [name, def.tools]);
}

/** Toolsets by the schema tokens they add to every request, largest first. */
export function toolsetCosts(tools: readonly ToolDefinition[]): Array<{ toolset: string; tokens: number }> {
  const byName = new Map(tools.map((t) => [t.function.name, t]));
  const out: Array<{ toolset: string; tokens: number }> = [];
  for (const [toolset, names] of leafToolsets()) {
    const defs = names.map((n) => byName.get(n)).filter((d): d is ToolDefinition => d !== undefined);
    if (defs.length > 0) out.push({ toolset, tokens: estimateToolsTokens(defs) });
  }
  return out.sort((a, b) => b.tokens - a.tokens);
}

/** A warning when system prompt + schemas take too much of the threshold; undefined when they fit. */
export function overheadWarning(
  systemPrompt: string,
  tools: readonly ToolDefinition[],
  contextLength: number,
  thresholdTokens: number,
): string | undefined {
  const toolTokens = estimateToolsTokens(tools);
  const promptTokens = estimateTextTokens(systemPrompt);
  const total = toolTokens + promptTokens;
  if (total < thresholdTokens * OVERHEAD_WARN_SHARE) return undefined;
  const top = toolsetCosts(tools)
    .slice(0, 3)
    .map((c) => `${c.toolset} (~${c.tokens.toLocaleString("en-US")} tokens)`);
  const advice = top.length > 0 ? ` Consider dropping toolsets: ${top.join(", ")}.` : "";
  return `The system prompt (~${promptTokens.toLocaleString("en-US")} tokens) and tool schemas (~${toolTokens.toLocaleString("en-US")} tokens) leave little room in this model's ${contextLength.toLocaleString("en-US")}-token context window; compression cannot shrink them.${advice}`;
}
