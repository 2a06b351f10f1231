/**
 * Lookup in the bundled model catalog. Ids are compared in a normalised form so that the spellings
 * of one model across native APIs, OpenRouter and local servers meet: `anthropic/claude-sonnet-4.5`,
 * `claude-sonnet-4-5-20250929` and `Claude-Sonnet-4-5` are the same entry.
 */
import { CATALOG } from "./catalog-data.js";

/** USD per million tokens. */
export interface ModelPricing {
  input: number;
  output: number;
  /** Cached input read; when absent, cached tokens are charged at `input`. */
  cacheRead?: number;
  /** Cache write (Anthropic); when absent, charged at `input`. */
  cacheWrite?: number;
}

export interface ModelCapabilities {
  vision: boolean;
  /** Reasoning model: takes a reasoning effort (OpenAI) or extended thinking (Anthropic). */
  reasoning: boolean;
  toolCalls: boolean;
}

export interface CatalogEntry {
  id: string;
  vendor:
    | "openai"
    | "anthropic"
    | "google"
    | "xai"
    | "deepseek"
    | "qwen"
    | "meta"
    | "mistral"
    | "nous"
    | "moonshot"
    | "zhipu";
  contextLength: number;
  maxOutputTokens: number;
  pricing?: ModelPricing;
  capabilities: ModelCapabilities;
  /** Other ids of the same model (dated snapshots are matched without listing them). */
  aliases?: readonly string[];
}

/** Date snapshots: -20250929, -2025-08-07, and the moving -latest tag. */
const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The comparable form of a model id: lower case, without a `vendor/` route prefix, without a date
 * suffix, with `.` and `_` read as `-` (OpenRouter writes claude-sonnet-4.5, Anthropic
 * claude-sonnet-4-5). Pure.
 */
export function normaliseModelId(id: string): string {
  let m = id.trim().toLowerCase();
  const slash = m.lastIndexOf("/");
  if (slash >= 0) m = m.slice(slash + 1);
  m = m.replace(DATE_SUFFIX, "");
  return m.replace(/[._]/g, "-");
}

/** OpenRouter variants (`:free`, `:thinking`, `:exacto`) and Ollama tags (`:latest`) share metadata. */
function variants(id: string): string[] {
  const base = normaliseModelId(id);
  const out = [base];
  const colon = base.indexOf(":");
  if (colon >= 0) {
    // Ollama size tags are part of the identity (qwen3:8b ≠ qwen3:32b): try them as -8b first.
    out.push(base.replace(":", "-"), base.slice(0, colon));
  }
  return out;
}

let index: Map<string, CatalogEntry> | undefined;

function catalogIndex(): Map<string, CatalogEntry> {
  if (index) return index;
  index = new Map();
  for (const entry of CATALOG) {
    for (const name of [entry.id, ...(entry.aliases ?? [])]) {
      const key = normaliseModelId(name);
      if (!index.has(key)) index.set(key, entry);
    }
  }
  return index;
}

/** The catalog entry for `modelId` (any spelling), or undefined. */
export function lookupCatalog(modelId: string): CatalogEntry | undefined {
  const idx = catalogIndex();
  for (const key of variants(modelId)) {
    const hit = idx.get(key);
    if (hit) return hit;
  }
  return undefined;
}

/** Every entry (for docs and tests). */
export function catalogEntries(): readonly CatalogEntry[] {
  return CATALOG;
}
