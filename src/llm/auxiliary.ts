/**
 * The auxiliary client (seed 004 §16): side calls (compression summaries, vision, web extraction,
 * titles, approval checks, session search) on a cheap model, resolved per task from
 * `auxiliary.<task>` in config.yaml or an automatic chain, with a cooldown for providers that keep
 * failing. Non-streaming for the caller (it uses the protocol stream functions and collects), and
 * protocol-blind: a Codex/Responses or Anthropic target works exactly like a chat one.
 */
import type { AuxiliaryTask, AuxiliaryTaskSettings } from "../core/config-defaults.js";
import { detectApiMode, PLACEHOLDER_API_KEY, PROVIDERS, providerHeaders } from "./detect.js";
import { classified } from "./errors.js";
import { getModelInfo, lookupCatalog } from "./models/index.js";
import { getStreamFn } from "./registry.js";
import type {
  AssistantMessage,
  ChatMessage,
  ClassifiedError,
  ModelTarget,
  StreamFn,
  ToolDefinition,
  Usage,
} from "./types.js";

export type { AuxiliaryTask } from "../core/config-defaults.js";

type KnownProvider = keyof typeof PROVIDERS;

/** Cheap, capable defaults when a provider is used for side tasks without a model named. */
export const AUXILIARY_DEFAULT_MODELS: Readonly<Record<KnownProvider, string>> = {
  openrouter: "google/gemini-3-flash-preview",
  nous: "Hermes-4-70B",
  anthropic: "claude-haiku-4-5",
  openai: "gpt-5-mini",
};

const VISION_TASKS: ReadonlySet<AuxiliaryTask> = new Set(["vision"]);
const DEFAULT_TIMEOUT_MS = 60_000;
export const AUXILIARY_COOLDOWN_MS = 600_000;

/** Where side calls can go: the main target, the aux settings, and what the environment offers. */
export interface AuxiliaryContext {
  /** The session's main model target. */
  main: ModelTarget;
  /** config.auxiliary (missing tasks and keys mean defaults). */
  settings?: Partial<Record<AuxiliaryTask, Partial<AuxiliaryTaskSettings>>>;
  /** config.model.base_url / model.default: the "custom endpoint" step of the auto chain. */
  customBaseUrl?: string;
  customModel?: string;
  /** Provider keys and OPENAI_BASE_URL (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** HERMES_HOME for the model metadata cache (vision capability of the main model). */
  home?: string;
}

export interface AuxiliaryCallOptions extends AuxiliaryContext {
  signal?: AbortSignal;
  /** Output cap for this call (else auxiliary.<task>.max_tokens, else the provider's default). */
  maxTokens?: number;
  temperature?: number;
  tools?: readonly ToolDefinition[];
  /** Shared failure memory (default: one per process). */
  cooldowns?: AuxiliaryCooldowns;
  /** Stream function for a target (tests); default: the target's wire protocol. */
  streamFor?: (target: ModelTarget) => StreamFn;
}

export interface AuxiliaryCandidate {
  /** Why this candidate is in the chain: "config", "main", "openrouter", ... */
  source: string;
  target: ModelTarget;
}

export interface AuxiliaryAttempt {
  provider: string;
  model: string;
  /** Set when the attempt failed; absent for the successful one. */
  error?: ClassifiedError;
  /** The candidate was skipped: it is cooling down after repeated failures. */
  skipped?: "cooldown";
}

export type AuxiliaryResult =
  | {
      ok: true;
      text: string;
      message: AssistantMessage;
      usage: Usage;
      provider: string;
      model: string;
      attempts: AuxiliaryAttempt[];
    }
  | { ok: false; error: ClassifiedError; attempts: AuxiliaryAttempt[] };

/**
 * Consecutive-failure memory per endpoint + model. After `failuresBeforeCooldown` failures in a
 * row a candidate is skipped for `cooldownMs`, so side calls stop paying a broken provider's
 * timeouts and go to the next candidate (ultimately the main model).
 */
export class AuxiliaryCooldowns {
  private readonly failures = new Map<string, number>();
  private readonly until = new Map<string, number>();

  constructor(
    private readonly cooldownMs = AUXILIARY_COOLDOWN_MS,
    private readonly failuresBeforeCooldown = 2,
    private readonly now: () => number = Date.now,
  ) {}

  static key(target: Pick<ModelTarget, "baseUrl" | "model">): string {
    return `${target.baseUrl}\n${target.model}`;
  }

  isCooling(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (this.now() < until) return true;
    this.until.delete(key);
    this.failures.delete(key);
    return false;
  }

  recordFailure(key: string): void {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    if (n >= this.failuresBeforeCooldown) this.until.set(key, this.now() + this.cooldownMs);
  }

  recordSuccess(key: string): void {
    this.failures.delete(key);
    this.until.delete(key);
  }
}

const processCooldowns = new AuxiliaryCooldowns();

function isKnown(p: string): p is KnownProvider {
  return Object.hasOwn(PROVIDERS, p);
}

function buildTarget(
  provider: string,
  baseUrl: string,
  apiKey: string,
  model: string,
  task: Partial<AuxiliaryTaskSettings>,
  maxTokens: number | undefined,
): ModelTarget {
  const url = baseUrl.replace(/\/+$/, "");
  const target: ModelTarget = {
    provider,
    apiMode: detectApiMode(provider, url, model),
    model,
    baseUrl: url,
    apiKey: apiKey || PLACEHOLDER_API_KEY,
    timeoutMs: task.timeout && task.timeout > 0 ? task.timeout * 1000 : DEFAULT_TIMEOUT_MS,
  };
  const cap = maxTokens ?? (task.max_tokens && task.max_tokens > 0 ? task.max_tokens : undefined);
  if (cap) target.maxTokens = cap;
  const headers = providerHeaders(url);
  if (headers) target.headers = headers;
  return target;
}

/**
 * The ordered candidates for `task` (seed 004 §16.2/§16.3). A configured provider comes first with
 * the main model behind it; `auto` walks main → OpenRouter → Nous → custom endpoint → Anthropic for
 * text, and vision-capable main → OpenRouter → Nous → Anthropic → custom endpoint for vision. Pure
 * apart from reading the model metadata cache.
 */
export function resolveAuxiliaryChain(
  task: AuxiliaryTask,
  ctx: AuxiliaryContext,
  maxTokens?: number,
): AuxiliaryCandidate[] {
  const env = ctx.env ?? process.env;
  const get = (name: string) => env[name]?.trim() || "";
  const s = ctx.settings?.[task] ?? {};
  const provider = (s.provider?.trim() || "auto").toLowerCase();
  const vision = VISION_TASKS.has(task);
  const { main } = ctx;
  const out: AuxiliaryCandidate[] = [];
  const add = (source: string, target: ModelTarget | undefined) => {
    if (!target) return;
    // Vision needs a model that sees; unknown models (local servers) get the benefit of the doubt.
    if (vision && source !== "config" && lookupCatalog(target.model)?.capabilities.vision === false) return;
    if (out.some((c) => c.target.baseUrl === target.baseUrl && c.target.model === target.model)) return;
    out.push({ source, target });
  };
  const mainWith = (model: string): ModelTarget => {
    const t = buildTarget(main.provider, main.baseUrl, main.apiKey, model, s, maxTokens);
    t.apiMode = model === main.model ? main.apiMode : t.apiMode;
    if (main.headers) t.headers = main.headers;
    return t;
  };
  const known = (p: KnownProvider, model?: string): ModelTarget | undefined => {
    const key = (provider === p ? s.api_key : "") || get(PROVIDERS[p].envKey);
    if (!key) return undefined;
    const m = model || (main.provider === p ? main.model : AUXILIARY_DEFAULT_MODELS[p]);
    return buildTarget(p, PROVIDERS[p].baseUrl, key, m, s, maxTokens);
  };
  const custom = (): ModelTarget | undefined => {
    const mainIsCustom = main.provider === "custom";
    // The main model's precedence: OPENAI_BASE_URL in the environment wins over model.base_url.
    const url = get("OPENAI_BASE_URL") || ctx.customBaseUrl?.trim() || (mainIsCustom ? main.baseUrl : "");
    const model = ctx.customModel?.trim() || (mainIsCustom ? main.model : "");
    if (!url || !model) return undefined;
    const key = mainIsCustom && url === main.baseUrl ? main.apiKey : get("OPENAI_API_KEY");
    return buildTarget("custom", url, key, model, s, maxTokens);
  };

  // 1. What config.yaml asks for.
  const model = s.model?.trim() ?? "";
  const baseUrl = s.base_url?.trim() ?? "";
  if (baseUrl) {
    add("config", buildTarget("custom", baseUrl, s.api_key?.trim() ?? "", model || main.model, s, maxTokens));
  } else if (provider === "main" || (provider === "auto" && model)) {
    add("config", mainWith(model || main.model));
  } else if (isKnown(provider)) {
    add("config", known(provider, model));
  } else if (provider === "custom") {
    const t = custom();
    add("config", t && model ? { ...t, model, apiMode: detectApiMode("custom", t.baseUrl, model) } : t);
  }
  if (out.length > 0 || provider !== "auto") {
    // Configured: the main model is the fallback while the configured one cools down.
    add("main", mainWith(main.model));
    return out;
  }

  // 2. The auto chain.
  const mainSees = getModelInfo(main, ctx.home ? { home: ctx.home } : {}).capabilities.vision;
  if (!vision || mainSees) add("main", mainWith(main.model));
  add("openrouter", known("openrouter"));
  add("nous", known("nous"));
  if (vision) {
    add("anthropic", known("anthropic"));
    add("custom", custom());
  } else {
    add("custom", custom());
    add("anthropic", known("anthropic"));
  }
  return out;
}

/** Plays one stream to its end (stream functions never throw; a broken one is caught by the caller). */
async function collect(
  streamFn: StreamFn,
  target: ModelTarget,
  messages: readonly ChatMessage[],
  opts: AuxiliaryCallOptions,
): Promise<{ ok: true; message: AssistantMessage; usage: Usage } | { ok: false; error: ClassifiedError }> {
  const request = {
    target,
    messages,
    tools: opts.tools ?? [],
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
  };
  for await (const event of streamFn(request)) {
    if (event.type === "done") return { ok: true, message: event.message, usage: event.usage };
    if (event.type === "error") return { ok: false, error: event.error };
  }
  return { ok: false, error: classified("unknown", "The model stream ended without a result") };
}

/** Errors that say the provider (not the request) is in trouble: these count toward a cooldown. */
const providerTrouble = (e: ClassifiedError): boolean =>
  e.reason !== "aborted" && (e.retryable || e.shouldFallback || e.shouldRotateCredential);

/**
 * One side call for `task`. Tries the resolved candidates in order, skipping those cooling down,
 * and returns the first answer. Never throws: failures come back as `{ ok: false, error }`.
 */
export async function callAuxiliary(
  task: AuxiliaryTask,
  messages: readonly ChatMessage[],
  opts: AuxiliaryCallOptions,
): Promise<AuxiliaryResult> {
  const attempts: AuxiliaryAttempt[] = [];
  try {
    const cooldowns = opts.cooldowns ?? processCooldowns;
    const chain = resolveAuxiliaryChain(task, opts, opts.maxTokens);
    let lastError: ClassifiedError | undefined;
    for (const { target } of chain) {
      const key = AuxiliaryCooldowns.key(target);
      if (cooldowns.isCooling(key)) {
        attempts.push({ provider: target.provider, model: target.model, skipped: "cooldown" });
        continue;
      }
      const streamFn = opts.streamFor?.(target) ?? getStreamFn(target.apiMode);
      const result = await collect(streamFn, target, messages, opts);
      if (result.ok) {
        cooldowns.recordSuccess(key);
        attempts.push({ provider: target.provider, model: target.model });
        const { message, usage } = result;
        return {
          ok: true,
          text: message.content ?? "",
          message,
          usage,
          provider: target.provider,
          model: target.model,
          attempts,
        };
      }
      attempts.push({ provider: target.provider, model: target.model, error: result.error });
      lastError = result.error;
      if (result.error.reason === "aborted" || opts.signal?.aborted) break;
      if (providerTrouble(result.error)) cooldowns.recordFailure(key);
    }
    const error =
      lastError ??
      (chain.length === 0
        ? classified(
            "auth",
            `No model is available for the ${task} task: set auxiliary.${task}.provider or a provider API key.`,
          )
        : classified(
            "overloaded",
            `Every model for the ${task} task is cooling down after repeated failures.`,
          ));
    return { ok: false, error, attempts };
  } catch (err) {
    return { ok: false, error: classified("unknown", `Auxiliary call failed: ${String(err)}`), attempts };
  }
}
