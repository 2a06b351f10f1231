/**
 * `hermes auth add|list|remove|reset|status`: the pooled API keys in HERMES_HOME/auth.json (seed
 * 004 §5). Keys are never printed: listings show `sk-or-…abcd`. `add` reads the key from stdin
 * (hidden when typed at a terminal) unless `--key` is given.
 */
import { loadConfig } from "../../core/config.js";
import { loadDotEnv } from "../../core/env.js";
import { ensureHermesHome, getHermesHome } from "../../core/home.js";
import {
  type AuthStore,
  authFilePath,
  type PoolEntry,
  readAuthStore,
  updateAuthStore,
} from "../../llm/auth-store.js";
import { maskKey, newPoolEntry } from "../../llm/credential-pool.js";
import { PROVIDERS } from "../../llm/detect.js";
import { parseTimestamp } from "../../llm/reset-time.js";
import { readSecret } from "../secret-input.js";

/** Providers a pool can belong to (the router's provider names). */
const POOL_PROVIDERS = [...Object.keys(PROVIDERS), "custom"];

function fail(message: string): number {
  process.stderr.write(`hermes: ${message}\n`);
  return 1;
}

function checkProvider(provider: string): string | undefined {
  return POOL_PROVIDERS.includes(provider)
    ? undefined
    : `unknown provider '${provider}' (one of ${POOL_PROVIDERS.join(", ")})`;
}

function paths() {
  const p = ensureHermesHome(getHermesHome());
  return { ...p, auth: authFilePath(p.home) };
}

/** Runs `fn`, turning auth.json problems into one line for the user. */
function guarded(fn: () => number): number {
  try {
    return fn();
  } catch (err) {
    return fail((err as Error).message);
  }
}

export async function authAdd(provider: string, opts: { key?: string; label?: string }): Promise<number> {
  const bad = checkProvider(provider);
  if (bad) return fail(bad);
  const key = (opts.key ?? (await readSecret(`API key for ${provider} (input hidden): `))).trim();
  if (!key) return fail("no key given (use --key KEY or pipe it on stdin)");
  if (/\s/.test(key)) return fail("the key contains whitespace; paste only the key");
  const { auth } = paths();
  return guarded(() => {
    const result = updateAuthStore(
      auth,
      (store): { twin: PoolEntry } | { entry: PoolEntry; count: number } => {
        const list = store.credential_pool[provider] ?? [];
        store.credential_pool[provider] = list;
        const twin = list.find((e) => e.api_key === key);
        if (twin) return { twin };
        const entry = newPoolEntry(list, key, opts.label);
        list.push(entry);
        return { entry, count: list.length };
      },
    );
    if ("twin" in result)
      return fail(`that key is already in the ${provider} pool as "${result.twin.label}"`);
    process.stdout.write(
      `Added "${result.entry.label}" (${maskKey(key)}) to the ${provider} pool: ${result.count} key${result.count === 1 ? "" : "s"}.\n`,
    );
    return 0;
  });
}

export async function authList(provider?: string): Promise<number> {
  if (provider) {
    const bad = checkProvider(provider);
    if (bad) return fail(bad);
  }
  const { auth, config } = paths();
  return guarded(() => {
    const pools = readAuthStore(auth).credential_pool;
    const names = provider ? [provider] : Object.keys(pools).filter((p) => (pools[p] ?? []).length > 0);
    if (names.every((p) => (pools[p] ?? []).length === 0)) {
      process.stdout.write(
        `No pooled keys${provider ? ` for ${provider}` : ""} in ${auth}.\nAdd one: hermes auth add ${provider ?? "openrouter"}\n`,
      );
      return 0;
    }
    const strategies = strategiesOf(config);
    const now = Date.now();
    for (const name of names) {
      const list = sorted(pools[name] ?? []);
      process.stdout.write(
        `${name} (${strategies[name] ?? "fill_first"}, ${list.length} key${list.length === 1 ? "" : "s"})\n`,
      );
      list.forEach((e, i) => {
        process.stdout.write(
          `  ${i + 1}. ${e.label}  ${maskKey(e.api_key)}  ${stateOf(e, now)}  ${usageOf(e)}  id ${e.id}\n`,
        );
      });
    }
    return 0;
  });
}

export async function authRemove(provider: string, which: string): Promise<number> {
  const bad = checkProvider(provider);
  if (bad) return fail(bad);
  const { auth } = paths();
  return guarded(() => {
    const removed = updateAuthStore(auth, (store) => {
      const list = sorted(store.credential_pool[provider] ?? []);
      const index = /^\d+$/.test(which) ? Number(which) - 1 : -1;
      const target = list[index] ?? list.find((e) => e.id === which || e.label === which);
      if (!target) return undefined;
      store.credential_pool[provider] = (store.credential_pool[provider] ?? []).filter((e) => e !== target);
      return target;
    });
    if (!removed)
      return fail(`no key '${which}' in the ${provider} pool (see 'hermes auth list ${provider}')`);
    process.stdout.write(
      `Removed "${removed.label}" (${maskKey(removed.api_key)}) from the ${provider} pool.\n`,
    );
    return 0;
  });
}

export async function authReset(provider?: string): Promise<number> {
  if (provider) {
    const bad = checkProvider(provider);
    if (bad) return fail(bad);
  }
  const { auth } = paths();
  return guarded(() => {
    const cleared = updateAuthStore(auth, (store: AuthStore) => {
      let n = 0;
      for (const [name, list] of Object.entries(store.credential_pool)) {
        if (provider && name !== provider) continue;
        for (const e of list) {
          if (e.exhausted_until !== null) n += 1;
          e.exhausted_until = null;
          e.last_status = null;
          e.last_error = null;
        }
      }
      return n;
    });
    process.stdout.write(
      `Cleared the exhaustion of ${cleared} key${cleared === 1 ? "" : "s"}${provider ? ` (${provider})` : ""}.\n`,
    );
    return 0;
  });
}

export async function authStatus(): Promise<number> {
  const { auth, config, env } = paths();
  loadDotEnv(env);
  return guarded(() => {
    const pools = readAuthStore(auth).credential_pool;
    const strategies = strategiesOf(config);
    const now = Date.now();
    const lines: string[] = [];
    for (const name of POOL_PROVIDERS) {
      const list = pools[name] ?? [];
      const envKey = (PROVIDERS as Readonly<Record<string, { envKey: string }>>)[name]?.envKey;
      const fromEnv = envKey && process.env[envKey]?.trim() ? envKey : undefined;
      if (list.length === 0) {
        if (fromEnv)
          lines.push(
            `${name}: ${fromEnv} from the environment (${maskKey(process.env[fromEnv] ?? "")}), no pool`,
          );
        continue;
      }
      const benched = list.filter((e) => (parseTimestamp(e.exhausted_until) ?? 0) > now);
      const soonest = Math.min(...benched.map((e) => parseTimestamp(e.exhausted_until) ?? now));
      lines.push(
        `${name}: ${list.length} key${list.length === 1 ? "" : "s"}, ${list.length - benched.length} available` +
          (benched.length > 0
            ? `, ${benched.length} exhausted (next back in ${timeLeft(soonest - now)})`
            : "") +
          ` · strategy ${strategies[name] ?? "fill_first"}` +
          (fromEnv ? ` · ${fromEnv} is not used while the pool has keys` : ""),
      );
    }
    process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : `No API keys found (pool: ${auth}).\n`);
    return 0;
  });
}

function strategiesOf(configPath: string): Record<string, string> {
  try {
    return loadConfig(configPath).config.credential_pool_strategies;
  } catch {
    return {};
  }
}

const sorted = (list: readonly PoolEntry[]): PoolEntry[] => [...list].sort((a, b) => a.priority - b.priority);

function stateOf(e: PoolEntry, now: number): string {
  const until = parseTimestamp(e.exhausted_until);
  if (until === undefined || until <= now) return "ok";
  const why =
    e.last_status === 401 || e.last_status === 403
      ? "auth failed"
      : e.last_status === 429
        ? "rate-limited"
        : "exhausted";
  const status = e.last_status ? ` ${e.last_status}` : "";
  return `${why}${status}, ${timeLeft(until - now)} left${e.last_error ? ` (${e.last_error.slice(0, 80)})` : ""}`;
}

function usageOf(e: PoolEntry): string {
  const used = `${e.request_count} request${e.request_count === 1 ? "" : "s"}`;
  return e.last_used_at ? `${used}, last ${e.last_used_at.replace("T", " ").replace(/\.\d+Z$/, "Z")}` : used;
}

function timeLeft(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours}h ${minutes % 60}m` : `${Math.floor(hours / 24)}d`;
}
