import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { authFilePath, type PoolEntry, readAuthStore } from "../../src/llm/auth-store.js";
import { CredentialPool, poolEntry } from "../../src/llm/credential-pool.js";
import { classified } from "../../src/llm/errors.js";
import { buildProviderRouter, ProviderRouter, type RouterSettings } from "../../src/llm/provider-router.js";
import type { ModelTarget } from "../../src/llm/types.js";
import { tempDir } from "../support/temp.js";

const entry = (id: string, priority: number): PoolEntry =>
  poolEntry({ id, label: id, api_key: `key-${id}`, priority });

const target = (provider: string, model: string): ModelTarget => ({
  provider,
  apiMode: "chat_completions",
  model,
  baseUrl: `https://${provider}.example/v1`,
  apiKey: `env-${provider}`,
});

/** A home whose auth.json pools `pools` (provider → key ids). */
function home(pools: Record<string, string[]>): string {
  const dir = tempDir("hermes-router-");
  const credential_pool = Object.fromEntries(
    Object.entries(pools).map(([p, ids]) => [p, ids.map((id, i) => entry(id, i))]),
  );
  writeFileSync(authFilePath(dir), JSON.stringify({ version: 1, credential_pool }));
  return dir;
}

const routeOf = (dir: string, t: ModelTarget) => ({
  target: t,
  pool: new CredentialPool({
    file: authFilePath(dir),
    provider: t.provider,
    implicitKey: { apiKey: t.apiKey, label: "env" },
  }),
});

const rateLimited = classified("rate_limit", "Rate limited (HTTP 429)", { status: 429 });
const badKey = classified("auth", "Authentication failed (HTTP 401)", { status: 401 });
const noModel = classified("model_not_found", "Model not found (HTTP 404)", { status: 404 });
const overloaded = classified("overloaded", "Provider overloaded (HTTP 529)", { status: 529 });

describe("ProviderRouter decisions", () => {
  it("rotates to another pooled key of the same provider and benches the failed one", () => {
    const dir = home({ openrouter: ["a", "b"] });
    const router = new ProviderRouter(routeOf(dir, target("openrouter", "m")));
    expect(router.current().apiKey).toBe("key-a");
    const d = router.handleFailure(badKey);
    expect(d).toMatchObject({ kind: "rotate", target: { apiKey: "key-b", model: "m" } });
    expect(d.kind === "rotate" && d.message).toContain('key "a"');
    expect(router.current().apiKey).toBe("key-b");
    const stored = readAuthStore(authFilePath(dir)).credential_pool.openrouter!;
    expect(stored[0]).toMatchObject({ id: "a", last_status: 401 });
    expect(stored[0]!.exhausted_until).not.toBeNull();
    expect(stored[1]!.exhausted_until).toBeNull();
  });

  it("benches the key the failed call used, even if another process benched it meanwhile", () => {
    const dir = home({ openrouter: ["a", "b", "c"] });
    const router = new ProviderRouter(routeOf(dir, target("openrouter", "m")));
    expect(router.current().apiKey).toBe("key-a");
    new CredentialPool({ file: authFilePath(dir), provider: "openrouter" }).markExhausted("a", {
      status: 429,
    });
    expect(router.handleFailure(badKey)).toMatchObject({ kind: "rotate", target: { apiKey: "key-b" } });
    const stored = readAuthStore(authFilePath(dir)).credential_pool.openrouter!;
    expect(stored.map((e) => [e.id, e.last_status])).toEqual([
      ["a", 401],
      ["b", null],
      ["c", null],
    ]);
  });

  it("falls back when the only key cannot help, instead of benching it (single-key 429, PR #12554)", () => {
    const dir = home({});
    const router = new ProviderRouter(routeOf(dir, target("openrouter", "m")), [
      routeOf(dir, target("anthropic", "claude")),
    ]);
    const d = router.handleFailure(rateLimited);
    expect(d).toMatchObject({ kind: "fallback", target: { provider: "anthropic", model: "claude" } });
    expect(router.onFallback).toBe(true);
    expect(router.current()).toMatchObject({ provider: "anthropic", apiKey: "env-anthropic" });
  });

  it("never lets a fallback's failure bench the primary's keys (issue #33088)", () => {
    const dir = home({ openrouter: ["p1", "p2"], anthropic: ["f1", "f2"] });
    const router = new ProviderRouter(routeOf(dir, target("openrouter", "m")), [
      routeOf(dir, target("anthropic", "claude")),
    ]);
    router.current();
    expect(router.handleFailure(noModel).kind).toBe("fallback");
    expect(router.handleFailure(rateLimited)).toMatchObject({ kind: "rotate", target: { apiKey: "key-f2" } });
    const pools = readAuthStore(authFilePath(dir)).credential_pool;
    expect(pools.openrouter!.every((e) => e.exhausted_until === null)).toBe(true);
    expect(pools.anthropic!.find((e) => e.id === "f1")!.exhausted_until).not.toBeNull();
  });

  it("keeps the key on an upstream 429 and moves to the fallback", () => {
    const dir = home({ openrouter: ["a", "b"] });
    const router = new ProviderRouter(routeOf(dir, target("openrouter", "m")), [
      routeOf(dir, target("openrouter", "other/model")),
    ]);
    const upstream = classified("rate_limit", "upstream", {
      status: 429,
      flags: { shouldRotateCredential: false },
    });
    expect(router.handleFailure(upstream)).toMatchObject({
      kind: "fallback",
      target: { model: "other/model" },
    });
    expect(readAuthStore(authFilePath(dir)).credential_pool.openrouter![0]!.exhausted_until).toBeNull();
  });

  it("answers none when no flag applies or the chain is used up, and resets to the primary", () => {
    const dir = home({});
    const router = new ProviderRouter(routeOf(dir, target("openai", "gpt")), [
      routeOf(dir, target("nous", "h")),
    ]);
    expect(router.handleFailure(overloaded)).toEqual({ kind: "none" });
    expect(router.handleFailure(noModel).kind).toBe("fallback");
    expect(router.handleFailure(noModel)).toEqual({ kind: "none" });
    router.reset();
    expect(router.onFallback).toBe(false);
    expect(router.current().provider).toBe("openai");
  });

  it("applies /model to the primary route only", () => {
    const dir = home({});
    const router = new ProviderRouter(routeOf(dir, target("openai", "gpt")), [
      routeOf(dir, target("nous", "h")),
    ]);
    router.setPrimaryModel("gpt-big");
    expect(router.current().model).toBe("gpt-big");
    router.fallback("test");
    expect(router.current().model).toBe("h");
  });
});

describe("buildProviderRouter", () => {
  const settings = (dir: string, over: Partial<RouterSettings> = {}): RouterSettings => ({
    model: { provider: "openrouter", default: "anthropic/claude-sonnet-4.5" },
    fallbacks: [],
    strategies: {},
    env: {},
    home: dir,
    ...over,
  });

  it("resolves a provider whose keys live only in auth.json", () => {
    const dir = home({ openrouter: ["a", "b"] });
    const built = buildProviderRouter(settings(dir));
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.router.current()).toMatchObject({ provider: "openrouter", apiKey: "key-a" });
  });

  it("uses the strategy configured for the provider", () => {
    const dir = home({ openrouter: ["a", "b"] });
    const built = buildProviderRouter(settings(dir, { strategies: { openrouter: "round_robin" } }));
    if (!built.ok) throw new Error("unresolved");
    expect(built.router.current().apiKey).toBe("key-a");
    built.router.reset();
    expect(built.router.current().apiKey).toBe("key-b");
  });

  it("pins a key written in config.yaml and ignores the pool", () => {
    const dir = home({ openrouter: ["a"] });
    const built = buildProviderRouter(
      settings(dir, { model: { provider: "openrouter", default: "x", api_key: "sk-pinned" } }),
    );
    if (!built.ok) throw new Error("unresolved");
    expect(built.router.current().apiKey).toBe("sk-pinned");
  });

  it("resolves fallbacks in order and skips, with a warning, one that cannot work", () => {
    const dir = home({});
    const warnings: string[] = [];
    const built = buildProviderRouter(
      settings(dir, {
        env: { OPENROUTER_API_KEY: "sk-or", ANTHROPIC_API_KEY: "sk-ant" },
        fallbacks: [
          { provider: "openai", model: "gpt-5" },
          { provider: "anthropic", model: "claude-x" },
          { provider: "custom", model: "llama", base_url: "http://127.0.0.1:8080/v1" },
        ],
        onWarning: (m) => warnings.push(m),
      }),
    );
    if (!built.ok) throw new Error("unresolved");
    expect(warnings).toEqual([expect.stringContaining("fallback_providers[0] (openai/gpt-5) skipped")]);
    const hop = built.router.fallback("test");
    expect(hop).toMatchObject({ kind: "fallback", target: { provider: "anthropic", apiKey: "sk-ant" } });
    expect(built.router.fallback("test")).toMatchObject({ target: { provider: "custom", model: "llama" } });
  });

  it("reports the provider problem when the primary cannot be resolved", () => {
    const built = buildProviderRouter(settings(home({})));
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.problem.kind).toBe("missing_api_key");
  });
});
