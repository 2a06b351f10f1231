/**
 * Provider failures end to end: the real `hermes` binary against the fake LLM server, through the
 * real SDKs. Each run must either finish its task or stop with a clear message, and the requests
 * must carry the conversation exactly once (nothing duplicated by a retry, nothing lost).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PoolEntry } from "../../src/llm/auth-store.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm, RecordedRequest, ScriptedTurn } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

/** Small timeout for the hang case; tiny backoff so retries do not slow the suite. */
const AGENT = "agent:\n  api_timeout: 2\n  retry_base_delay: 0.05\n";

function customConfig(extra = ""): string {
  return `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: test-model\n${AGENT}${extra}`;
}

const hermes = (home: string, cwd: string, prompt = "do the task", env: Record<string, string> = {}) =>
  runHermes(["-z", prompt], { env: cleanEnv({ HERMES_HOME: home, ...env }), cwd });

const toolCall: ScriptedTurn = { toolCalls: [{ name: "terminal", arguments: { command: "echo step-one" } }] };

/** The chat messages of a request as `role[:detail]` strings: what the model was shown. */
function transcript(req: RecordedRequest): string[] {
  const body = req.body as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }> };
  return body.messages.map((m) => {
    if (m.role === "tool") return `tool:${String(m.content).includes("step-one") ? "step-one" : "?"}`;
    if (m.role === "assistant")
      return m.tool_calls ? `assistant:tool_calls(${m.tool_calls.length})` : "assistant";
    if (m.role === "user") return `user:${typeof m.content === "string" ? m.content : "[parts]"}`;
    return m.role;
  });
}

/** A tool step, then `faults`, then the answer: the last request must hold each message once. */
async function survives(faults: ScriptedTurn[], extraConfig = "") {
  const box = sandbox(customConfig(extraConfig));
  fake.enqueue(toolCall, ...faults, { text: "all done" });
  const r = await hermes(box.home, box.work);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("all done\n");
  expect(fake.requests).toHaveLength(faults.length + 2);
  const expected = ["system", "user:do the task", "assistant:tool_calls(1)", "tool:step-one"];
  // Every retry re-sends the same conversation: no partial answer or duplicate slipped in.
  for (const req of fake.requests.slice(1)) expect(transcript(req)).toEqual(expected);
  return r;
}

describe("hermes recovers from transient provider failures", () => {
  it("429 with Retry-After: waits and retries", async () => {
    const r = await survives([{ fault: { kind: "http", status: 429, headers: { "retry-after": "1" } } }]);
    // The provider asked for a second, far above the 0.05 s backoff: the wait shown follows it.
    expect(r.stderr).toMatch(/\[retry\] rate_limit: .* retrying in (0\.[89]|1\.0)s/);
  });

  it("429 without Retry-After: backs off and retries", async () => {
    await survives([{ fault: { kind: "http", status: 429, headers: {} } }]);
  });

  it.each([500, 503])("%d: retries", async (status) => {
    await survives([{ fault: { kind: "http", status } }, { fault: { kind: "http", status } }]);
  });

  it("529 from Anthropic: retries", async () => {
    const box = sandbox(
      `model:\n  provider: anthropic\n  base_url: ${fake.anthropicBaseUrl}\n  default: claude-test\n${AGENT}`,
    );
    fake.enqueue(toolCall, { fault: { kind: "http", status: 529 } }, { text: "all done" });
    const r = await hermes(box.home, box.work, "do the task", { ANTHROPIC_API_KEY: "test-key" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("all done\n");
    const last = fake.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(last.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toBe(JSON.stringify(last.messages));
  });

  it("a provider that hangs past agent.api_timeout: times out and retries", async () => {
    const r = await survives([{ fault: { kind: "hang" } }]);
    expect(r.stderr).toContain("timeout");
  });

  it("a connection reset mid-stream: the partial answer is dropped and the call retried", async () => {
    const r = await survives([
      { text: "this half answer must not survive", fault: { kind: "reset_mid_stream" } },
    ]);
    expect(r.stdout).not.toContain("half answer");
  });

  it("402 'usage limit, try again in 5 minutes': retried as a rate limit, not a billing stop", async () => {
    const body = {
      error: { message: "Usage limit reached, try again in 5 minutes", type: "usage_limit", code: null },
    };
    const r = await survives([{ fault: { kind: "http", status: 402, body } }]);
    expect(r.stderr).toContain("rate_limit");
  });
});

describe("hermes routes around failures it cannot wait out", () => {
  function poolOf(home: string, keys: string[]): string {
    const entries = keys.map((key, i) => ({
      id: `id-${i + 1}`,
      label: `key ${i + 1}`,
      api_key: key,
      priority: i,
    }));
    const file = join(home, "auth.json");
    writeFileSync(file, JSON.stringify({ version: 1, credential_pool: { openrouter: entries } }), {
      mode: 0o600,
    });
    return file;
  }
  const openrouterConfig = (extra = "") =>
    `model:\n  provider: openrouter\n  base_url: ${fake.openaiBaseUrl}\n  default: test/model\n${AGENT}${extra}`;
  const keyOf = (req: RecordedRequest) => String(req.headers.authorization).replace(/^Bearer /, "");

  it("a 401 on one pooled key: benches it in auth.json and finishes with the next key", async () => {
    const box = sandbox(openrouterConfig());
    const file = poolOf(box.home, ["sk-or-bad-key-0001", "sk-or-good-key-0002"]);
    fake.setResponder((req) =>
      keyOf(req) === "sk-or-bad-key-0001"
        ? { fault: { kind: "http", status: 401 } }
        : { text: "done with key 2" },
    );
    const r = await hermes(box.home, box.work);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("done with key 2\n");
    expect(fake.requests.map(keyOf)).toEqual(["sk-or-bad-key-0001", "sk-or-good-key-0002"]);
    expect(transcript(fake.requests[1]!)).toEqual(["system", "user:do the task"]);
    const pool = JSON.parse(readFileSync(file, "utf8")).credential_pool.openrouter as PoolEntry[];
    expect(pool[0]).toMatchObject({ api_key: "sk-or-bad-key-0001", last_status: 401 });
    expect(Date.parse(pool[0]!.exhausted_until!)).toBeGreaterThan(Date.now());
    expect(pool[1]!.exhausted_until).toBeNull();
  });

  it("a context overflow with no compressor: stops at once with a clear message", async () => {
    const box = sandbox(customConfig());
    const body = {
      error: {
        message:
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    };
    fake.enqueue({ fault: { kind: "http", status: 400, body } });
    const r = await hermes(box.home, box.work);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("maximum context length is 8192 tokens");
    expect(r.stderr).toContain("no longer fits the context window of test-model");
    expect(r.stderr).toContain("/new");
    expect(fake.requests).toHaveLength(1);
  });

  it("a 404 model-not-found: falls back to the configured provider and model", async () => {
    const box = sandbox(
      customConfig(
        `fallback_providers:\n  - {provider: custom, model: fallback-model, base_url: '${fake.openaiBaseUrl}'}\n`,
      ),
    );
    fake.setResponder((req) =>
      req.body.model === "test-model"
        ? { fault: { kind: "http", status: 404 } }
        : { text: "answered by the fallback" },
    );
    const r = await hermes(box.home, box.work);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("answered by the fallback\n");
    expect(fake.requests.map((q) => q.body.model)).toEqual(["test-model", "fallback-model"]);
    expect(transcript(fake.requests[1]!)).toEqual(["system", "user:do the task"]);
  });

  it("two concurrent runs share one pool: the rejected key is used at most once in total", async () => {
    const box = sandbox(openrouterConfig("credential_pool_strategies:\n  openrouter: round_robin\n"));
    poolOf(box.home, ["sk-or-limited-000a", "sk-or-fine-000b", "sk-or-fine-000c"]);
    fake.setResponder((req) =>
      keyOf(req) === "sk-or-limited-000a"
        ? { fault: { kind: "http", status: 429, headers: {} }, delayMs: 100 }
        : { text: "ok", delayMs: 100 },
    );
    const [a, b] = await Promise.all([
      hermes(box.home, box.work, "first"),
      hermes(box.home, box.work, "second"),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect([a.stdout, b.stdout]).toEqual(["ok\n", "ok\n"]);
    const keys = fake.requests.map(keyOf);
    // round_robin hands the first selection (either process's) the limited key, and never again.
    expect(keys.filter((k) => k === "sk-or-limited-000a")).toHaveLength(1);
    // Each prompt reached a working key exactly once.
    const answered = fake.requests.filter((q) => keyOf(q) !== "sk-or-limited-000a");
    expect(answered.map((q) => transcript(q)[1]).sort()).toEqual(["user:first", "user:second"]);
  });
});

describe("hermes auth and hermes fallback", () => {
  const run = (home: string, cwd: string, args: string[], input?: string) =>
    runHermes(args, { env: cleanEnv({ HERMES_HOME: home }), cwd, ...(input === undefined ? {} : { input }) });

  it("manages pooled keys without ever printing one in full", async () => {
    const box = sandbox();
    const secret = "sk-or-v1-0123456789abcdef0123456789abcdef";
    const add = await run(
      box.home,
      box.work,
      ["auth", "add", "openrouter", "--label", "work"],
      `${secret}\n`,
    );
    expect(add.code).toBe(0);
    expect(add.stdout).toContain('Added "work" (sk-or-…cdef) to the openrouter pool: 1 key.');
    await run(box.home, box.work, ["auth", "add", "openrouter", "--key", "sk-or-v1-second-key-9999"]);
    const dup = await run(box.home, box.work, ["auth", "add", "openrouter"], `${secret}\n`);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('already in the openrouter pool as "work"');
    const file = join(box.home, "auth.json");
    const pool = JSON.parse(readFileSync(file, "utf8")).credential_pool.openrouter as PoolEntry[];
    pool[1]!.exhausted_until = new Date(Date.now() + 30 * 60_000).toISOString();
    pool[1]!.last_status = 429;
    writeFileSync(file, JSON.stringify({ version: 1, credential_pool: { openrouter: pool } }));

    const list = await run(box.home, box.work, ["auth", "list"]);
    expect(list.stdout).toMatch(/openrouter \(fill_first, 2 keys\)\n {2}1\. work {2}sk-or-…cdef {2}ok/);
    expect(list.stdout).toMatch(/2\. key 2 {2}sk-or-…9999 {2}rate-limited 429, (29|30)m left/);
    const status = await run(box.home, box.work, ["auth", "status"]);
    expect(status.stdout).toMatch(
      /openrouter: 2 keys, 1 available, 1 exhausted \(next back in (29|30)m\) · strategy fill_first/,
    );
    for (const out of [add.stdout, list.stdout, status.stdout]) expect(out).not.toContain(secret);

    expect((await run(box.home, box.work, ["auth", "reset", "openrouter"])).stdout).toContain(
      "Cleared the exhaustion of 1 key",
    );
    expect((await run(box.home, box.work, ["auth", "remove", "openrouter", "work"])).code).toBe(0);
    const after = await run(box.home, box.work, ["auth", "list", "openrouter"]);
    expect(after.stdout).toMatch(/1 key\)\n {2}1\. key 2 {2}sk-or-…9999 {2}ok/);
    expect((await run(box.home, box.work, ["auth", "remove", "openrouter", "7"])).code).toBe(1);
  });

  it("edits the fallback chain in config.yaml, keeping comments and refusing invalid entries", async () => {
    const box = sandbox("# my settings\nmodel:\n  default: x  # the main model\n");
    const add = await run(box.home, box.work, [
      "fallback",
      "add",
      "openrouter",
      "anthropic/claude-sonnet-4.5",
    ]);
    expect(add.code).toBe(0);
    await run(box.home, box.work, [
      "fallback",
      "add",
      "custom",
      "qwen3:8b",
      "--base-url",
      "http://localhost:11434/v1",
    ]);
    const bad = await run(box.home, box.work, ["fallback", "add", "custom", "nourl"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("a custom provider needs 'base_url'");
    const list = await run(box.home, box.work, ["fallback", "list"]);
    expect(list.stdout).toContain("1. openrouter / anthropic/claude-sonnet-4.5\n");
    expect(list.stdout).toContain("2. custom / qwen3:8b  (base_url http://localhost:11434/v1)\n");
    const yaml = readFileSync(join(box.home, "config.yaml"), "utf8");
    expect(yaml).toContain("# my settings");
    expect(yaml).toContain("# the main model");
    expect((await run(box.home, box.work, ["fallback", "remove", "1"])).stdout).toContain(
      "Removed fallback 1",
    );
    expect((await run(box.home, box.work, ["fallback", "list"])).stdout).toContain("1. custom / qwen3:8b");
    expect((await run(box.home, box.work, ["fallback", "clear"])).stdout).toContain(
      "Removed 1 fallback provider.",
    );
    expect((await run(box.home, box.work, ["fallback", "list"])).stdout).toContain("No fallback providers");
  });
});
