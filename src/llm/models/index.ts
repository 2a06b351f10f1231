/**
 * Model metadata for one target: context length, output cap, pricing and capabilities, merged from
 * (highest first) config.yaml's `model.context_length`, the endpoint's own model list (cached per
 * host) and the bundled catalog. Lookups are synchronous and offline; refreshing the endpoint cache
 * is asynchronous and only ever started in the background (never on the path to the first prompt).
 */
import { getHermesHome } from "../../core/home.js";
import { baseUrlHostMatches, PROVIDERS } from "../detect.js";
import { afterFirstModelRequest } from "../first-request.js";
import { isLocalEndpoint } from "../local-host.js";
import type { ModelTarget } from "../types.js";
import { lookupCatalog, type ModelCapabilities, type ModelPricing, normaliseModelId } from "./catalog.js";
import {
  DEFAULT_FETCH_TIMEOUT_MS,
  ENDPOINT_CACHE_TTL_MS,
  type EndpointCache,
  type EndpointModel,
  endpointCacheFile,
  fetchEndpointModels,
  readEndpointCache,
  writeEndpointCache,
} from "./endpoint.js";

export { isLocalEndpoint } from "../local-host.js";
export {
  type CatalogEntry,
  lookupCatalog,
  type ModelCapabilities,
  type ModelPricing,
  normaliseModelId,
} from "./catalog.js";

export interface ModelInfo {
  model: string;
  contextLength?: number;
  maxOutputTokens?: number;
  /** Undefined when the price is unknown (local servers, models outside the catalog). */
  pricing?: ModelPricing;
  capabilities: ModelCapabilities;
  /** Where `contextLength` came from. */
  source: "config" | "endpoint" | "catalog" | "none";
  /** The catalog entry that matched, when one did. */
  catalogId?: string;
}

export type ModelInfoTarget = Pick<ModelTarget, "model" | "baseUrl" | "provider" | "apiMode"> &
  Partial<Pick<ModelTarget, "apiKey" | "headers" | "contextLength">>;

export interface ModelInfoOptions {
  /** HERMES_HOME (default: the environment's). */
  home?: string;
}

/** Assumed when nothing is known: most chat models today call tools, few see images. */
const DEFAULT_CAPABILITIES: ModelCapabilities = { vision: false, reasoning: false, toolCalls: true };

/** Endpoints whose model list carries metadata worth fetching (OpenAI's and Anthropic's do not). */
export function servesModelMetadata(target: ModelInfoTarget): boolean {
  if (target.apiMode !== "chat_completions" && target.apiMode !== "codex_responses") return false;
  if (baseUrlHostMatches(target.baseUrl, "api.openai.com")) return false;
  return target.provider !== "openai" && target.provider !== "anthropic";
}

function endpointEntry(cache: EndpointCache | undefined, model: string): EndpointModel | undefined {
  if (!cache) return undefined;
  const exact = cache.models[model];
  if (exact) return exact;
  // Same model, different spelling (case, date suffix): compare normalised ids.
  const want = normaliseModelId(model);
  for (const [id, entry] of Object.entries(cache.models)) if (normaliseModelId(id) === want) return entry;
  return undefined;
}

/** Metadata for `target.model` from config, endpoint cache and catalog. Synchronous, offline, never throws. */
export function getModelInfo(target: ModelInfoTarget, opts: ModelInfoOptions = {}): ModelInfo {
  const catalog = lookupCatalog(target.model);
  const file = servesModelMetadata(target)
    ? endpointCacheFile(opts.home ?? getHermesHome(), target.baseUrl)
    : undefined;
  const endpoint = file ? endpointEntry(readEndpointCache(file), target.model) : undefined;
  const info: ModelInfo = {
    model: target.model,
    capabilities: { ...(catalog?.capabilities ?? DEFAULT_CAPABILITIES) },
    source: "none",
  };
  if (catalog) info.catalogId = catalog.id;
  if (target.contextLength && target.contextLength > 0) {
    info.contextLength = target.contextLength;
    info.source = "config";
  } else if (endpoint?.contextLength) {
    info.contextLength = endpoint.contextLength;
    info.source = "endpoint";
  } else if (catalog) {
    info.contextLength = catalog.contextLength;
    info.source = "catalog";
  }
  const maxOut = endpoint?.maxOutputTokens ?? catalog?.maxOutputTokens;
  if (maxOut) info.maxOutputTokens = maxOut;
  // A custom server on your own machine or network has no list price; any price would be invented.
  // A named provider (openai, anthropic, ...) behind a local proxy is still billed by that vendor.
  const local = target.provider === "custom" && isLocalEndpoint(target.baseUrl);
  const pricing = local ? undefined : (endpoint?.pricing ?? catalog?.pricing);
  if (pricing) info.pricing = { ...pricing };
  if (endpoint?.vision !== undefined) info.capabilities.vision = endpoint.vision;
  if (endpoint?.toolCalls !== undefined) info.capabilities.toolCalls = endpoint.toolCalls;
  if (endpoint?.reasoning) info.capabilities.reasoning = true;
  return info;
}

/**
 * A price lookup for usage accounting: `(model, provider) → pricing`. Calls served by the main
 * provider are priced at the main endpoint (a local server has no price); a fallback on another
 * known provider at that provider's endpoint.
 */
export function pricingLookup(
  main: ModelInfoTarget,
  opts: ModelInfoOptions = {},
): (model: string, provider: string) => ModelPricing | undefined {
  return (model, provider) => {
    const known = Object.hasOwn(PROVIDERS, provider)
      ? PROVIDERS[provider as keyof typeof PROVIDERS]
      : undefined;
    const baseUrl = provider === main.provider || !known ? main.baseUrl : known.baseUrl;
    return getModelInfo({ ...main, model, provider, baseUrl }, opts).pricing;
  };
}

export interface RefreshOptions extends ModelInfoOptions {
  timeoutMs?: number;
  /** Fetch even when the cache is younger than its TTL. */
  force?: boolean;
  now?: () => number;
}

/**
 * Re-fetches the endpoint's model list when the cached one is missing or older than an hour, then
 * returns the merged metadata. Never throws: a failed fetch leaves the cache as it was.
 */
export async function refreshModelInfo(target: ModelTarget, opts: RefreshOptions = {}): Promise<ModelInfo> {
  const home = opts.home ?? getHermesHome();
  const file = servesModelMetadata(target) ? endpointCacheFile(home, target.baseUrl) : undefined;
  if (file) {
    const now = opts.now ?? Date.now;
    const cached = readEndpointCache(file);
    const fresh = cached !== undefined && now() - cached.fetchedAt < ENDPOINT_CACHE_TTL_MS;
    if (!fresh || opts.force) {
      const outcome = await fetchEndpointModels(target, opts.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS);
      if (outcome.ok) {
        const cache: EndpointCache = {
          version: 1,
          fetchedAt: now(),
          baseUrl: target.baseUrl,
          models: outcome.models,
        };
        await writeEndpointCache(file, cache).catch(() => undefined);
      }
    }
  }
  return getModelInfo(target, { home });
}

const started = new Set<string>();

/** A chat that has not sent anything yet refreshes after this long anyway. */
const REFRESH_DELAY_MS = 1000;

/**
 * Starts `refreshModelInfo` in the background, at most once per endpoint per process (seed 004 §20:
 * an agent is built per gateway message, so an unguarded refresh would start one per message),
 * once the process's first model request is on its way. Returns the promise for tests; callers on
 * the startup path ignore it. Never rejects.
 */
export function refreshModelInfoInBackground(
  target: ModelTarget,
  opts: RefreshOptions = {},
): Promise<ModelInfo | undefined> {
  if (!servesModelMetadata(target)) return Promise.resolve(undefined);
  const key = `${opts.home ?? getHermesHome()}\n${target.baseUrl}`;
  if (started.has(key)) return Promise.resolve(undefined);
  started.add(key);
  return afterFirstModelRequest(REFRESH_DELAY_MS)
    .then(() => refreshModelInfo(target, opts))
    .catch(() => undefined);
}
