/**
 * Which provider, model and key the next call uses. Holds the primary route and the configured
 * fallback chain (`fallback_providers`), each route with its own credential pool: a fallback's 429
 * benches the fallback's key, never the primary's (issue #33088). The retry loop reports failures
 * and gets back a decision; `reset()` returns to the primary at the start of every user request.
 */
import { authFilePath, readAuthStore } from "./auth-store.js";
import { CredentialPool, isPoolStrategy, type PoolStrategy } from "./credential-pool.js";
import {
  baseUrlOverrideNote,
  PROVIDERS,
  type ProviderProblem,
  type ProviderSettings,
  type ResolveOptions,
  resolveProvider,
} from "./detect.js";
import type { ClassifiedError, ModelTarget } from "./types.js";

/** One `fallback_providers` item of config.yaml. */
export interface FallbackSetting {
  provider: string;
  model: string;
  base_url?: string;
  api_key?: string;
  api_mode?: string;
}

export interface Route {
  target: ModelTarget;
  /** Keys for this route; absent when the target's own key is the only one. */
  pool?: CredentialPool;
}

export type RouterDecision =
  /** Another key of the same provider. */
  | { kind: "rotate"; target: ModelTarget; message: string }
  /** The next provider/model of the chain; callers recalibrate context budgets for `target`. */
  | { kind: "fallback"; target: ModelTarget; message: string }
  | { kind: "none" };

/** Routes of one session. Never throws; pool I/O problems degrade to the key in hand. */
export class ProviderRouter {
  private readonly routes: Route[];
  private active = 0;

  constructor(primary: Route, fallbacks: readonly Route[] = []) {
    this.routes = [{ ...primary }, ...fallbacks.map((r) => ({ ...r }))];
  }

  /** True while a fallback route is in use. */
  get onFallback(): boolean {
    return this.active > 0;
  }

  /** The target of the next call, with the route's selected pooled key applied. */
  current(): ModelTarget {
    const route = this.routes[this.active]!;
    const key = route.pool?.current();
    return key ? { ...route.target, apiKey: key.apiKey } : route.target;
  }

  /**
   * Reads the two routing flags of a classified failure, in the seed's order: rotate the key when
   * `shouldRotateCredential` and another key is available; otherwise, when `shouldFallback`, move
   * to the next route. `none` when neither applies or helps.
   */
  handleFailure(err: ClassifiedError): RouterDecision {
    if (err.shouldRotateCredential) {
      const rotated = this.rotate(err);
      if (rotated.kind !== "none") return rotated;
    }
    if (err.shouldFallback) return this.fallback(err.reason);
    return { kind: "none" };
  }

  /** Benches the key in use on this route and takes another one (§5.4: only if one is available). */
  rotate(err: ClassifiedError): RouterDecision {
    const route = this.routes[this.active]!;
    const pool = route.pool;
    // The key the failed call used, even if another process has benched it since.
    const failed = pool?.inUse() ?? pool?.current();
    if (!pool || !failed || !pool.mayRecover()) return { kind: "none" };
    const failure: { status?: number; resetAt?: number; message?: string } = { message: err.message };
    if (err.status !== undefined) failure.status = err.status;
    if (err.resetAt !== undefined) failure.resetAt = err.resetAt;
    pool.markExhausted(failed.id, failure);
    const next = pool.select();
    if (!next || next.id === failed.id) return { kind: "none" };
    return {
      kind: "rotate",
      target: this.current(),
      message: `${err.reason} on ${route.target.provider} key "${failed.label}"; switching to key "${next.label}"`,
    };
  }

  /** Moves to the next route of the chain, if any. `why` says what failed, for the user. */
  fallback(why: string): RouterDecision {
    if (this.active + 1 >= this.routes.length) return { kind: "none" };
    const from = this.routes[this.active]!.target;
    this.active += 1;
    this.routes[this.active]!.pool?.release();
    const target = this.current();
    return {
      kind: "fallback",
      target,
      message: `${why} on ${from.provider}/${from.model}; falling back to ${target.provider}/${target.model}`,
    };
  }

  /** Back to the primary with a freshly selected key: called at the start of each user request. */
  reset(): void {
    this.active = 0;
    this.routes[0]!.pool?.release();
  }

  /** `/model`: the primary route's model for the following requests. */
  setPrimaryModel(model: string): void {
    const primary = this.routes[0]!;
    primary.target = { ...primary.target, model };
  }
}

export interface RouterSettings {
  /** The `model:` section with command-line overrides applied. */
  model: ProviderSettings;
  fallbacks: readonly FallbackSetting[];
  /** `credential_pool_strategies`: provider → strategy. */
  strategies: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  resolve?: ResolveOptions;
  /** Non-fatal problems (an unusable fallback, an unreadable auth.json). */
  onWarning?: (message: string) => void;
}

export type BuildRouterResult =
  /** `primary` is the primary route's target before any pooled key is applied. */
  { ok: true; router: ProviderRouter; primary: ModelTarget } | { ok: false; problem: ProviderProblem };

/**
 * Resolves the primary provider and every fallback from config + environment + auth.json. Pooled
 * keys count as configured keys, so a provider whose keys live only in auth.json still resolves.
 * A fallback that cannot be resolved is skipped with a warning; only the primary is required.
 */
export function buildProviderRouter(s: RouterSettings): BuildRouterResult {
  const file = authFilePath(s.home);
  const env = withPooledKeys(s.env, file, s.onWarning);
  const primary = resolveProvider(s.model, env, { ...s.resolve, envBaseUrlFirst: true });
  if (!primary.ok) return { ok: false, problem: primary.problem };
  const override = baseUrlOverrideNote(s.model, s.env);
  if (override) s.onWarning?.(override);
  const routeFor = (target: ModelTarget, pinnedKey: boolean): Route => {
    if (pinnedKey) return { target };
    const strategy = s.strategies[target.provider];
    const pool = new CredentialPool({
      file,
      provider: target.provider,
      strategy: isPoolStrategy(strategy) ? (strategy as PoolStrategy) : "fill_first",
      implicitKey: { apiKey: target.apiKey, label: keyLabel(target.provider) },
      ...(s.onWarning ? { onWarning: s.onWarning } : {}),
    });
    return { target, pool };
  };
  const fallbacks: Route[] = [];
  s.fallbacks.forEach((f, i) => {
    const resolved = resolveProvider(
      {
        provider: f.provider,
        default: f.model,
        base_url: f.base_url,
        api_key: f.api_key,
        api_mode: f.api_mode,
      },
      env,
      s.resolve,
    );
    if (resolved.ok) fallbacks.push(routeFor(resolved.target, Boolean(f.api_key?.trim())));
    else
      s.onWarning?.(
        `fallback_providers[${i}] (${f.provider}/${f.model}) skipped: ${resolved.problem.summary}`,
      );
  });
  // A key written into config.yaml pins that key; otherwise auth.json's pool (or the env key) is used.
  const router = new ProviderRouter(routeFor(primary.target, Boolean(s.model.api_key?.trim())), fallbacks);
  return { ok: true, router, primary: primary.target };
}

/** The environment plus, for providers whose variable is unset, the first key pooled in auth.json. */
function withPooledKeys(
  env: Readonly<Record<string, string | undefined>>,
  file: string,
  onWarning: ((message: string) => void) | undefined,
): Readonly<Record<string, string | undefined>> {
  let pool: ReturnType<typeof readAuthStore>["credential_pool"];
  try {
    pool = readAuthStore(file).credential_pool;
  } catch (err) {
    onWarning?.((err as Error).message);
    return env;
  }
  const out: Record<string, string | undefined> = { ...env };
  for (const [provider, info] of Object.entries(PROVIDERS)) {
    const first = pool[provider]?.find((e) => e.api_key);
    if (first && !env[info.envKey]?.trim()) out[info.envKey] = first.api_key;
  }
  return out;
}

function keyLabel(provider: string): string {
  const info = (PROVIDERS as Readonly<Record<string, { envKey: string }>>)[provider];
  return info ? info.envKey : `${provider} key`;
}
