import type { HermesConfig } from "../core/config.js";
import type { Logger } from "../core/log.js";
import type { ProviderProblem } from "../llm/detect.js";
import { buildProviderRouter, ProviderRouter, type RouterSettings } from "../llm/provider-router.js";
import type { ModelTarget, ReasoningEffort } from "../llm/types.js";

/** Raised when no provider can be used; carries what the user can do about it. */
export class NoProviderError extends Error {
  constructor(readonly problem: ProviderProblem) {
    super("No usable model provider");
    this.name = "NoProviderError";
  }
}

export interface ProviderSetupOptions {
  config: HermesConfig;
  home: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Warnings for the user; provider problems that are not fatal are added here. */
  warnings: string[];
  /** --model / --provider of this run. */
  model?: string;
  provider?: string;
}

/** The model routes of one process: the primary target, a router per session and a child's route. */
export interface ProviderSetup {
  target: ModelTarget;
  /** A fresh router: which route and key are in use is per-session state. Throws NoProviderError. */
  newRouter(): ProviderRouter;
  /**
   * A subagent's route: delegation.provider (with delegation.model) resolves a route of its own,
   * falling back to the parent's primary and then its fallback chain; otherwise the child keeps the
   * parent's target, with the key pool and fallbacks when that is the primary. Undefined: the
   * child gets a router of its own target alone.
   */
  childRoute(wanted: ModelTarget): { target: ModelTarget; router: ProviderRouter } | undefined;
}

const isReasoningEffort = (v: string): v is ReasoningEffort => v === "low" || v === "medium" || v === "high";

/** Resolves the primary provider once (throws NoProviderError when none is usable). */
export function setupProviders(opts: ProviderSetupOptions): ProviderSetup {
  const { config, logger, warnings } = opts;
  const settings = { ...config.model };
  if (opts.model) settings.default = opts.model;
  if (opts.provider) settings.provider = opts.provider;
  const routerSettings: RouterSettings = {
    model: settings,
    fallbacks: config.fallback_providers,
    strategies: config.credential_pool_strategies,
    env: opts.env,
    home: opts.home,
    resolve: {
      cacheTtl: config.prompt_caching.cache_ttl === "1h" ? "1h" : "5m",
      timeoutMs: config.agent.api_timeout * 1000,
      ...(isReasoningEffort(config.agent.reasoning_effort)
        ? { reasoningEffort: config.agent.reasoning_effort }
        : {}),
    },
    onWarning: (message) => {
      logger.warn("provider setup", { message });
      if (!warnings.includes(message)) warnings.push(message);
    },
  };
  const resolution = buildProviderRouter(routerSettings);
  if (!resolution.ok) throw new NoProviderError(resolution.problem);
  const target = resolution.primary;
  let spareRouter: ProviderRouter | undefined = resolution.router;
  const newRouter = (): ProviderRouter => {
    const fresh = spareRouter ?? buildProviderRouter(routerSettings);
    spareRouter = undefined;
    if (fresh instanceof ProviderRouter) return fresh;
    if (!fresh.ok) throw new NoProviderError(fresh.problem);
    return fresh.router;
  };
  const childRoute: ProviderSetup["childRoute"] = (wanted) => {
    const d = config.delegation;
    if (d.provider && (d.provider !== wanted.provider || d.base_url)) {
      const built = buildProviderRouter({
        ...routerSettings,
        // The parent's key and endpoint belong to its provider: the child's come from the environment.
        model: { provider: d.provider, default: d.model || settings.default, base_url: d.base_url },
        fallbacks: [
          {
            provider: target.provider,
            model: target.model,
            ...(target.baseUrl ? { base_url: target.baseUrl } : {}),
            ...(settings.api_key ? { api_key: settings.api_key } : {}),
            api_mode: target.apiMode,
          },
          ...config.fallback_providers,
        ],
      });
      if (built.ok) return { target: built.primary, router: built.router };
      logger.warn("delegation.provider unusable; children use the parent's", { provider: d.provider });
      return undefined;
    }
    if (wanted.provider === target.provider && wanted.model === target.model) {
      return { target: wanted, router: newRouter() };
    }
    return undefined;
  };
  return { target, newRouter, childRoute };
}
