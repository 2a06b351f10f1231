/**
 * Which endpoint and wire protocol to use (seed 004 §3.1, §3.3): turns `model:` settings plus API
 * key variables into a ModelTarget, or into data describing what the user can set.
 */
import type { ApiMode, ModelTarget, ProviderName, ReasoningEffort } from "./types.js";

const API_MODES: readonly ApiMode[] = [
  "chat_completions",
  "anthropic_messages",
  "codex_responses",
  "bedrock_converse",
];

export function isApiMode(value: string): value is ApiMode {
  return (API_MODES as readonly string[]).includes(value);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** True when `url`'s host is `domain` or a subdomain of it. */
export function baseUrlHostMatches(url: string, domain: string): boolean {
  const host = hostOf(url);
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * OpenAI models that get the Responses API when called on api.openai.com: GPT-5 and later,
 * o-series and Codex models (reasoning carried across turns, the protocol OpenAI builds for them).
 */
export function prefersResponsesApi(model: string): boolean {
  const m = model
    .trim()
    .toLowerCase()
    .replace(/^openai\//, "");
  return /^gpt-([5-9]|\d{2,})/.test(m) || /^o\d/.test(m) || m.includes("codex");
}

/**
 * Wire protocol from provider + base URL (seed 004 §3.1), and the model for the one case that
 * needs it: a GPT-5.x / o-series / Codex model on the direct OpenAI URL upgrades to codex_responses.
 */
export function detectApiMode(provider: string, baseUrl: string, model?: string): ApiMode {
  const p = provider.toLowerCase();
  const url = baseUrl.trim().replace(/\/+$/, "");
  if (
    p === "anthropic" ||
    baseUrlHostMatches(url, "api.anthropic.com") ||
    url.toLowerCase().endsWith("/anthropic")
  ) {
    return "anthropic_messages";
  }
  if (p === "bedrock" || /bedrock-runtime\.[a-z0-9-]+\.amazonaws\.com/i.test(hostOf(url)))
    return "bedrock_converse";
  if (p === "openai-codex" || url.toLowerCase().includes("/backend-api/codex")) return "codex_responses";
  if (
    model &&
    prefersResponsesApi(model) &&
    (baseUrlHostMatches(url, "api.openai.com") || (p === "openai" && !url))
  )
    return "codex_responses";
  return "chat_completions";
}

/** The `model:` section of config.yaml (structurally compatible with core's ModelSettings). */
export interface ProviderSettings {
  default?: string;
  provider?: string;
  base_url?: string;
  api_key?: string;
  api_mode?: string;
  context_length?: number;
  max_tokens?: number;
}

export interface ResolveOptions {
  cacheTtl?: "5m" | "1h";
  timeoutMs?: number;
  reasoningEffort?: ReasoningEffort;
  /**
   * OPENAI_BASE_URL wins over settings.base_url: set for the main model, where a variable set for
   * one run overrides config.yaml. A fallback keeps its own base_url.
   */
  envBaseUrlFirst?: boolean;
}

type KnownProvider = Exclude<ProviderName, "auto" | "custom">;

interface ProviderInfo {
  envKey: string;
  baseUrl: string;
  defaultModel: string;
  label: string;
}

export const PROVIDERS: Readonly<Record<KnownProvider, ProviderInfo>> = {
  openrouter: {
    envKey: "OPENROUTER_API_KEY",
    baseUrl: "https://openrouter.ai/api/v1",
    defaultModel: "anthropic/claude-sonnet-4.5",
    label: "OpenRouter (hundreds of models, one key)",
  },
  anthropic: {
    envKey: "ANTHROPIC_API_KEY",
    baseUrl: "https://api.anthropic.com",
    // Not claude-sonnet-4-5: the SDK console.warns on every call that it is deprecated.
    defaultModel: "claude-sonnet-4-6",
    label: "Anthropic (Claude)",
  },
  openai: {
    envKey: "OPENAI_API_KEY",
    baseUrl: "https://api.openai.com/v1",
    defaultModel: "gpt-5",
    label: "OpenAI",
  },
  nous: {
    envKey: "NOUS_API_KEY",
    baseUrl: "https://inference-api.nousresearch.com/v1",
    defaultModel: "Hermes-4-405B",
    label: "Nous Research inference API",
  },
};

/** Order `auto` tries API keys in, after base URLs. */
const AUTO_ORDER: readonly KnownProvider[] = ["openrouter", "anthropic", "openai", "nous"];

/** Sent when a local server (Ollama, llama.cpp, vLLM) needs no key but the SDK insists on one. */
export const PLACEHOLDER_API_KEY = "not-needed";

export type ProviderProblemKind =
  | "no_provider"
  | "missing_api_key"
  | "missing_base_url"
  | "missing_model"
  | "invalid_setting";

/** Data for a one-screen help message; the CLI formats it. */
export interface ProviderProblem {
  kind: ProviderProblemKind;
  /** One sentence saying what is wrong. */
  summary: string;
  /** Environment variables that would fix it, with what each selects. */
  envVars: { name: string; provider: string; description: string }[];
  /** config.yaml keys that would fix it. */
  configKeys: { key: string; description: string }[];
  /** missing_model: the endpoint that was chosen, so its model list can be asked for. */
  endpoint?: { baseUrl: string; apiKey: string };
}

export type ResolveResult = { ok: true; target: ModelTarget } | { ok: false; problem: ProviderProblem };

const ENV_HELP = [
  ...AUTO_ORDER.map((p) => ({ name: PROVIDERS[p].envKey, provider: p, description: PROVIDERS[p].label })),
  {
    name: "OPENAI_BASE_URL",
    provider: "custom",
    description: "Any OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama",
  },
];
const CONFIG_HELP = [
  { key: "model.provider", description: "auto | openrouter | anthropic | openai | nous | custom" },
  { key: "model.default", description: "Model id, e.g. anthropic/claude-sonnet-4.5" },
  { key: "model.base_url", description: "Endpoint URL (selects a custom provider)" },
  { key: "model.api_key", description: "API key (else read from the provider's variable)" },
];

function problem(
  kind: ProviderProblemKind,
  summary: string,
  endpoint?: ProviderProblem["endpoint"],
): ResolveResult {
  const p: ProviderProblem = { kind, summary, envVars: ENV_HELP, configKeys: CONFIG_HELP };
  if (endpoint) p.endpoint = endpoint;
  return { ok: false, problem: p };
}

const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, "");

/**
 * The warning for a run whose OPENAI_BASE_URL overrides a different model.base_url (the
 * environment wins; see ResolveOptions.envBaseUrlFirst); undefined when they agree.
 */
export function baseUrlOverrideNote(
  settings: ProviderSettings,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const requested = (settings.provider?.trim() || "auto").toLowerCase();
  if (requested !== "auto" && requested !== "custom") return undefined;
  const envUrl = withoutTrailingSlash(env.OPENAI_BASE_URL?.trim() ?? "");
  const configUrl = withoutTrailingSlash(settings.base_url?.trim() ?? "");
  if (!envUrl || !configUrl || envUrl === configUrl) return undefined;
  const key = settings.api_key?.trim() ? " (model.api_key is not sent to it)" : "";
  return `OPENAI_BASE_URL (${envUrl}) overrides model.base_url (${configUrl}) for this run${key}; unset OPENAI_BASE_URL to use model.base_url.`;
}

function isKnown(p: string): p is KnownProvider {
  return Object.hasOwn(PROVIDERS, p);
}

/**
 * Resolves settings + env into a ModelTarget. An explicit provider wins; `auto` picks a base URL
 * (model.base_url, then OPENAI_BASE_URL; the other way round with envBaseUrlFirst) before API keys
 * in the order OpenRouter, Anthropic, OpenAI, Nous. Pure: reads only its arguments.
 */
export function resolveProvider(
  settings: ProviderSettings,
  env: Readonly<Record<string, string | undefined>>,
  options: ResolveOptions = {},
): ResolveResult {
  const get = (name: string) => env[name]?.trim() || "";
  const requested = (settings.provider?.trim() || "auto").toLowerCase();
  const model = settings.default?.trim() ?? "";
  const configKey = settings.api_key?.trim() ?? "";
  const configUrl = settings.base_url?.trim() ?? "";

  let provider: string;
  let baseUrl: string;
  let apiKey: string;
  const envUrl = get("OPENAI_BASE_URL");
  if (requested === "custom" || (requested === "auto" && (configUrl || envUrl))) {
    const urlFromEnv = Boolean(envUrl) && (options.envBaseUrlFirst === true || !configUrl);
    baseUrl = urlFromEnv ? envUrl : configUrl;
    if (!baseUrl)
      return problem("missing_base_url", "model.provider is custom but model.base_url is not set.");
    provider = "custom";
    // OPENAI_BASE_URL conventionally pairs with OPENAI_API_KEY; a model.base_url never gets a
    // vendor key it was not meant for (that would leak it to an arbitrary server), and
    // model.api_key is not sent to another server the environment chose.
    const pairedKey = urlFromEnv ? get("OPENAI_API_KEY") : "";
    const overridden =
      urlFromEnv && configUrl !== "" && withoutTrailingSlash(configUrl) !== withoutTrailingSlash(envUrl);
    apiKey = (overridden ? "" : configKey) || pairedKey || keyForHost(baseUrl, get) || PLACEHOLDER_API_KEY;
  } else if (requested === "auto") {
    const picked =
      AUTO_ORDER.find((p) => get(PROVIDERS[p].envKey)) ?? (configKey ? providerForKey(configKey) : undefined);
    if (!picked) return problem("no_provider", "No model provider is configured.");
    provider = picked;
    baseUrl = PROVIDERS[picked].baseUrl;
    apiKey = configKey || get(PROVIDERS[picked].envKey);
  } else if (isKnown(requested)) {
    provider = requested;
    baseUrl = configUrl || PROVIDERS[requested].baseUrl;
    apiKey = configKey || get(PROVIDERS[requested].envKey);
    if (!apiKey) {
      return problem(
        "missing_api_key",
        `model.provider is ${requested} but ${PROVIDERS[requested].envKey} is not set.`,
      );
    }
  } else {
    return problem("invalid_setting", `Unknown model.provider "${requested}".`);
  }

  const resolvedModel = model || (isKnown(provider) ? PROVIDERS[provider].defaultModel : "");
  if (!resolvedModel) {
    return problem("missing_model", `model.default must be set when using ${baseUrl}.`, {
      baseUrl: withoutTrailingSlash(baseUrl),
      apiKey,
    });
  }

  const modeSetting = settings.api_mode?.trim() ?? "";
  if (modeSetting && !isApiMode(modeSetting)) {
    return problem(
      "invalid_setting",
      `Unknown model.api_mode "${modeSetting}" (expected ${API_MODES.join(", ")}).`,
    );
  }
  const target: ModelTarget = {
    provider,
    apiMode:
      modeSetting && isApiMode(modeSetting) ? modeSetting : detectApiMode(provider, baseUrl, resolvedModel),
    model: resolvedModel,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    apiKey,
  };
  if (settings.max_tokens && settings.max_tokens > 0) target.maxTokens = settings.max_tokens;
  if (settings.context_length && settings.context_length > 0) target.contextLength = settings.context_length;
  const headers = providerHeaders(target.baseUrl);
  if (headers) target.headers = headers;
  if (options.cacheTtl) target.cacheTtl = options.cacheTtl;
  if (options.timeoutMs && options.timeoutMs > 0) target.timeoutMs = options.timeoutMs;
  if (options.reasoningEffort) target.reasoningEffort = options.reasoningEffort;
  return { ok: true, target };
}

/**
 * Where the key for `provider` is read from, for a "check the key" hint: its variable (in the
 * environment or `envFile`) or model.api_key. A custom endpoint's key is model.api_key (or
 * OPENAI_API_KEY when the endpoint came from OPENAI_BASE_URL).
 */
export function apiKeySources(provider: string, envFile: string): string {
  if (isKnown(provider)) {
    return `${PROVIDERS[provider].envKey} in the environment or in ${envFile}, or model.api_key in config.yaml`;
  }
  return `model.api_key in config.yaml, or OPENAI_API_KEY (with OPENAI_BASE_URL) in the environment or in ${envFile}`;
}

/** A custom base URL that is really a known vendor can still use that vendor's key variable. */
function keyForHost(baseUrl: string, get: (name: string) => string): string {
  for (const p of AUTO_ORDER) {
    if (baseUrlHostMatches(baseUrl, hostOf(PROVIDERS[p].baseUrl))) return get(PROVIDERS[p].envKey);
  }
  return "";
}

/** A lone model.api_key under `auto`: vendor key prefixes are distinctive enough to pick by. */
function providerForKey(key: string): KnownProvider {
  if (key.startsWith("sk-or-")) return "openrouter";
  if (key.startsWith("sk-ant-")) return "anthropic";
  return "openai";
}

/** Per-vendor headers, chosen by host so a custom URL pointing at OpenRouter gets them too. */
export function providerHeaders(baseUrl: string): Record<string, string> | undefined {
  if (baseUrlHostMatches(baseUrl, "openrouter.ai")) {
    return { "HTTP-Referer": "https://github.com/NousResearch/hermes-agent", "X-Title": "Hermes Agent" };
  }
  return undefined;
}
