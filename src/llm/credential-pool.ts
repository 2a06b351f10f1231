/**
 * Several API keys for one provider, shared through auth.json by every Hermes process (seed 004
 * §5). A key that fails with 401/403/402/429 is marked exhausted for a while and the next one is
 * used. Every select and mark re-reads auth.json under its lock, so a key another process just
 * benched is never handed out again. With no pooled keys the provider's usual key (environment or
 * config) is the one implicit entry, so single-key users need no auth.json at all.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import {
  type AuthStore,
  AuthStoreError,
  type PoolEntry,
  readAuthStore,
  updateAuthStore,
} from "./auth-store.js";
import { parseTimestamp } from "./reset-time.js";

export type PoolStrategy = "fill_first" | "round_robin" | "random" | "least_used";
export const POOL_STRATEGIES: readonly PoolStrategy[] = ["fill_first", "round_robin", "random", "least_used"];

export function isPoolStrategy(value: unknown): value is PoolStrategy {
  return (POOL_STRATEGIES as readonly unknown[]).includes(value);
}

/** A bad key may be a transient auth hiccup: short cooldown so it is retried soon. */
export const EXHAUSTED_TTL_AUTH_MS = 5 * 60_000;
export const EXHAUSTED_TTL_RATE_LIMIT_MS = 60 * 60_000;
export const EXHAUSTED_TTL_DEFAULT_MS = 60 * 60_000;

/** How long a key stays benched after failing with `status`, when the provider gave no reset time. */
export function exhaustionTtlMs(status: number | undefined): number {
  if (status === 401 || status === 403) return EXHAUSTED_TTL_AUTH_MS;
  if (status === 429) return EXHAUSTED_TTL_RATE_LIMIT_MS;
  return EXHAUSTED_TTL_DEFAULT_MS;
}

/** What a caller needs to use one key. */
export interface PooledKey {
  id: string;
  label: string;
  apiKey: string;
  /** True for the environment/config key standing in for an empty pool. */
  implicit: boolean;
}

export interface KeyFailure {
  status?: number;
  /** Provider-supplied reset time, epoch ms: wins over the TTL table. */
  resetAt?: number;
  message?: string;
}

export interface CredentialPoolOptions {
  /** Path of auth.json. */
  file: string;
  provider: string;
  strategy?: PoolStrategy;
  /** The provider's usual key: the pool's only entry when auth.json has none for this provider. */
  implicitKey?: { apiKey: string; label: string };
  now?: () => number;
  random?: () => number;
  /** Told once when auth.json cannot be used (the pool then falls back to what it can read). */
  onWarning?: (message: string) => void;
}

const IMPLICIT_ID = "implicit";

/** Keys of one provider. Stateful: remembers which key is in use by this process. */
export class CredentialPool {
  readonly provider: string;
  readonly strategy: PoolStrategy;
  private readonly opts: CredentialPoolOptions;
  private readonly now: () => number;
  private currentKey: PooledKey | undefined;
  /** Exhaustion known to this process, kept even when auth.json cannot be written. */
  private readonly localExhausted = new Map<string, number>();
  private seenSignature = "";
  private warned = false;

  constructor(opts: CredentialPoolOptions) {
    this.opts = opts;
    this.provider = opts.provider;
    this.strategy = opts.strategy ?? "fill_first";
    this.now = opts.now ?? Date.now;
  }

  /** Entries as stored (or the implicit one), freshly read. */
  entries(): PoolEntry[] {
    return this.withEntries(false, (list) => list.map((e) => ({ ...e })));
  }

  /**
   * Picks a key by the strategy, under the lock, and counts its use. When every key is exhausted
   * the one that recovers first is returned anyway: the provider is the judge, and refusing would
   * leave the session with no key at all. Undefined only for an empty pool.
   */
  select(): PooledKey | undefined {
    const picked = this.withEntries(true, (list) => {
      if (list.length === 0) return undefined;
      const now = this.now();
      const available = list.filter((e) => this.availableAt(e) <= now);
      const entry =
        available.length > 0
          ? this.pick(available)
          : [...list].sort((a, b) => this.availableAt(a) - this.availableAt(b))[0]!;
      entry.request_count += 1;
      entry.last_used_at = new Date(now).toISOString();
      if (this.strategy === "round_robin" && available.length > 1) {
        // The used key goes to the back, so the next selection (any process) takes another one.
        entry.priority = Math.max(...list.map((e) => e.priority)) + 1;
      }
      return entry;
    });
    this.currentKey = picked ? toKey(picked) : undefined;
    return this.currentKey;
  }

  /**
   * The key in use; selects on first use. Re-selects when another process has benched it since:
   * auth.json is re-read only when its mtime changed, so the common path costs one stat().
   */
  current(): PooledKey | undefined {
    const key = this.currentKey;
    if (key === undefined) return this.select();
    if (key.implicit || !this.fileChanged()) return key;
    const now = this.now();
    const list = this.withEntries(false, (l) => l);
    const mine = list.find((e) => e.id === key.id);
    const benched = mine !== undefined && this.availableAt(mine) > now;
    if (!mine || (benched && list.some((e) => this.availableAt(e) <= now))) return this.select();
    this.currentKey = toKey(mine);
    return this.currentKey;
  }

  /** The key last handed out, as it was: the one a failure being reported was made with. */
  inUse(): PooledKey | undefined {
    return this.currentKey;
  }

  /** Forgets the key in use: the next current() selects again (a new request, in round_robin terms). */
  release(): void {
    this.currentKey = undefined;
  }

  /**
   * Benches entry `id` until the provider's reset time, or for the TTL of its failure status, and
   * records why. Persisted under the lock; kept in memory too if auth.json cannot be written.
   */
  markExhausted(id: string, failure: KeyFailure): void {
    const now = this.now();
    const until =
      failure.resetAt !== undefined && failure.resetAt > now
        ? failure.resetAt
        : now + exhaustionTtlMs(failure.status);
    this.localExhausted.set(id, until);
    this.withEntries(true, (list) => {
      const entry = list.find((e) => e.id === id);
      if (!entry) return;
      entry.exhausted_until = new Date(until).toISOString();
      entry.last_status = failure.status ?? null;
      entry.last_error = failure.message ? failure.message.slice(0, 300) : null;
    });
  }

  /** §5.4: rotating helps only when a key other than the one in use is available right now. */
  mayRecover(): boolean {
    const now = this.now();
    const inUse = this.currentKey?.id;
    return this.withEntries(false, (list) => list.some((e) => e.id !== inUse && this.availableAt(e) <= now));
  }

  /** Soonest time `e` may be used: the later of auth.json's view and this process's own. */
  private availableAt(e: PoolEntry): number {
    const stored = e.exhausted_until === null ? 0 : (parseTimestamp(e.exhausted_until) ?? 0);
    return Math.max(stored, this.localExhausted.get(e.id) ?? 0);
  }

  private pick(available: PoolEntry[]): PoolEntry {
    const byPriority = [...available].sort((a, b) => a.priority - b.priority);
    switch (this.strategy) {
      case "fill_first":
      case "round_robin":
        return byPriority[0]!;
      case "random":
        return (
          byPriority[Math.floor((this.opts.random ?? Math.random)() * byPriority.length)] ?? byPriority[0]!
        );
      case "least_used":
        return byPriority.reduce((best, e) => (e.request_count < best.request_count ? e : best));
    }
  }

  /**
   * Runs `fn` on this provider's entries: under the lock with write-back when `write`, else on a
   * lock-free read. An empty pool means the implicit entry, which lives only in memory.
   */
  private withEntries<T>(write: boolean, fn: (list: PoolEntry[]) => T): T {
    const implicit = (): T => fn(this.implicitEntries());
    // No auth.json: nothing to lock or read (the common single-key setup).
    if (!existsSync(this.opts.file)) {
      this.seenSignature = "";
      return implicit();
    }
    try {
      if (!write) {
        const list = readAuthStore(this.opts.file).credential_pool[this.provider] ?? [];
        this.noteMtime();
        return list.length > 0 ? fn(list) : implicit();
      }
      const result = updateAuthStore(this.opts.file, (store: AuthStore) => {
        const list = store.credential_pool[this.provider] ?? [];
        return list.length > 0 ? { value: fn(list) } : undefined;
      });
      this.noteMtime();
      return result ? result.value : implicit();
    } catch (err) {
      if (!(err instanceof AuthStoreError)) throw err;
      if (!this.warned) this.opts.onWarning?.(`${err.message}; using the key from the environment`);
      this.warned = true;
      return implicit();
    }
  }

  private implicitEntries(): PoolEntry[] {
    const key = this.opts.implicitKey;
    return key?.apiKey
      ? [poolEntry({ id: IMPLICIT_ID, label: key.label, api_key: key.apiKey, priority: 0 })]
      : [];
  }

  /** Every write renames a new file into place, so the inode changes even within one mtime tick. */
  private fileChanged(): boolean {
    return fileSignature(this.opts.file) !== this.seenSignature;
  }

  private noteMtime(): void {
    this.seenSignature = fileSignature(this.opts.file);
  }
}

function fileSignature(file: string): string {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.mtimeMs}:${st.size}`;
  } catch {
    return "";
  }
}

function toKey(e: PoolEntry): PooledKey {
  return { id: e.id, label: e.label, apiKey: e.api_key, implicit: e.id === IMPLICIT_ID };
}

/** `sk-or-v1-…abcd`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string): string {
  if (key.length <= 12) return `…${key.slice(-2)}`;
  const dash = key.indexOf("-", 3);
  const prefix = dash > 0 && dash <= 8 ? key.slice(0, dash + 1) : key.slice(0, 3);
  return `${prefix}…${key.slice(-4)}`;
}

/** An entry that was never used nor benched. */
export function poolEntry(fields: Pick<PoolEntry, "id" | "label" | "api_key" | "priority">): PoolEntry {
  return {
    ...fields,
    request_count: 0,
    last_used_at: null,
    exhausted_until: null,
    last_status: null,
    last_error: null,
  };
}

/** A fresh entry for `hermes auth add`: after the existing ones in priority order. */
export function newPoolEntry(existing: readonly PoolEntry[], apiKey: string, label?: string): PoolEntry {
  const priority = existing.reduce((max, e) => Math.max(max, e.priority), -1) + 1;
  return poolEntry({
    id: randomBytes(4).toString("hex"),
    label: label?.trim() || `key ${existing.length + 1}`,
    api_key: apiKey,
    priority,
  });
}
