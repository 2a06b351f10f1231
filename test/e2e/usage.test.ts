import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { UsageReport } from "../../src/agent/usage.js";
import { cleanEnv, runHermes, sandbox } from "../support/cli.js";
import { useFakeLlm } from "../support/e2e.js";
import type { FakeLlm } from "../support/fake-llm.js";

let fake: FakeLlm;
useFakeLlm((f) => {
  fake = f;
});

/** OpenAI's gpt-5 over the Responses API, at the fake server's URL: priced from the catalog. */
const config = () =>
  [
    "model:",
    "  provider: openai",
    `  base_url: ${fake.openaiBaseUrl}`,
    "  default: gpt-5",
    "  api_mode: codex_responses",
    "agent:",
    "  api_max_retries: 0",
    "",
  ].join("\n");

const env = (home: string) => cleanEnv({ HERMES_HOME: home, OPENAI_API_KEY: "test-key" });

const readReport = (file: string): UsageReport => JSON.parse(readFileSync(file, "utf8")) as UsageReport;

describe("hermes --usage-file", () => {
  it("writes per-model and total tokens, cost, calls and duration for a 3-call run", async () => {
    const box = sandbox(config());
    const file = join(box.work, "usage.json");
    fake.enqueue(
      {
        toolCalls: [{ name: "terminal", arguments: { command: "echo one" } }],
        usage: { input: 1_000, output: 50 },
      },
      {
        toolCalls: [{ name: "terminal", arguments: { command: "echo two" } }],
        usage: { input: 1_200, output: 60, cacheRead: 800 },
      },
      { text: "Both echoed.", usage: { input: 1_500, output: 70, cacheRead: 1_000 } },
    );
    const r = await runHermes(["-z", "echo twice", "--usage-file", file], {
      env: env(box.home),
      cwd: box.work,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Both echoed.\n");
    expect(fake.requests.map((q) => q.protocol)).toEqual(["responses", "responses", "responses"]);

    const report = readReport(file);
    expect(report).toMatchObject({ version: 1, status: "completed", error: null, api_calls: 3 });
    expect(report.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(report.finished_at)).toBeGreaterThanOrEqual(Date.parse(report.started_at));
    const totals = {
      api_calls: 3,
      input_tokens: 3_700,
      output_tokens: 180,
      cache_read_tokens: 1_800,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    };
    expect(report.models).toEqual([
      { model: "gpt-5", provider: "openai", ...totals, estimated_cost_usd: 0.0044 },
    ]);
    // 1,900 fresh × $1.25 + 1,800 cached × $0.125 + 180 out × $10, per million.
    expect(report.totals).toEqual({ ...totals, estimated_cost_usd: 0.0044, cost_complete: true });
  });

  it("is written when the run fails, with the error and the calls made", async () => {
    const box = sandbox(config());
    const file = join(box.work, "usage.json");
    fake.enqueue({ fault: { kind: "http", status: 401 } });
    const r = await runHermes(["-z", "hello", "--usage-file", file], { env: env(box.home), cwd: box.work });
    expect(r.code).toBe(1);
    const report = readReport(file);
    expect(report.status).toBe("failed");
    expect(report.error).toMatch(/Authentication failed/);
    expect(report.api_calls).toBe(1);
    expect(report.models).toEqual([]);
    expect(report.totals).toMatchObject({ input_tokens: 0, estimated_cost_usd: null });
  });

  it("is written when Hermes cannot start, and works with chat -q", async () => {
    const box = sandbox("");
    const file = join(box.work, "no-provider.json");
    const r = await runHermes(["-z", "hello", "--usage-file", file], {
      env: cleanEnv({ HERMES_HOME: box.home }),
      cwd: box.work,
    });
    expect(r.code).toBe(1);
    expect(readReport(file)).toMatchObject({ status: "failed", api_calls: 0, models: [] });

    const ok = sandbox(config());
    const q = join(ok.work, "q.json");
    fake.enqueue({ text: "fine", usage: { input: 10, output: 2 } });
    const chat = await runHermes(["chat", "-q", "hi", "--usage-file", q], {
      env: env(ok.home),
      cwd: ok.work,
    });
    expect(chat.code).toBe(0);
    expect(readReport(q).totals).toMatchObject({ input_tokens: 10, output_tokens: 2, api_calls: 1 });
    expect(existsSync(join(ok.work, "usage.json"))).toBe(false);
  });
});

describe("/usage in the chat", () => {
  it("prints the table for piped input and exits", async () => {
    const box = sandbox(config());
    fake.enqueue({ text: "Hello!", usage: { input: 100, output: 5 } });
    const r = await runHermes([], { env: env(box.home), cwd: box.work, input: "hello\n/usage\n" });
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("Hello!");
    const header = lines.findIndex((l) => l.startsWith("Model"));
    expect(header).toBeGreaterThan(0);
    expect(lines[header]).toMatch(/Calls\s+Input\s+Cache read\s+Cache write\s+Output\s+Reasoning\s+Cost/);
    // 100 × $1.25 + 5 × $10 per million = $0.000175.
    expect(lines[header + 1]).toMatch(/^gpt-5\s+1\s+100\s+0\s+0\s+5\s+0\s+\$0\.0002$/);
  });
});
