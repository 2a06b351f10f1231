import { callAuxiliary } from "../llm/auxiliary.js";
import type { ChatMessage, ModelTarget, ToolDefinition } from "../llm/types.js";
import { redactSecrets } from "../tools/redact.js";
import { ContextCompressor, type ContextEngine, overheadWarning } from "./compression/index.js";
import type { AgentEvent } from "./events.js";
import type { AgentOptions } from "./types.js";

/** What the keeper needs from the agent: its conversation, and a way to continue it compressed. */
export interface ContextHost {
  /** The conversation as sent (system prompt first once built). */
  messages(): readonly ChatMessage[];
  /** Messages after the system prompt. */
  historyLength(): number;
  systemPrompt(): string;
  tools(): readonly ToolDefinition[];
  /** The task list to carry over into the summary ("" for none). */
  preservedContext(): string;
  /** Changes with every write to the history. */
  version(): number;
  /**
   * Replaces the history with `rest` and starts a new session id; returns [parent, new] ids.
   * Returns undefined, changing nothing, when the history is no longer at version `basedOn`.
   */
  continueWith(rest: ChatMessage[], basedOn: number): [string, string] | undefined;
  emit(event: AgentEvent): void;
}

export interface CompressionOutcome {
  ok: boolean;
  message: string;
  tokensBefore: number;
  tokensAfter: number;
}

/** The built-in context engine for an agent, summarising with the auxiliary `compression` model. */
export function createCompressor(
  opts: AgentOptions,
  currentTarget: () => ModelTarget,
  contextLength: number | undefined,
): ContextEngine | undefined {
  const c = opts.config.compression;
  if (!c?.enabled || opts.compressor) return undefined;
  return new ContextCompressor({
    settings: c,
    contextLength,
    redact: (text) => redactSecrets(text, opts.home),
    summarise: async (messages, maxTokens) => {
      const r = await callAuxiliary("compression", messages, {
        main: currentTarget(),
        settings: opts.config.auxiliary,
        customBaseUrl: opts.config.model.base_url,
        customModel: opts.config.model.default,
        home: opts.home,
        maxTokens,
        temperature: 0.2,
      });
      return r.ok ? { ok: true, text: r.text } : { ok: false, error: r.error.message };
    },
  });
}

/**
 * Keeps one agent's conversation inside its model's window: compresses before a call that would
 * cross the threshold or the message-count limit, after a provider's overflow error, and on
 * demand; learns the estimator's correction from the provider's prompt counts.
 */
export class ContextKeeper {
  /** Uncorrected estimate of the last request, compared with the provider's count to calibrate. */
  private lastRawEstimate = 0;
  private overheadWarned = false;

  constructor(
    readonly engine: ContextEngine,
    private readonly host: ContextHost,
  ) {}

  /** Compresses now. On success the conversation continues as a new, linked session. Never throws. */
  async compress(reason: string, focus?: string): Promise<CompressionOutcome> {
    const { engine, host } = this;
    // The summary is built from this snapshot: it may replace only this very history.
    const basedOn = host.version();
    const overhead = engine.estimator.request([], host.tools());
    const todo = host.preservedContext();
    const result = await engine.compress(host.messages(), {
      overheadTokens: overhead,
      ...(focus ? { focus, forceSummary: true } : {}),
      ...(todo ? { extraContext: todo } : {}),
    });
    const { tokensBefore, tokensAfter } = result;
    if (!result.compressed || result.mode === "none") {
      if (result.warning) host.emit({ type: "status", kind: "warning", message: result.warning });
      return { ok: false, message: "Nothing to compress yet", tokensBefore, tokensAfter };
    }
    const rest = result.messages[0]?.role === "system" ? result.messages.slice(1) : result.messages;
    const ids = host.continueWith([...rest], basedOn);
    if (!ids) {
      const message = "The conversation changed while it was being compressed; it was left as it was";
      return { ok: false, message, tokensBefore, tokensAfter: tokensBefore };
    }
    const [parent, sessionId] = ids;
    const message = `${reason}: ~${tokensBefore.toLocaleString("en-US")} → ~${tokensAfter.toLocaleString("en-US")} tokens (${result.mode})`;
    host.emit({ type: "status", kind: "compress", message });
    if (result.warning) host.emit({ type: "status", kind: "warning", message: result.warning });
    host.emit({
      type: "compression",
      parentSessionId: parent,
      sessionId,
      messages: [...host.messages()],
      tokensBefore,
      tokensAfter,
      mode: result.mode,
    });
    return { ok: true, message, tokensBefore, tokensAfter };
  }

  /** The provider refused the request as too long: the real window is smaller than assumed. */
  async afterOverflow(reason: string): Promise<boolean> {
    const rejected = this.engine.estimator.request(this.host.messages(), this.host.tools());
    if (rejected < this.engine.contextLength) this.engine.updateModel(Math.floor(rejected * 0.9));
    return (await this.compress(`Context overflow (${reason})`)).ok;
  }

  /** Before a model call: compress when the request would cross a limit (§7.8 limits repeats). */
  async beforeCall(tools: readonly ToolDefinition[]): Promise<void> {
    const { engine, host } = this;
    if (!this.overheadWarned) {
      this.overheadWarned = true;
      const warning = overheadWarning(
        host.systemPrompt(),
        tools,
        engine.contextLength,
        engine.thresholdTokens,
      );
      if (warning) host.emit({ type: "status", kind: "warning", message: warning });
    }
    const estimate = engine.estimator.request(host.messages(), tools);
    if (engine.messageLimit > 0 && host.historyLength() > engine.messageLimit)
      await this.compress(`More than ${engine.messageLimit} messages`);
    else if (engine.shouldCompress(estimate)) await this.compress("Context near the limit");
    this.lastRawEstimate = engine.estimator.raw(host.messages(), tools);
  }

  /** The provider counted the last request's prompt: the estimator learns from the difference. */
  observePromptTokens(inputTokens: number): void {
    if (inputTokens > 0 && this.lastRawEstimate > 0)
      this.engine.estimator.calibrate(this.lastRawEstimate, inputTokens);
  }
}
