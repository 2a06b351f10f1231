/**
 * Token and cost accounting for a session or a run: fed by the agent's `usage` events, kept per
 * model (a fallback or /model switch adds a row), priced from the model metadata. Costs are
 * estimates from list prices; a model without a known price has cost `null` ("unknown"), never 0.
 */
import { writeFile } from "node:fs/promises";
import type { ModelPricing } from "../llm/models/index.js";
import { addUsage, emptyUsage, type Usage } from "../llm/types.js";
import type { AgentEvent, RunStatus } from "./events.js";

/** The price of `model` as served by `provider`; undefined when unknown. */
export type PricingLookup = (model: string, provider: string) => ModelPricing | undefined;

export interface ModelUsage extends Usage {
  model: string;
  provider: string;
  /** Model calls that reported usage. */
  apiCalls: number;
  /** USD; null when the model's price is unknown. */
  costUsd: number | null;
}

export interface UsageTotals extends Usage {
  apiCalls: number;
  /** Sum of the known costs; null when no row has a price. */
  costUsd: number | null;
  /** False when some tokens went to a model without a known price. */
  costComplete: boolean;
}

const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

/**
 * Estimated USD for `usage` at `pricing` (per million tokens). Input tokens include the cached
 * ones, which are charged at the cache prices instead (at the input price when the model has none).
 * Reasoning tokens are part of the output count on every protocol, so they are not added again.
 */
export function estimateCost(usage: Usage, pricing: ModelPricing | undefined): number | null {
  if (!pricing) return null;
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
  const fresh = Math.max(0, usage.inputTokens - cached);
  const micro =
    fresh * pricing.input +
    usage.cacheReadTokens * (pricing.cacheRead ?? pricing.input) +
    usage.cacheWriteTokens * (pricing.cacheWrite ?? pricing.input) +
    usage.outputTokens * pricing.output;
  return round6(micro / 1e6);
}

interface Row {
  model: string;
  provider: string;
  usage: Usage;
  apiCalls: number;
}

/** Accumulates usage per model. `handle` is an AgentEventListener; it ignores other events. */
export class UsageTracker {
  private rows = new Map<string, Row>();
  /** Context compressions in this chat and the prompt tokens they freed (estimated). */
  compressions = 0;
  tokensSaved = 0;

  constructor(private readonly pricing: PricingLookup) {}

  handle = (event: AgentEvent): void => {
    if (event.type === "usage") this.record(event.model, event.provider, event.call);
    else if (event.type === "compression") {
      this.compressions += 1;
      this.tokensSaved += Math.max(0, event.tokensBefore - event.tokensAfter);
    }
  };

  record(model: string, provider: string, usage: Usage): void {
    const key = `${provider}\n${model}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { model, provider, usage: emptyUsage(), apiCalls: 0 };
      this.rows.set(key, row);
    }
    addUsage(row.usage, usage);
    row.apiCalls += 1;
  }

  reset(): void {
    this.rows = new Map();
    this.compressions = 0;
    this.tokensSaved = 0;
  }

  byModel(): ModelUsage[] {
    return [...this.rows.values()].map((r) => ({
      model: r.model,
      provider: r.provider,
      ...r.usage,
      apiCalls: r.apiCalls,
      costUsd: estimateCost(r.usage, this.pricing(r.model, r.provider)),
    }));
  }

  totals(): UsageTotals {
    const usage = emptyUsage();
    let apiCalls = 0;
    let cost = 0;
    let priced = 0;
    const rows = this.byModel();
    for (const r of rows) {
      addUsage(usage, r);
      apiCalls += r.apiCalls;
      if (r.costUsd !== null) {
        cost += r.costUsd;
        priced += 1;
      }
    }
    return {
      ...usage,
      apiCalls,
      costUsd: priced > 0 ? round6(cost) : null,
      costComplete: priced === rows.length,
    };
  }
}

const fmtInt = (n: number): string => n.toLocaleString("en-US");

export function formatCost(cost: number | null): string {
  if (cost === null) return "unknown";
  return cost > 0 && cost < 0.0001 ? "<$0.0001" : `$${cost.toFixed(4)}`;
}

/** A compact table for `/usage`: one row per model plus a total row when there are several. */
export function formatUsageTable(tracker: UsageTracker): string {
  const rows = tracker.byModel();
  if (rows.length === 0) return "No model calls yet in this chat.";
  const header = ["Model", "Calls", "Input", "Cache read", "Cache write", "Output", "Reasoning", "Cost"];
  const line = (name: string, u: Usage & { apiCalls: number }, cost: string): string[] => [
    name,
    fmtInt(u.apiCalls),
    fmtInt(u.inputTokens),
    fmtInt(u.cacheReadTokens),
    fmtInt(u.cacheWriteTokens),
    fmtInt(u.outputTokens),
    fmtInt(u.reasoningTokens),
    cost,
  ];
  const body = rows.map((r) => line(r.model, r, formatCost(r.costUsd)));
  const totals = tracker.totals();
  if (rows.length > 1) {
    const cost =
      formatCost(totals.costUsd) + (totals.costComplete || totals.costUsd === null ? "" : " + unknown");
    body.push(line("Total", totals, cost));
  }
  const table = [header, ...body];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const render = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  const note = "Input includes cached tokens; costs are estimates from list prices.";
  const compression = `Context compressions: ${fmtInt(tracker.compressions)} (~${fmtInt(tracker.tokensSaved)} tokens saved)`;
  return [...table.map(render), note, compression].join("\n");
}

/** The `--usage-file` JSON (documented in docs/cli.md). Field names are snake_case like config keys. */
export interface UsageReport {
  version: 1;
  status: RunStatus;
  error: string | null;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** Model calls the run made, including failed ones (which report no tokens). */
  api_calls: number;
  models: UsageReportRow[];
  totals: Omit<UsageReportRow, "model" | "provider"> & { cost_complete: boolean };
  /** Context compressions during the run and the prompt tokens they freed (estimated). */
  compressions: { count: number; tokens_saved: number };
}

export interface UsageReportRow {
  model: string;
  provider: string;
  api_calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  estimated_cost_usd: number | null;
}

function reportRow(u: Usage & { apiCalls: number; costUsd: number | null }) {
  return {
    api_calls: u.apiCalls,
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_tokens: u.cacheReadTokens,
    cache_write_tokens: u.cacheWriteTokens,
    reasoning_tokens: u.reasoningTokens,
    estimated_cost_usd: u.costUsd,
  };
}

export interface RunOutcome {
  status: RunStatus;
  error?: string;
  startedAt: number;
  finishedAt: number;
  apiCalls: number;
}

export function buildUsageReport(tracker: UsageTracker, run: RunOutcome): UsageReport {
  const totals = tracker.totals();
  return {
    version: 1,
    status: run.status,
    error: run.error ?? null,
    started_at: new Date(run.startedAt).toISOString(),
    finished_at: new Date(run.finishedAt).toISOString(),
    duration_ms: Math.max(0, Math.round(run.finishedAt - run.startedAt)),
    api_calls: run.apiCalls,
    models: tracker.byModel().map((r) => ({ model: r.model, provider: r.provider, ...reportRow(r) })),
    totals: { ...reportRow(totals), cost_complete: totals.costComplete },
    compressions: { count: tracker.compressions, tokens_saved: tracker.tokensSaved },
  };
}

/** Writes the report as pretty JSON. Rejects on I/O errors (the caller reports them). */
export async function writeUsageReport(path: string, report: UsageReport): Promise<void> {
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}
