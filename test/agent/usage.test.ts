import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import {
  buildUsageReport,
  estimateCost,
  formatUsageTable,
  UsageTracker,
  writeUsageReport,
} from "../../src/agent/usage.js";
import { pricingLookup } from "../../src/llm/models/index.js";
import type { Usage } from "../../src/llm/types.js";
import { tempDir } from "../support/temp.js";

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning = 0): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: cacheWrite,
  reasoningTokens: reasoning,
});

describe("estimateCost", () => {
  it("charges fresh input, cache reads, cache writes and output at their own prices", () => {
    // claude-sonnet-4-6: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    // 10k input of which 6k read from cache and 2k written: 2k fresh.
    expect(estimateCost(usage(10_000, 1_000, 6_000, 2_000), pricing)).toBeCloseTo(
      (2_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75 + 1_000 * 15) / 1e6,
      6,
    );
  });

  it("charges cached tokens at the input price when the model has no cache price", () => {
    expect(estimateCost(usage(1_000_000, 0, 500_000), { input: 2, output: 8 })).toBe(2);
  });

  it("counts reasoning tokens once (they are part of the output count)", () => {
    expect(estimateCost(usage(0, 1_000_000, 0, 0, 800_000), { input: 1, output: 10 })).toBe(10);
  });

  it("is null, not zero, without a price", () => {
    expect(estimateCost(usage(100, 100), undefined)).toBeNull();
  });
});

describe("UsageTracker", () => {
  const main = {
    provider: "openai",
    apiMode: "codex_responses" as const,
    model: "gpt-5",
    baseUrl: "https://api.openai.com/v1",
  };

  it("sums usage events per model and prices them from the catalog", () => {
    const tracker = new UsageTracker(pricingLookup(main));
    const ev = (model: string, provider: string, u: Usage) =>
      tracker.handle({ type: "usage", call: u, total: u, model, provider });
    ev("gpt-5", "openai", usage(1_000, 100, 800));
    ev("gpt-5", "openai", usage(2_000, 200, 1_500, 0, 50));
    ev("claude-haiku-4-5", "anthropic", usage(4_000, 400, 0, 4_000));
    ev("my-finetune", "openai", usage(10, 10));
    tracker.handle({ type: "turn_start", apiCall: 1 });

    const rows = tracker.byModel();
    expect(rows.map((r) => [r.model, r.apiCalls, r.inputTokens, r.outputTokens, r.cacheReadTokens])).toEqual([
      ["gpt-5", 2, 3_000, 300, 2_300],
      ["claude-haiku-4-5", 1, 4_000, 400, 0],
      ["my-finetune", 1, 10, 10, 0],
    ]);
    // gpt-5: 700 fresh × 1.25 + 2300 cached × 0.125 + 300 out × 10
    expect(rows[0]!.costUsd).toBeCloseTo((700 * 1.25 + 2_300 * 0.125 + 300 * 10) / 1e6, 6);
    // claude-haiku-4-5 on its own provider: 4000 written × 1.25 + 400 × 5
    expect(rows[1]!.costUsd).toBeCloseTo((4_000 * 1.25 + 400 * 5) / 1e6, 6);
    expect(rows[2]!.costUsd).toBeNull();

    const totals = tracker.totals();
    expect(totals).toMatchObject({
      apiCalls: 4,
      inputTokens: 7_010,
      outputTokens: 710,
      cacheReadTokens: 2_300,
      cacheWriteTokens: 4_000,
      reasoningTokens: 50,
      costComplete: false,
    });
    expect(totals.costUsd).toBeCloseTo(rows[0]!.costUsd! + rows[1]!.costUsd!, 6);

    const table = formatUsageTable(tracker);
    expect(table.split("\n")[0]).toMatch(
      /^Model\s+Calls\s+Input\s+Cache read\s+Cache write\s+Output\s+Reasoning\s+Cost$/,
    );
    expect(table).toContain("3,000");
    expect(table).toMatch(/my-finetune .* unknown/);
    expect(table).toMatch(/Total .* \+ unknown/);

    tracker.reset();
    expect(formatUsageTable(tracker)).toBe("No model calls yet in this chat.");
  });

  it("has no price for a model served by a local server", () => {
    const local = new UsageTracker(
      pricingLookup({
        provider: "custom",
        apiMode: "chat_completions",
        model: "llama3.1",
        baseUrl: "http://localhost:11434/v1",
      }),
    );
    local.record("llama3.1", "custom", usage(100, 10));
    expect(local.totals()).toMatchObject({ costUsd: null, costComplete: false });
  });

  it("builds and writes the --usage-file report", async () => {
    const tracker = new UsageTracker(pricingLookup(main));
    tracker.record("gpt-5", "openai", usage(1_000_000, 100_000));
    tracker.handle({
      type: "compression",
      parentSessionId: "a",
      sessionId: "b",
      messages: [],
      tokensBefore: 30_000,
      tokensAfter: 8_000,
      mode: "summary",
    } as AgentEvent);
    const report = buildUsageReport(tracker, {
      status: "completed",
      startedAt: Date.UTC(2026, 0, 1, 0, 0, 0),
      finishedAt: Date.UTC(2026, 0, 1, 0, 0, 2, 500),
      apiCalls: 1,
    });
    expect(report).toEqual({
      version: 1,
      status: "completed",
      error: null,
      started_at: "2026-01-01T00:00:00.000Z",
      finished_at: "2026-01-01T00:00:02.500Z",
      duration_ms: 2_500,
      api_calls: 1,
      models: [
        {
          model: "gpt-5",
          provider: "openai",
          api_calls: 1,
          input_tokens: 1_000_000,
          output_tokens: 100_000,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
          estimated_cost_usd: 2.25,
        },
      ],
      totals: {
        api_calls: 1,
        input_tokens: 1_000_000,
        output_tokens: 100_000,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
        estimated_cost_usd: 2.25,
        cost_complete: true,
      },
      compressions: { count: 1, tokens_saved: 22_000 },
    });
    const file = join(tempDir("hermes-usage-"), "usage.json");
    await writeUsageReport(file, report);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(report);
  });
});
