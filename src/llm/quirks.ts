/**
 * Per-model request quirks shared by the wire protocols (seed 004 §16.5): which models must not
 * get a temperature, which need a fixed one, and how a reasoning effort maps to each protocol.
 */
import { prefersResponsesApi } from "./detect.js";
import { lookupCatalog } from "./models/catalog.js";
import type { ReasoningEffort } from "./types.js";

const bare = (model: string): string => {
  const m = model.trim().toLowerCase();
  return m.slice(m.lastIndexOf("/") + 1);
};

/** Kimi / Moonshot pick the temperature server-side per mode; any value sent can conflict with it. */
export function isKimiModel(model: string): boolean {
  const m = model.toLowerCase();
  return m.includes("kimi") || m.includes("moonshot");
}

/**
 * OpenAI reasoning models (o-series, GPT-5 and later, Codex) reject any temperature but the
 * default; their `-chat` variants are ordinary chat models and accept one.
 */
export function isOpenAIReasoningModel(model: string): boolean {
  const m = bare(model);
  return !m.includes("-chat") && prefersResponsesApi(m);
}

/** Models that are only served with one temperature. */
const FIXED_TEMPERATURE: ReadonlyArray<[RegExp, number]> = [[/trinity.*thinking/, 0.5]];

/**
 * The temperature to send for `model` when the caller asked for `requested`: undefined means leave
 * the key out of the request entirely. Pure.
 */
export function temperatureFor(model: string, requested: number | undefined): number | undefined {
  if (isKimiModel(model) || isOpenAIReasoningModel(model)) return undefined;
  const m = bare(model);
  for (const [pattern, value] of FIXED_TEMPERATURE) if (pattern.test(m)) return value;
  return requested;
}

/** Extended-thinking budgets per effort: enough to matter, well under the output caps of current models. */
export const THINKING_BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  low: 4_000,
  medium: 8_000,
  high: 16_000,
};

/** Whether the catalog knows `model` as a reasoning model (extended thinking for Claude). */
export function supportsReasoning(model: string): boolean {
  return lookupCatalog(model)?.capabilities.reasoning === true;
}
