/**
 * Whether a session's deferrable tools (MCP and plugin tools) leave its requests: `tools.tool_search`
 * read into settings, and the decision, made once per session when it fixes its tool list.
 */
import type { HermesConfig } from "../../core/config-defaults.js";
import type { FunctionDefinition } from "../registry.js";
import { HERMES_CORE_TOOLS } from "../toolsets.js";

export type ToolSearchMode = "auto" | "on" | "off";

export interface ToolSearchSettings {
  mode: ToolSearchMode;
  /** auto defers once the deferrable schemas exceed this share of the context window (percent). */
  thresholdPct: number;
  defaultLimit: number;
  maxLimit: number;
}

/** Used when the model's context window is unknown. */
export const FALLBACK_CONTEXT_TOKENS = 128_000;
/** The usual estimate for English text and JSON. */
const CHARS_PER_TOKEN = 4;

const CORE = new Set(HERMES_CORE_TOOLS);

/** `enabled` as written in config.yaml: booleans and on/off spellings alike. */
function modeOf(value: unknown): ToolSearchMode {
  const v = String(value).trim().toLowerCase();
  if (v === "true" || v === "on" || v === "yes") return "on";
  if (v === "false" || v === "off" || v === "no") return "off";
  return "auto";
}

const positiveInt = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : fallback;

export function toolSearchSettings(config?: Pick<HermesConfig, "tools">): ToolSearchSettings {
  const raw = config?.tools?.tool_search;
  const maxLimit = positiveInt(raw?.max_search_limit, 20);
  const pct = raw?.threshold_pct;
  return {
    mode: modeOf(raw?.enabled ?? "auto"),
    thresholdPct: typeof pct === "number" && pct >= 0 && pct <= 100 ? pct : 10,
    defaultLimit: Math.min(positiveInt(raw?.search_default_limit, 5), maxLimit),
    maxLimit,
  };
}

/** Whether a registered tool may be deferred: flagged so, and never a core tool. */
export const mayDefer = (name: string, entry: { deferrable: boolean } | undefined): boolean =>
  entry?.deferrable === true && !CORE.has(name);

/** What the bridge decided for one session, as `hermes prompt-size` reports it. */
export interface DeferralDecision {
  mode: ToolSearchMode;
  /** The deferrable tools are left out of the request, behind the bridge. */
  active: boolean;
  deferrableTools: number;
  /** Estimated tokens of the deferrable schemas (characters / 4). */
  deferrableTokens: number;
  /** thresholdPct of the context window, in tokens. */
  thresholdTokens: number;
  contextLength: number;
  thresholdPct: number;
}

export const schemaTokens = (defs: readonly FunctionDefinition[]): number =>
  Math.ceil(defs.reduce((sum, d) => sum + JSON.stringify(d).length, 0) / CHARS_PER_TOKEN);

/**
 * on: defer whenever there is a deferrable tool; off: never; auto: when the deferrable schemas
 * would take more than `thresholdPct` of the context window.
 */
export function decideDeferral(
  settings: ToolSearchSettings,
  deferrable: readonly FunctionDefinition[],
  contextLength: number | undefined,
): DeferralDecision {
  const context = contextLength && contextLength > 0 ? contextLength : FALLBACK_CONTEXT_TOKENS;
  const deferrableTokens = schemaTokens(deferrable);
  const thresholdTokens = Math.floor((context * settings.thresholdPct) / 100);
  const any = deferrable.length > 0;
  const active =
    settings.mode === "on" ? any : settings.mode === "auto" && any && deferrableTokens > thresholdTokens;
  return {
    mode: settings.mode,
    active,
    deferrableTools: deferrable.length,
    deferrableTokens,
    thresholdTokens,
    contextLength: context,
    thresholdPct: settings.thresholdPct,
  };
}
