/**
 * Bundled model metadata: the popular models of each vendor under the ids their native APIs and
 * OpenRouter use. Prices are USD per million tokens at list price (input, output, cache read,
 * cache write), limits in tokens; checked against models.dev. Costs computed from them are
 * estimates: a stale price only makes the estimate wrong, never a request.
 */
import type { CatalogEntry, ModelCapabilities, ModelPricing } from "./catalog.js";

type Vendor = CatalogEntry["vendor"];

/** Capability letters: v = image input, r = reasoning / extended thinking, t = tool calls. */
function caps(letters: string): ModelCapabilities {
  return {
    vision: letters.includes("v"),
    reasoning: letters.includes("r"),
    toolCalls: letters.includes("t"),
  };
}

function pricing(p: readonly number[] | undefined): ModelPricing | undefined {
  if (!p) return undefined;
  const [input = 0, output = 0, cacheRead, cacheWrite] = p;
  const out: ModelPricing = { input, output };
  if (cacheRead !== undefined) out.cacheRead = cacheRead;
  if (cacheWrite !== undefined) out.cacheWrite = cacheWrite;
  return out;
}

/** Builds the entries of one vendor from compact rows: [id, context, max output, caps, price?, aliases?]. */
function vendor(
  name: Vendor,
  rows: ReadonlyArray<readonly [string, number, number, string, (readonly number[])?, (readonly string[])?]>,
): CatalogEntry[] {
  return rows.map(([id, contextLength, maxOutputTokens, letters, price, aliases]) => {
    const entry: CatalogEntry = {
      id,
      vendor: name,
      contextLength,
      maxOutputTokens,
      capabilities: caps(letters),
    };
    const p = pricing(price);
    if (p) entry.pricing = p;
    if (aliases) entry.aliases = aliases;
    return entry;
  });
}

export const CATALOG: readonly CatalogEntry[] = [
  ...vendor("openai", [
    ["gpt-5.5", 1_050_000, 128_000, "vrt", [5, 30, 0.5]],
    ["gpt-5.4", 1_050_000, 128_000, "vrt", [2.5, 15, 0.25]],
    ["gpt-5.2", 400_000, 128_000, "vrt", [1.75, 14, 0.175]],
    ["gpt-5.1", 400_000, 128_000, "vrt", [1.25, 10, 0.125]],
    ["gpt-5.1-codex", 400_000, 128_000, "vrt", [1.25, 10, 0.125], ["gpt-5-codex"]],
    ["gpt-5", 400_000, 128_000, "vrt", [1.25, 10, 0.125]],
    ["gpt-5-mini", 400_000, 128_000, "vrt", [0.25, 2, 0.025]],
    ["gpt-5-nano", 400_000, 128_000, "vrt", [0.05, 0.4, 0.005]],
    ["gpt-4.1", 1_047_576, 32_768, "vt", [2, 8, 0.5]],
    ["gpt-4o", 128_000, 16_384, "vt", [2.5, 10, 1.25]],
    ["o3", 200_000, 100_000, "vrt", [2, 8, 0.5]],
    ["o4-mini", 200_000, 100_000, "vrt", [1.1, 4.4, 0.275]],
    // Open weights served by many hosts at many prices: limits only.
    ["gpt-oss-120b", 131_072, 131_072, "rt", undefined, ["gpt-oss:120b"]],
  ]),
  ...vendor("anthropic", [
    ["claude-opus-5", 1_000_000, 128_000, "vrt", [5, 25, 0.5, 6.25]],
    ["claude-sonnet-5", 1_000_000, 128_000, "vrt", [2, 10, 0.2, 2.5]],
    ["claude-opus-4-8", 1_000_000, 128_000, "vrt", [5, 25, 0.5, 6.25]],
    ["claude-opus-4-6", 1_000_000, 128_000, "vrt", [5, 25, 0.5, 6.25], ["claude-opus-4-7"]],
    ["claude-sonnet-4-6", 1_000_000, 64_000, "vrt", [3, 15, 0.3, 3.75]],
    [
      "claude-sonnet-4-5",
      200_000,
      64_000,
      "vrt",
      [3, 15, 0.3, 3.75],
      ["claude-sonnet-4", "claude-sonnet-4-0"],
    ],
    ["claude-opus-4-5", 200_000, 64_000, "vrt", [5, 25, 0.5, 6.25]],
    ["claude-opus-4-1", 200_000, 32_000, "vrt", [15, 75, 1.5, 18.75], ["claude-opus-4", "claude-opus-4-0"]],
    ["claude-haiku-4-5", 200_000, 64_000, "vrt", [1, 5, 0.1, 1.25]],
  ]),
  ...vendor("google", [
    ["gemini-3.5-flash", 1_048_576, 65_536, "vrt", [1.5, 9, 0.15]],
    [
      "gemini-3.1-pro-preview",
      1_048_576,
      65_536,
      "vrt",
      [2, 12, 0.2],
      ["gemini-3.1-pro", "gemini-3-pro-preview"],
    ],
    ["gemini-3-flash-preview", 1_048_576, 65_536, "vrt", [0.5, 3, 0.05], ["gemini-3-flash"]],
    ["gemini-2.5-pro", 1_048_576, 65_536, "vrt", [1.25, 10, 0.125]],
    ["gemini-2.5-flash", 1_048_576, 65_535, "vrt", [0.3, 2.5, 0.03]],
  ]),
  ...vendor("xai", [
    ["grok-4.3", 1_000_000, 128_000, "vrt", [1.25, 2.5, 0.2]],
    ["grok-4.1-fast", 2_000_000, 30_000, "vrt", [0.2, 0.5, 0.05], ["grok-4-fast"]],
    ["grok-4", 256_000, 64_000, "vrt", [3, 15, 0.75]],
    ["grok-code-fast-1", 256_000, 10_000, "rt", [0.2, 1.5, 0.02]],
  ]),
  ...vendor("deepseek", [
    ["deepseek-v4-pro", 1_048_576, 131_072, "rt", [0.97, 1.94, 0.08]],
    // deepseek-chat / deepseek-reasoner are the native API's names for V3.2 without / with thinking.
    [
      "deepseek-v3.2",
      131_072,
      65_536,
      "rt",
      [0.28, 0.42, 0.028],
      ["deepseek-chat", "deepseek-reasoner", "deepseek-v3.2-exp"],
    ],
  ]),
  ...vendor("qwen", [
    ["qwen3-max", 262_144, 32_768, "t", [0.78, 3.9, 0.156, 0.975]],
    ["qwen3-coder", 262_144, 65_536, "t", [0.22, 1.8], ["qwen3-coder-480b-a35b-instruct"]],
    ["qwen3-235b-a22b-2507", 262_144, 32_768, "t", [0.15, 0.6], ["qwen3-235b-a22b-instruct-2507"]],
    // The sizes people run locally (Ollama tags qwen3:32b, qwen3:8b).
    ["qwen3-32b", 40_960, 16_384, "rt"],
    ["qwen3-8b", 40_960, 16_384, "rt"],
  ]),
  ...vendor("meta", [
    ["llama-4-maverick", 1_048_576, 16_384, "vt", [0.15, 0.6], ["llama-4-maverick-17b-128e-instruct"]],
    ["llama-4-scout", 327_680, 16_384, "vt", [0.08, 0.3], ["llama-4-scout-17b-16e-instruct"]],
    [
      "llama-3.3-70b-instruct",
      131_072,
      16_384,
      "t",
      [0.1, 0.32],
      ["llama3.3", "llama3.3:70b", "llama-3.3-70b", "llama-3.3-70b-versatile"],
    ],
    [
      "llama-3.1-8b-instruct",
      131_072,
      16_384,
      "t",
      [0.02, 0.03],
      ["llama3.1", "llama3.1:8b", "llama-3.1-8b", "llama-3.1-8b-instant"],
    ],
  ]),
  ...vendor("mistral", [
    [
      "mistral-large-2512",
      262_144,
      65_536,
      "vt",
      [0.5, 1.5, 0.05],
      ["mistral-large-latest", "mistral-large-3"],
    ],
    ["mistral-medium-3.1", 131_072, 32_768, "vt", [0.4, 2], ["mistral-medium-latest", "mistral-medium-2508"]],
    ["devstral-2512", 262_144, 65_536, "t", [0.15, 0.6], ["devstral-2", "devstral-latest"]],
  ]),
  ...vendor("nous", [
    // Hermes 4 calls tools in its own format; the Nous API and vLLM's hermes parser expose it as tool calls.
    ["hermes-4-405b", 131_072, 131_072, "rt", [1, 3]],
    ["hermes-4-70b", 131_072, 131_072, "rt", [0.13, 0.4]],
  ]),
  ...vendor("moonshot", [
    ["kimi-k2.6", 262_144, 65_536, "vrt", [0.67, 3.39, 0.14]],
    ["kimi-k2-thinking", 262_144, 16_384, "rt", [0.6, 2.5, 0.15]],
    [
      "kimi-k2",
      262_144,
      16_384,
      "t",
      [0.6, 2.5, 0.15],
      ["kimi-k2-0905", "kimi-k2-0905-preview", "kimi-k2-instruct"],
    ],
  ]),
  ...vendor("zhipu", [
    ["glm-5.1", 204_800, 128_000, "rt", [0.97, 3.04, 0.18]],
    ["glm-4.6", 204_800, 131_072, "rt", [0.6, 2.2, 0.11]],
    ["glm-4.5-air", 131_072, 98_304, "rt", [0.2, 1.1, 0.03]],
  ]),
];
