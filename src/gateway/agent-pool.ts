import type { Agent } from "../agent/agent.js";

export interface AgentPoolOptions {
  /** Live agents kept (gateway.max_live_agents); the least recently used idle ones close first. */
  maxLive: number;
  /** An agent unused this long closes (gateway.agent_idle_ttl, in ms); 0 = never. */
  idleTtlMs: number;
  now?: () => number;
  /** Told of each agent the pool closed (logging). */
  onEvict?: (key: string, agent: Agent, reason: "lru" | "idle") => void;
}

interface Slot {
  agent: Agent;
  lastUsedAt: number;
  /** Turns (or commands) using the agent now: a busy agent is never evicted. */
  busy: number;
}

/** A turn runs, or a background delegation it started still works: closing would lose that work. */
const active = (slot: Slot): boolean => slot.agent.running || slot.agent.backgroundWork > 0;

/**
 * The live agents of the gateway, one per session key. Bounded two ways: at most `maxLive` (an LRU)
 * and none idle longer than `idleTtlMs`. Evicting closes the agent (its stored session stays; the
 * chat's next message resumes it from state.db), and never happens while a turn of it runs or a
 * background delegation it started still works.
 */
export class AgentPool {
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly slots = new Map<string, Slot>();
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly closing = new Set<Promise<void>>();

  constructor(private readonly options: AgentPoolOptions) {
    this.now = options.now ?? Date.now;
    if (options.idleTtlMs > 0) {
      // Checked a few times per TTL (at most once a minute); unref: an idle gateway sleeps.
      const every = Math.max(1_000, Math.min(60_000, options.idleTtlMs / 4));
      this.sweeper = setInterval(() => this.sweep(), every);
      this.sweeper.unref();
    }
  }

  get size(): number {
    return this.slots.size;
  }

  /** The key's agent, if live; marks it most recently used. */
  get(key: string): Agent | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    this.slots.delete(key);
    slot.lastUsedAt = this.now();
    this.slots.set(key, slot);
    return slot.agent;
  }

  /** The key's agent without touching its recency (status). */
  peek(key: string): Agent | undefined {
    return this.slots.get(key)?.agent;
  }

  /**
   * The key's agent (made by `create` when it is not live), marked in use until `release()`: it is
   * not evicted meanwhile, however many other chats come and go.
   */
  lease(key: string, create: () => Agent): { agent: Agent; release: () => void } {
    let slot = this.slots.get(key);
    if (slot) {
      this.slots.delete(key);
      this.slots.set(key, slot);
    } else {
      slot = { agent: create(), lastUsedAt: this.now(), busy: 0 };
      this.slots.set(key, slot);
    }
    const leased = slot;
    leased.busy += 1;
    leased.lastUsedAt = this.now();
    this.trim();
    let released = false;
    return {
      agent: leased.agent,
      release: () => {
        if (released) return;
        released = true;
        leased.busy -= 1;
        leased.lastUsedAt = this.now();
        this.trim();
      },
    };
  }

  /** Removes the key's agent from the pool without closing it (the caller closes it: /new). */
  take(key: string): Agent | undefined {
    const slot = this.slots.get(key);
    this.slots.delete(key);
    return slot?.agent;
  }

  /** Closes agents idle longer than the TTL (also run on a timer). */
  sweep(): void {
    if (this.options.idleTtlMs <= 0) return;
    const cutoff = this.now() - this.options.idleTtlMs;
    for (const [key, slot] of this.slots) {
      if (slot.busy === 0 && !active(slot) && slot.lastUsedAt <= cutoff) this.evict(key, slot, "idle");
    }
  }

  /** Closes every agent (shutdown); resolves when all have closed, evicted ones included. */
  async closeAll(reason = "gateway_stop"): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const agents = [...this.slots.values()].map((s) => s.agent);
    this.slots.clear();
    await Promise.all([...agents.map((a) => a.close(reason)), ...this.closing]);
  }

  /** Resolves when agents being evicted have finished closing. */
  async settled(): Promise<void> {
    await Promise.all([...this.closing]);
  }

  /** Least recently used idle agents go until the pool is within its limit; busy ones wait. */
  private trim(): void {
    let excess = this.slots.size - Math.max(1, this.options.maxLive);
    if (excess <= 0) return;
    for (const [key, slot] of this.slots) {
      if (excess <= 0) break;
      if (slot.busy > 0 || active(slot)) continue;
      this.evict(key, slot, "lru");
      excess -= 1;
    }
  }

  private evict(key: string, slot: Slot, reason: "lru" | "idle"): void {
    this.slots.delete(key);
    this.options.onEvict?.(key, slot.agent, reason);
    const closed = slot.agent
      .close(reason === "lru" ? "evicted" : "idle")
      .finally(() => this.closing.delete(closed));
    this.closing.add(closed);
  }
}
