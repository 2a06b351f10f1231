/**
 * Model metadata served by an endpoint's own `GET /models` (custom servers, OpenRouter, Nous),
 * cached per host in `HERMES_HOME/cache/models/<host>.json` for an hour. Reads the OpenAI list
 * shape plus the fields servers add to it: OpenRouter's `context_length` / `pricing` /
 * `supported_parameters`, vLLM's `max_model_len`, llama.cpp's `meta.n_ctx_train`, LM Studio's
 * `max_context_length`.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDir } from "../../core/fs.js";
import { isRecord } from "../../core/is-record.js";
import { PLACEHOLDER_API_KEY } from "../detect.js";
import { send } from "../http.js";
import type { ModelTarget } from "../types.js";
import type { ModelPricing } from "./catalog.js";

/** What one endpoint says about one of its models; every field optional (servers vary). */
export interface EndpointModel {
  contextLength?: number;
  maxOutputTokens?: number;
  pricing?: ModelPricing;
  vision?: boolean;
  reasoning?: boolean;
  toolCalls?: boolean;
}

export interface EndpointCache {
  version: 1;
  /** Epoch ms of the fetch. */
  fetchedAt: number;
  baseUrl: string;
  /** By model id exactly as the endpoint lists it. */
  models: Record<string, EndpointModel>;
}

export const ENDPOINT_CACHE_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;

/** `HERMES_HOME/cache/models/<host>.json`; the port is part of the host (two local servers differ). */
export function endpointCacheFile(home: string, baseUrl: string): string | undefined {
  let host: string;
  try {
    host = new URL(baseUrl).host.toLowerCase();
  } catch {
    return undefined;
  }
  if (!host) return undefined;
  return join(home, "cache", "models", `${host.replace(/[^a-z0-9.-]/g, "_")}.json`);
}

/** Parsed cache files by path, revalidated by mtime so a refresh in another process is seen. */
const memo = new Map<string, { mtimeMs: number; cache: EndpointCache }>();

/** Reads a cache file (fresh or stale); undefined when absent or unreadable. Never throws. */
export function readEndpointCache(file: string): EndpointCache | undefined {
  try {
    const { mtimeMs } = statSync(file);
    const hit = memo.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.cache;
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (!isRecord(parsed) || parsed.version !== 1 || !isRecord(parsed.models)) return undefined;
    const cache = parsed as unknown as EndpointCache;
    memo.set(file, { mtimeMs, cache });
    return cache;
  } catch {
    return undefined;
  }
}

/** Writes atomically (temp file + rename) so a reader never sees half a file. */
export async function writeEndpointCache(file: string, cache: EndpointCache): Promise<void> {
  await ensureDir(join(file, ".."), 0o700);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(cache), { mode: 0o600 });
  renameSync(tmp, file);
  memo.delete(file);
}

/** `noList`: the server has no model list (404/405); cached too, so it is not asked again for an hour. */
export type FetchOutcome =
  | { ok: true; models: Record<string, EndpointModel>; noList?: boolean }
  | { ok: false; reason: string };

/** `GET {baseUrl}/models` with a short timeout. Never throws. */
export async function fetchEndpointModels(
  target: Pick<ModelTarget, "baseUrl" | "apiKey" | "headers">,
  timeoutMs = DEFAULT_FETCH_TIMEOUT_MS,
): Promise<FetchOutcome> {
  const url = `${target.baseUrl.replace(/\/+$/, "")}/models`;
  const headers: Record<string, string> = { accept: "application/json", ...target.headers };
  if (target.apiKey && target.apiKey !== PLACEHOLDER_API_KEY)
    headers.authorization = `Bearer ${target.apiKey}`;
  try {
    const res = await send(url, { method: "GET", headers, signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 404 || res.status === 405) {
      res.discard();
      return { ok: true, models: {}, noList: true };
    }
    if (!res.ok) {
      res.discard();
      return { ok: false, reason: `HTTP ${res.status}` };
    }
    return { ok: true, models: parseModelList(JSON.parse(await res.text())) };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Model list body → metadata by id. Unknown shapes give an empty map. Pure. */
export function parseModelList(body: unknown): Record<string, EndpointModel> {
  const items = Array.isArray(body)
    ? body
    : isRecord(body) && Array.isArray(body.data)
      ? body.data
      : isRecord(body) && Array.isArray(body.models)
        ? body.models
        : [];
  const out: Record<string, EndpointModel> = {};
  for (const item of items) {
    if (!isRecord(item)) continue;
    const id = str(item.id) || str(item.name) || str(item.model);
    if (id) out[id] = parseModel(item);
  }
  return out;
}

function parseModel(item: Record<string, unknown>): EndpointModel {
  const meta = isRecord(item.meta) ? item.meta : {};
  const top = isRecord(item.top_provider) ? item.top_provider : {};
  const arch = isRecord(item.architecture) ? item.architecture : {};
  const out: EndpointModel = {};
  // Runtime limits first (what the server will accept), training context last (an upper bound).
  const context = firstPositive(
    item.context_length,
    item.max_model_len,
    item.context_window,
    item.max_context_length,
    top.context_length,
    meta.n_ctx,
    meta.n_ctx_train,
  );
  if (context) out.contextLength = context;
  const maxOut = firstPositive(top.max_completion_tokens, item.max_output_tokens, item.max_completion_tokens);
  if (maxOut) out.maxOutputTokens = maxOut;
  const pricing = parsePricing(item.pricing);
  if (pricing) out.pricing = pricing;
  const modalities = Array.isArray(arch.input_modalities) ? arch.input_modalities : [];
  if (modalities.length > 0 || typeof arch.modality === "string") {
    out.vision = modalities.includes("image") || /image.*->/.test(str(arch.modality));
  }
  if (Array.isArray(item.supported_parameters)) {
    const params = item.supported_parameters as unknown[];
    out.toolCalls = params.includes("tools");
    out.reasoning = params.includes("reasoning") || params.includes("include_reasoning");
  }
  return out;
}

/** OpenRouter prices are USD per token, as strings; "-1" marks a variable price (routers). */
function parsePricing(raw: unknown): ModelPricing | undefined {
  if (!isRecord(raw)) return undefined;
  const perMillion = (v: unknown): number | undefined => {
    const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : Number.NaN;
    return Number.isFinite(n) && n >= 0 ? Math.round(n * 1e6 * 1e6) / 1e6 : undefined;
  };
  const input = perMillion(raw.prompt);
  const output = perMillion(raw.completion);
  if (input === undefined || output === undefined) return undefined;
  const pricing: ModelPricing = { input, output };
  const read = perMillion(raw.input_cache_read);
  const write = perMillion(raw.input_cache_write);
  if (read !== undefined) pricing.cacheRead = read;
  if (write !== undefined) pricing.cacheWrite = write;
  return pricing;
}

function firstPositive(...values: unknown[]): number | undefined {
  for (const v of values) {
    if (typeof v === "number" && Number.isFinite(v) && v > 0) return Math.floor(v);
  }
  return undefined;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
