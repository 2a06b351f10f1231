import { spawn } from "node:child_process";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AuthStore, authFilePath, type PoolEntry, readAuthStore } from "../../src/llm/auth-store.js";
import {
  CredentialPool,
  type CredentialPoolOptions,
  EXHAUSTED_TTL_AUTH_MS,
  EXHAUSTED_TTL_RATE_LIMIT_MS,
  maskKey,
  newPoolEntry,
  poolEntry,
} from "../../src/llm/credential-pool.js";
import { parseTimestamp } from "../../src/llm/reset-time.js";
import { tempDir } from "../support/temp.js";

const T0 = Date.parse("2026-03-01T12:00:00Z");

function entry(id: string, priority: number, extra: Partial<PoolEntry> = {}): PoolEntry {
  return {
    ...poolEntry({ id, label: `label-${id}`, api_key: `sk-or-v1-${id.repeat(8)}`, priority }),
    ...extra,
  };
}

/** A home with auth.json holding `entries` for provider "openrouter", and a settable clock. */
function setup(entries: PoolEntry[], opts: Partial<CredentialPoolOptions> = {}) {
  const home = tempDir("hermes-pool-");
  const file = authFilePath(home);
  if (entries.length > 0) {
    writeFileSync(file, JSON.stringify({ version: 1, credential_pool: { openrouter: entries } }));
  }
  const clock = { now: T0 };
  const make = (more: Partial<CredentialPoolOptions> = {}) =>
    new CredentialPool({ file, provider: "openrouter", now: () => clock.now, ...opts, ...more });
  return {
    home,
    file,
    clock,
    pool: make(),
    make,
    read: () => readAuthStore(file).credential_pool.openrouter ?? [],
  };
}

/** Ids chosen by `n` fresh selections (a new request each). */
function picks(pool: CredentialPool, n: number): string[] {
  return Array.from({ length: n }, () => {
    pool.release();
    return pool.select()!.id;
  });
}

describe("CredentialPool strategies", () => {
  const three = () => [entry("a", 0), entry("b", 1), entry("c", 2)];

  it("fill_first keeps using the highest-priority available key", () => {
    const { pool } = setup(three());
    expect(picks(pool, 4)).toEqual(["a", "a", "a", "a"]);
  });

  it("round_robin moves the used key to the back, persisted for every process", () => {
    const { pool, make } = setup(three(), { strategy: "round_robin" });
    expect(picks(pool, 4)).toEqual(["a", "b", "c", "a"]);
    // A second process continues the rotation instead of starting over.
    expect(picks(make(), 2)).toEqual(["b", "c"]);
  });

  it("random picks by the injected random source", () => {
    const rolls = [0.9, 0.1, 0.5];
    const { pool } = setup(three(), { strategy: "random", random: () => rolls.shift() ?? 0 });
    expect(picks(pool, 3)).toEqual(["c", "a", "b"]);
  });

  it("least_used picks the key with the fewest requests", () => {
    const counts = [
      entry("a", 0, { request_count: 5 }),
      entry("b", 1, { request_count: 2 }),
      entry("c", 2, { request_count: 2 }),
    ];
    const { pool } = setup(counts, { strategy: "least_used" });
    expect(picks(pool, 4)).toEqual(["b", "c", "b", "c"]);
  });

  it("counts every selection and records when the key was last used", () => {
    const { pool, read } = setup(three());
    picks(pool, 3);
    expect(read().map((e) => [e.id, e.request_count])).toEqual([
      ["a", 3],
      ["b", 0],
      ["c", 0],
    ]);
    expect(read()[0]!.last_used_at).toBe(new Date(T0).toISOString());
  });
});

describe("CredentialPool exhaustion", () => {
  it.each([
    [401, EXHAUSTED_TTL_AUTH_MS],
    [403, EXHAUSTED_TTL_AUTH_MS],
    [429, EXHAUSTED_TTL_RATE_LIMIT_MS],
    [402, 60 * 60_000],
    [undefined, 60 * 60_000],
  ])("status %s benches the key for %d ms", (status, ttl) => {
    const { pool, clock, read } = setup([entry("a", 0), entry("b", 1)]);
    pool.select();
    pool.markExhausted("a", status === undefined ? {} : { status, message: "nope" });
    expect(parseTimestamp(read()[0]!.exhausted_until)).toBe(T0 + ttl);
    expect(picks(pool, 1)).toEqual(["b"]);
    clock.now = T0 + ttl - 1;
    expect(picks(pool, 1)).toEqual(["b"]);
    clock.now = T0 + ttl;
    expect(picks(pool, 1)).toEqual(["a"]);
  });

  it("lets a provider-supplied reset time win over the TTL table", () => {
    const { pool, read } = setup([entry("a", 0), entry("b", 1)]);
    pool.markExhausted("a", { status: 429, resetAt: T0 + 90_000, message: "slow down" });
    const stored = read()[0]!;
    expect(parseTimestamp(stored.exhausted_until)).toBe(T0 + 90_000);
    expect(stored).toMatchObject({ last_status: 429, last_error: "slow down" });
    // A reset time already in the past falls back to the table.
    pool.markExhausted("b", { status: 429, resetAt: T0 - 1 });
    expect(parseTimestamp(read()[1]!.exhausted_until)).toBe(T0 + EXHAUSTED_TTL_RATE_LIMIT_MS);
  });

  it("reads exhaustion times written as epoch seconds, epoch ms or ISO-8601", () => {
    const later = T0 + 600_000;
    for (const stamp of [later / 1000, later, new Date(later).toISOString()]) {
      const { pool } = setup([entry("a", 0, { exhausted_until: stamp as unknown as string }), entry("b", 1)]);
      expect(picks(pool, 1)).toEqual(["b"]);
    }
    expect(parseTimestamp("1767225600")).toBe(1_767_225_600_000);
    expect(parseTimestamp(1_767_225_600_000)).toBe(1_767_225_600_000);
    expect(parseTimestamp("2026-01-01T00:00:00Z")).toBe(Date.parse("2026-01-01T00:00:00Z"));
    expect(parseTimestamp("soon")).toBeUndefined();
    expect(parseTimestamp(-5)).toBeUndefined();
  });

  it("mayRecover only when another key is available right now (§5.4)", () => {
    const { pool } = setup([entry("a", 0), entry("b", 1)]);
    pool.select();
    expect(pool.mayRecover()).toBe(true);
    pool.markExhausted("b", { status: 429 });
    expect(pool.mayRecover()).toBe(false);
    expect(setup([entry("solo", 0)]).pool.mayRecover()).toBe(true); // nothing selected yet
    const solo = setup([entry("solo", 0)]).pool;
    solo.select();
    expect(solo.mayRecover()).toBe(false);
  });

  it("hands out the soonest-recovering key when every key is benched", () => {
    const { pool } = setup([entry("a", 0), entry("b", 1)]);
    pool.markExhausted("a", { status: 429 });
    pool.markExhausted("b", { status: 401 });
    expect(picks(pool, 1)).toEqual(["b"]);
  });

  it("re-selects when another process benched the key in use", () => {
    const { pool, make } = setup([entry("a", 0), entry("b", 1)]);
    expect(pool.current()!.id).toBe("a");
    make().markExhausted("a", { status: 429 });
    expect(pool.current()!.id).toBe("b");
  });
});

describe("CredentialPool storage", () => {
  it("uses the environment key as the one implicit entry and never writes it to disk", () => {
    const { pool, file } = setup([], { implicitKey: { apiKey: "sk-env", label: "OPENROUTER_API_KEY" } });
    expect(pool.select()).toEqual({
      id: "implicit",
      label: "OPENROUTER_API_KEY",
      apiKey: "sk-env",
      implicit: true,
    });
    pool.markExhausted("implicit", { status: 429 });
    expect(pool.mayRecover()).toBe(false);
    expect(() => statSync(file)).toThrow();
  });

  it("writes auth.json with mode 0600 and keeps fields it does not know", () => {
    const { pool, file } = setup([entry("a", 0, { oauth_state: "x" } as Partial<PoolEntry>)]);
    const raw = JSON.parse(readFileSync(file, "utf8")) as AuthStore;
    raw.other_section = { keep: true };
    writeFileSync(file, JSON.stringify(raw));
    pool.select();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const after = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(after.other_section).toEqual({ keep: true });
    expect((after.credential_pool as Record<string, PoolEntry[]>).openrouter![0]).toMatchObject({
      oauth_state: "x",
      request_count: 1,
    });
  });

  it("falls back to the implicit key, warning once, when auth.json is corrupt, and leaves it alone", () => {
    const warnings: string[] = [];
    const { file, make } = setup([]);
    writeFileSync(file, "{ not json");
    const pool = make({
      implicitKey: { apiKey: "sk-env", label: "ENV" },
      onWarning: (m) => warnings.push(m),
    });
    expect(pool.select()?.apiKey).toBe("sk-env");
    pool.markExhausted("implicit", { status: 401 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("not valid JSON");
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });

  it("takes over a stale lock left by a dead process", () => {
    const { pool, file } = setup([entry("a", 0)]);
    writeFileSync(`${file}.lock`, "999999999 deadbeef");
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect(pool.select()?.id).toBe("a");
    expect(() => statSync(`${file}.lock`)).toThrow();
  });

  it("masks keys for display and creates entries after the existing ones", () => {
    expect(maskKey("sk-or-v1-0123456789abcdef")).toBe("sk-or-…cdef");
    expect(maskKey("sk-ant-api03-0123456789abcdef")).toBe("sk-ant-…cdef");
    expect(maskKey("0123456789abcdef0123")).toBe("012…0123");
    expect(maskKey("short")).toBe("…rt");
    const e = newPoolEntry([entry("a", 4)], "sk-new", "backup");
    expect(e).toMatchObject({ label: "backup", priority: 5, api_key: "sk-new", exhausted_until: null });
  });
});

interface HammerEvent {
  op: "select" | "mark";
  id: string;
  started: number;
  done: number;
}

function hammer(file: string, strategy: string, iterations: number): Promise<HammerEvent[]> {
  const script = join(import.meta.dirname, "..", "support", "pool-hammer.mjs");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, file, strategy, String(iterations)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(out) as HammerEvent[]);
      else reject(new Error(`hammer exited ${code}: ${err}`));
    });
  });
}

describe("CredentialPool across processes", () => {
  it("two processes hammering one auth.json never reuse a benched key and never corrupt the file", async () => {
    const home = tempDir("hermes-pool-mp-");
    const file = authFilePath(home);
    const keys = Array.from({ length: 80 }, (_, i) => entry(`k${String(i).padStart(2, "0")}`, i));
    writeFileSync(file, JSON.stringify({ version: 1, credential_pool: { test: keys } }));
    // Meanwhile this process keeps reading the file as any reader would: it must always parse.
    let reads = 0;
    let corrupt = "";
    const poll = setInterval(() => {
      try {
        JSON.parse(readFileSync(file, "utf8"));
        reads += 1;
      } catch (e) {
        corrupt ||= String(e);
      }
    }, 1);
    const [a, b] = await Promise.all([hammer(file, "fill_first", 60), hammer(file, "random", 60)]);
    clearInterval(poll);
    expect(corrupt).toBe("");
    expect(reads).toBeGreaterThan(0);
    const events = [...a!, ...b!];
    const marks = events.filter((e) => e.op === "mark");
    const selects = events.filter((e) => e.op === "select");
    expect(marks.length).toBe(60);
    // No selection that began after a key's bench was complete returned that key.
    for (const mark of marks) {
      const late = selects.filter((s) => s.id === mark.id && s.started > mark.done);
      expect(late, `key ${mark.id} selected after it was benched`).toEqual([]);
    }
    // No lost update: the stored counts add up to every selection both processes made.
    const final = readAuthStore(file).credential_pool.test!;
    for (const k of final) {
      expect(k.request_count, k.id).toBe(selects.filter((s) => s.id === k.id).length);
    }
    const benched = new Set(marks.map((m) => m.id));
    expect(
      final
        .filter((k) => k.exhausted_until !== null)
        .map((k) => k.id)
        .sort(),
    ).toEqual([...benched].sort());
  });
});
