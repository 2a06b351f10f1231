import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { callModel, type ModelCallOptions } from "../../src/agent/model-call.js";
import { DEFAULT_CONFIG } from "../../src/core/config.js";
import { authFilePath } from "../../src/llm/auth-store.js";
import { CredentialPool } from "../../src/llm/credential-pool.js";
import { classified } from "../../src/llm/errors.js";
import { ProviderRouter, type Route } from "../../src/llm/provider-router.js";
import type { ClassifiedError, LlmRequest, ModelTarget } from "../../src/llm/types.js";
import type { HermesToolRegistry } from "../../src/tools/context.js";
import { createLocalEnvironmentProvider } from "../../src/tools/environments/local.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type StreamTurn, scriptedStream } from "../support/scripted-stream.js";
import { tempDir } from "../support/temp.js";

const target = (provider: string, model: string, apiKey = `env-${provider}`): ModelTarget => ({
  provider,
  apiMode: "chat_completions",
  model,
  baseUrl: `https://${provider}.example/v1`,
  apiKey,
});

const E = {
  serverError: classified("server_error", "Provider server error (HTTP 500)", { status: 500 }),
  overflow: classified("context_overflow", "Context too long for the model (HTTP 400)", { status: 400 }),
  badKey: classified("auth", "Authentication failed (HTTP 401)", { status: 401 }),
  noModel: classified("model_not_found", "Model not found (HTTP 404)", { status: 404 }),
  badRequest: classified("format_error", "Request rejected (HTTP 400)", { status: 400 }),
  rateLimited: (resetAt?: number) =>
    classified(
      "rate_limit",
      "Rate limited (HTTP 429)",
      resetAt === undefined ? { status: 429 } : { status: 429, resetAt },
    ),
};

/** A router over a temp auth.json: the primary pools `keys` (none = its env key alone). */
function router(keys: string[] = [], fallbacks: ModelTarget[] = []): ProviderRouter {
  const home = tempDir("hermes-call-");
  const file = authFilePath(home);
  if (keys.length > 0) {
    const entries = keys.map((id, i) => ({ id, label: id, api_key: id, priority: i, request_count: 0 }));
    writeFileSync(file, JSON.stringify({ version: 1, credential_pool: { primary: entries } }));
  }
  const route = (t: ModelTarget): Route => ({
    target: t,
    pool: new CredentialPool({ file, provider: t.provider, implicitKey: { apiKey: t.apiKey, label: "env" } }),
  });
  return new ProviderRouter(route(target("primary", "main-model")), fallbacks.map(route));
}

/** Runs callModel over a responder that sees each request (key, model) and answers a turn. */
async function call(
  respond: (req: LlmRequest, n: number) => StreamTurn,
  over: Partial<ModelCallOptions> & { router?: ProviderRouter } = {},
) {
  const events: AgentEvent[] = [];
  const seen: LlmRequest[] = [];
  const stream = scriptedStream([], (req) => respond(req, seen.push(req)));
  const result = await callModel({
    streamFn: stream.streamFn,
    buildRequest: (t) => ({ target: t, messages: [{ role: "user", content: "hi" }], tools: [] }),
    router: over.router ?? router(),
    maxRetries: 3,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    emit: (e) => events.push(e),
    signal: new AbortController().signal,
    ...over,
  });
  const statuses = events.flatMap((e) => (e.type === "status" ? [`${e.kind}: ${e.message}`] : []));
  return { result, seen, statuses };
}

const fail = (error: ClassifiedError): StreamTurn => ({ error });

describe("callModel recovery, flag by flag", () => {
  it("shouldCompress: asks the compressor, then retries the smaller conversation", async () => {
    const asked: string[] = [];
    const compressor = {
      compress: async (why: string) => {
        asked.push(why);
        return true;
      },
    };
    const { result, seen, statuses } = await call(
      (_r, n) => (n === 1 ? fail(E.overflow) : { text: "fits" }),
      {
        compressor,
      },
    );
    expect(result.ok).toBe(true);
    expect(asked).toEqual(["context_overflow"]);
    expect(seen).toHaveLength(2);
    expect(statuses).toEqual(["compress: context_overflow: compressing the conversation"]);
  });

  it("shouldCompress without a compressor (or one that gives up) stops with a clear message", async () => {
    for (const over of [{}, { compressor: { compress: async () => false } }]) {
      const { result, seen } = await call(() => fail(E.overflow), over);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.message).toContain("no longer fits the context window of main-model");
      expect(result.error.message).toContain("/new");
      expect(result.error.retryable).toBe(false);
      expect(seen).toHaveLength(1);
    }
  });

  it("shouldRotateCredential: the next call uses another pooled key", async () => {
    const { result, seen, statuses } = await call(
      (req) => (req.target.apiKey === "k1" ? fail(E.badKey) : { text: "ok" }),
      {
        router: router(["k1", "k2"]),
      },
    );
    expect(result.ok).toBe(true);
    expect(seen.map((r) => r.target.apiKey)).toEqual(["k1", "k2"]);
    expect(statuses).toEqual([
      expect.stringMatching(/^rotate: auth on primary key "k1"; switching to key "k2"/),
    ]);
  });

  it("shouldRotateCredential with nothing to rotate to and shouldFallback: falls back", async () => {
    const switched: ModelTarget[] = [];
    const { result, seen, statuses } = await call(
      (req) => (req.target.provider === "primary" ? fail(E.badKey) : { text: "from fallback" }),
      { router: router([], [target("backup", "backup-model")]), onModelSwitch: (t) => switched.push(t) },
    );
    expect(result.ok).toBe(true);
    expect(seen.map((r) => r.target.model)).toEqual(["main-model", "backup-model"]);
    expect(switched.map((t) => t.model)).toEqual(["backup-model"]);
    expect(statuses).toEqual(["fallback: auth on primary/main-model; falling back to backup/backup-model"]);
  });

  it("shouldFallback: a missing model moves to the next provider at once", async () => {
    const { result, seen } = await call(
      (req) => (req.target.model === "main-model" ? fail(E.noModel) : { text: "ok" }),
      {
        router: router([], [target("backup", "backup-model")]),
      },
    );
    expect(result.ok).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it("retryable: backs off with a status event per wait, within api_max_retries", async () => {
    const { result, seen, statuses } = await call((_r, n) => (n <= 2 ? fail(E.serverError) : { text: "ok" }));
    expect(result.ok).toBe(true);
    expect(seen).toHaveLength(3);
    expect(statuses).toHaveLength(2);
    expect(statuses[0]).toMatch(
      /^retry: server_error: Provider server error \(HTTP 500\) — retrying in [\d.]+s \(retry 1 of 3\)$/,
    );
  });

  it("retryable: waits at least until the provider's reset time", async () => {
    const resetAt = Date.now() + 1500;
    const { statuses } = await call((_r, n) => (n === 1 ? fail(E.rateLimited(resetAt)) : { text: "ok" }), {
      maxProviderWaitMs: 5000,
    });
    const waited = Number(/retrying in ([\d.]+)s/.exec(statuses[0] ?? "")?.[1]);
    expect(waited).toBeGreaterThanOrEqual(1.0);
  });

  it("a reset time beyond the cap falls back at once, or waits the cap per retry and names the reset time", async () => {
    const resetAt = Date.now() + 3_600_000;
    const stopped = await call(() => fail(E.rateLimited(resetAt)));
    expect(stopped.seen).toHaveLength(4);
    expect(!stopped.result.ok && stopped.result.error.message).toContain("limit resets at");
    const moved = await call(
      (req) => (req.target.provider === "primary" ? fail(E.rateLimited(resetAt)) : { text: "ok" }),
      {
        router: router(["k1"], [target("backup", "b")]),
      },
    );
    expect(moved.result.ok).toBe(true);
    expect(moved.seen.map((r) => r.target.provider)).toEqual(["primary", "backup"]);
  });

  it("retries are per provider: exhausting them on the primary moves to the fallback", async () => {
    const { result, seen, statuses } = await call(
      (req) => (req.target.provider === "primary" ? fail(E.serverError) : { text: "ok" }),
      { router: router([], [target("backup", "b")]), maxRetries: 2 },
    );
    expect(result.ok).toBe(true);
    expect(seen.map((r) => r.target.provider)).toEqual(["primary", "primary", "primary", "backup"]);
    expect(statuses.at(-1)).toBe(
      "fallback: server_error after 2 retries on primary/main-model; falling back to backup/b",
    );
  });

  it("not retryable and nothing to route to: stops at once with a hint", async () => {
    const { result, seen } = await call(() => fail(E.badRequest));
    expect(seen).toHaveLength(1);
    expect(!result.ok && result.error.message).toBe("Request rejected (HTTP 400)");
    const auth = await call(() => fail(E.badKey));
    expect(!auth.result.ok && auth.result.error.message).toContain("Check the API key for primary");
  });

  it("is bounded: an endless transient failure ends after api_max_retries + 1 attempts", async () => {
    const { result, seen } = await call(() => fail(E.serverError), { maxRetries: 2 });
    expect(seen).toHaveLength(3);
    expect(!result.ok && result.error.message).toContain("gave up after 2 retries");
  });

  it("an interrupt during a backoff wait ends the call as aborted", async () => {
    const controller = new AbortController();
    const pending = call(() => fail(E.serverError), {
      signal: controller.signal,
      retryBaseDelayMs: 60_000,
      retryMaxDelayMs: 60_000,
      emit: () => controller.abort(),
    });
    const { result } = await pending;
    expect(!result.ok && result.error.reason).toBe("aborted");
  });
});

describe("Agent with a router", () => {
  function agentWith(r: ProviderRouter, respond: (req: LlmRequest, n: number) => StreamTurn) {
    const home = tempDir("hermes-agent-router-");
    const registry: HermesToolRegistry = new ToolRegistry();
    const switched: string[] = [];
    const events: AgentEvent[] = [];
    let n = 0;
    const agent = new Agent({
      target: target("primary", "main-model"),
      router: r,
      registry,
      toolNames: new Set(),
      config: structuredClone(DEFAULT_CONFIG),
      home,
      environments: createLocalEnvironmentProvider({ cwd: home, home }),
      streamFn: scriptedStream([], (req) => respond(req, ++n)).streamFn,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 2,
      onModelSwitch: (t) => switched.push(t.model),
      onEvent: (e) => events.push(e),
    });
    return { agent, switched, events };
  }

  it("keeps one copy of each message across a failed partial attempt and a fallback, then returns to the primary", async () => {
    const r = router([], [target("backup", "backup-model")]);
    const { agent, switched, events } = agentWith(r, (req, n) => {
      if (n === 1)
        return { text: "half an ans", error: { ...E.serverError, retryable: false, shouldFallback: true } };
      return { text: `answer ${n} from ${req.target.model}` };
    });
    const first = await agent.runConversation("question one");
    const deltas = events
      .filter((e) => e.type === "text_delta")
      .map((e) => (e.type === "text_delta" ? e.text : ""));
    expect(deltas.join("")).toBe("half an ansanswer 2 from backup-model");
    expect(first.finalText).toBe("answer 2 from backup-model");
    expect(agent.target.model).toBe("backup-model");
    const second = await agent.runConversation("question two");
    expect(second.finalText).toBe("answer 3 from main-model");
    expect(switched).toEqual(["backup-model", "main-model"]);
    expect(agent.messages.filter((m) => m.role !== "system")).toEqual([
      { role: "user", content: "question one" },
      { role: "assistant", content: "answer 2 from backup-model" },
      { role: "user", content: "question two" },
      { role: "assistant", content: "answer 3 from main-model" },
    ]);
  });
});
