/**
 * The default context engine (seed 004 §7): prune → boundaries → summary → assembly → sanitise.
 * Pure with respect to its input: `compress` returns a new message list and never throws; the
 * caller swaps it into the session. Budgets follow the model's context window (§7.9) and a run of
 * ineffective compressions switches automatic compression off until progress is possible (§7.8).
 */
import { DEFAULT_CONFIG, type HermesConfig } from "../../core/config-defaults.js";
import type { ChatMessage } from "../../llm/types.js";
import { assemble } from "./assemble.js";
import { alignBackward, findBoundaries, lastUserIndex, MIN_TAIL_MESSAGES } from "./boundaries.js";
import { estimateMessageTokens, TokenEstimator } from "./estimate.js";
import { type PruneStats, pruneMessages } from "./prune.js";
import { sanitizeToolPairs } from "./sanitize.js";
import {
  ensureActiveTask,
  SUMMARY_END_MARKER,
  SUMMARY_PREFIX,
  serialiseTurns,
  staticFallbackSummary,
  summaryBudget,
  summaryPrompt,
} from "./summary.js";

/** The `compression.*` config keys (documented in docs/configuration.md). */
export type CompressionSettings = HermesConfig["compression"];

export const DEFAULT_COMPRESSION: CompressionSettings = DEFAULT_CONFIG.compression;

/** Used when the model's window is unknown. */
export const FALLBACK_CONTEXT_LENGTH = 128_000;
/** Savings under this share count as an ineffective compression (§7.8). */
export const MIN_EFFECTIVE_SAVINGS = 0.1;
export const MAX_INEFFECTIVE = 2;
/** After pruning alone, a history this far under the threshold needs no summary call. */
const PRUNE_ONLY_RATIO = 0.5;

export type SummariseResult = { ok: true; text: string } | { ok: false; error: string };
/** Sends the summariser prompt (the `compression` auxiliary task). Must not throw. */
export type Summarise = (messages: ChatMessage[], maxTokens: number) => Promise<SummariseResult>;

export interface CompressOptions {
  /** Topic to favour in the summary (`/compress <topic>`). */
  focus?: string;
  /** Text appended to the summary (the preserved task list). */
  extraContext?: string;
  /** Fixed request overhead outside `messages` (tool schemas), in tokens. */
  overheadTokens?: number;
  /** Skip the prune-only shortcut (an explicit /compress always summarises). */
  forceSummary?: boolean;
}

export interface CompressResult {
  messages: ChatMessage[];
  compressed: boolean;
  tokensBefore: number;
  tokensAfter: number;
  /** "pruned": tool output pruning was enough; "summary": LLM summary; "fallback": static placeholder. */
  mode: "none" | "pruned" | "summary" | "fallback";
  /** Messages replaced by the summary. */
  dropped: number;
  prune: PruneStats;
  warning?: string;
}

export interface CompressionStats {
  compressions: number;
  tokensSaved: number;
  fallbacks: number;
  ineffectiveStreak: number;
}

/** What any context engine offers the agent (the compressor is the built-in one). */
export interface ContextEngine {
  readonly name: string;
  readonly estimator: TokenEstimator;
  readonly stats: CompressionStats;
  readonly thresholdTokens: number;
  readonly contextLength: number;
  /** Message count that triggers compression whatever the tokens (0: none). */
  readonly messageLimit: number;
  shouldCompress(promptTokens: number): boolean;
  compress(messages: readonly ChatMessage[], opts?: CompressOptions): Promise<CompressResult>;
  updateModel(contextLength: number | undefined): void;
}

export interface CompressorOptions {
  settings?: Partial<CompressionSettings>;
  contextLength?: number;
  summarise: Summarise;
  /** Removes secrets from text sent to and returned by the summariser. */
  redact?: (text: string) => string;
  estimator?: TokenEstimator;
}

function textOf(m: ChatMessage | undefined): string {
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  if (m.content === null) return "";
  return m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

export function isSummaryMessage(m: ChatMessage): boolean {
  return m.role !== "tool" && textOf(m).startsWith(SUMMARY_PREFIX);
}

/** The notes inside a summary message (prefix and end marker removed). */
function summaryBody(m: ChatMessage): string {
  let t = textOf(m).slice(SUMMARY_PREFIX.length);
  const end = t.indexOf(SUMMARY_END_MARKER);
  if (end >= 0) t = t.slice(0, end);
  return t.trim();
}

export class ContextCompressor implements ContextEngine {
  readonly name = "compressor";
  readonly estimator: TokenEstimator;
  readonly stats: CompressionStats = { compressions: 0, tokensSaved: 0, fallbacks: 0, ineffectiveStreak: 0 };
  private readonly settings: CompressionSettings;
  readonly messageLimit: number;
  private readonly summarise: Summarise;
  private readonly redact: (text: string) => string;
  private window = FALLBACK_CONTEXT_LENGTH;
  private previousSummary: string | undefined;

  constructor(opts: CompressorOptions) {
    this.settings = { ...DEFAULT_COMPRESSION, ...opts.settings };
    this.messageLimit = Math.max(0, Math.floor(this.settings.hygiene_hard_message_limit));
    this.summarise = opts.summarise;
    this.redact = opts.redact ?? ((t) => t);
    this.estimator = opts.estimator ?? new TokenEstimator();
    this.updateModel(opts.contextLength);
  }

  get contextLength(): number {
    return this.window;
  }

  /** Prompt tokens at which compression starts (§7.9): no floor, so small windows still compress. */
  get thresholdTokens(): number {
    return Math.floor(this.window * this.settings.threshold);
  }

  get tailBudget(): number {
    return Math.floor(this.thresholdTokens * this.settings.target_ratio);
  }

  /** Summary cap for this window: 5% of it, at most SUMMARY_MAX_TOKENS. */
  get maxSummaryTokens(): number {
    return Math.min(Math.floor(this.window * 0.05), 12_000);
  }

  updateModel(contextLength: number | undefined): void {
    this.window = contextLength && contextLength > 0 ? contextLength : FALLBACK_CONTEXT_LENGTH;
    // A new window is a new situation: earlier futile attempts say nothing about it.
    this.stats.ineffectiveStreak = 0;
  }

  shouldCompress(promptTokens: number): boolean {
    if (!this.settings.enabled) return false;
    if (promptTokens < this.thresholdTokens) return false;
    return this.stats.ineffectiveStreak < MAX_INEFFECTIVE;
  }

  async compress(input: readonly ChatMessage[], opts: CompressOptions = {}): Promise<CompressResult> {
    const overhead = opts.overheadTokens ?? 0;
    const tokensBefore = this.estimator.messages(input) + overhead;
    const cost = input.map((m) => estimateMessageTokens(m));
    const tailBudget = Math.max(this.tailBudget, 256);
    const bounds = findBoundaries(input, this.settings.protect_first_n, tailBudget, (i) => cost[i]!);
    // The message cap on the tail: at most protect_last_n messages (group alignment may add a few).
    const { start } = bounds;
    let { end } = bounds;
    const capStart = alignBackward(
      input,
      input.length - Math.max(MIN_TAIL_MESSAGES, this.settings.protect_last_n),
    );
    if (end < capStart) end = Math.max(capStart, start);
    const empty = { prunedResults: 0, dedupedResults: 0, shrunkArgs: 0, strippedImages: 0 };
    if (end <= start) {
      return this.finish(input.slice(), tokensBefore, tokensBefore, "none", 0, empty, overhead);
    }
    const pruned = pruneMessages(input, start, end);
    const afterPrune = this.estimator.messages(pruned.messages) + overhead;
    if (
      !opts.forceSummary &&
      afterPrune <= this.thresholdTokens * PRUNE_ONLY_RATIO &&
      afterPrune < tokensBefore
    ) {
      return this.finish(pruned.messages, tokensBefore, afterPrune, "pruned", 0, pruned.stats, overhead);
    }

    const msgs = pruned.messages;
    const lastUser = lastUserIndex(msgs);
    // The latest user request always survives verbatim: when it sits inside the compressed region
    // it is lifted out and placed right after the summary instead of pulling the whole tail back.
    const pinned = lastUser >= start && lastUser < end ? lastUser : -1;
    const region: ChatMessage[] = [];
    let previous = this.previousSummary;
    for (let i = start; i < end; i++) {
      if (i === pinned) continue;
      const m = msgs[i]!;
      if (isSummaryMessage(m)) {
        previous = summaryBody(m);
        continue;
      }
      region.push(m);
    }
    const latestRequest = textOf(msgs[lastUser]);
    const regionTokens = region.reduce((n, m) => n + estimateMessageTokens(m), 0);
    const budget = summaryBudget(regionTokens, this.maxSummaryTokens);
    const prompt = summaryPrompt({
      turns: this.redact(serialiseTurns(region)),
      latestUserRequest: this.redact(latestRequest),
      ...(previous ? { previousSummary: previous } : {}),
      ...(opts.focus ? { focus: opts.focus } : {}),
      budgetTokens: budget,
    });
    const result = await this.summarise(prompt, budget);
    let body: string;
    let mode: CompressResult["mode"];
    let warning: string | undefined;
    if (result.ok && result.text.trim()) {
      body = ensureActiveTask(this.redact(result.text.trim()), latestRequest);
      this.previousSummary = body;
      mode = "summary";
    } else {
      const why = result.ok ? "the summary was empty" : result.error;
      if (this.settings.abort_on_summary_failure) {
        const kept = `Context summary unavailable (${why}): compression skipped, the history is kept as it was (compression.abort_on_summary_failure)`;
        return this.finish([...input], tokensBefore, tokensBefore, "none", 0, pruned.stats, overhead, kept);
      }
      body = staticFallbackSummary(region.length);
      mode = "fallback";
      warning = `Context summary unavailable (${why}): ${region.length} earlier message(s) were dropped without a summary`;
    }
    const notes = [SUMMARY_PREFIX, "", body];
    if (opts.extraContext?.trim()) notes.push("", opts.extraContext.trim());
    const after = [...(pinned >= 0 ? [msgs[pinned]!] : []), ...msgs.slice(end)];
    const assembled = assemble(msgs.slice(0, start), notes.join("\n"), after);
    const clean = sanitizeToolPairs(assembled.messages).messages;
    const tokensAfter = this.estimator.messages(clean) + overhead;
    return this.finish(
      clean,
      tokensBefore,
      tokensAfter,
      mode,
      region.length,
      pruned.stats,
      overhead,
      warning,
    );
  }

  private finish(
    messages: ChatMessage[],
    before: number,
    after: number,
    mode: CompressResult["mode"],
    dropped: number,
    prune: PruneStats,
    _overhead: number,
    warning?: string,
  ): CompressResult {
    const compressed = mode !== "none";
    const saved = Math.max(0, before - after);
    if (compressed) {
      this.stats.compressions += 1;
      this.stats.tokensSaved += saved;
      if (mode === "fallback") this.stats.fallbacks += 1;
    }
    // Anti-thrashing (§7.8): a pass that frees under 10% (or cannot run) counts as ineffective.
    if (!compressed || saved / Math.max(1, before) < MIN_EFFECTIVE_SAVINGS) this.stats.ineffectiveStreak += 1;
    else this.stats.ineffectiveStreak = 0;
    const out: CompressResult = {
      messages,
      compressed,
      tokensBefore: before,
      tokensAfter: after,
      mode,
      dropped,
      prune,
    };
    if (warning) out.warning = warning;
    return out;
  }
}
