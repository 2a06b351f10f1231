import { jitteredBackoff, sleep } from "../llm/retry.js";
import type {
  AssistantMessage,
  ClassifiedError,
  FinishReason,
  LlmRequest,
  StreamFn,
  Usage,
} from "../llm/types.js";
import type { AgentEvent } from "./events.js";

export interface ModelCallOptions {
  streamFn: StreamFn;
  request: LlmRequest;
  maxRetries: number;
  emit: (event: AgentEvent) => void;
  /** Base delay for backoff between retries (ms). */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  signal: AbortSignal;
  /** Called on every stream event (activity tracking). */
  onActivity?: () => void;
}

export type ModelCallResult =
  | { ok: true; message: AssistantMessage; usage: Usage; finishReason: FinishReason }
  | { ok: false; error: ClassifiedError; partial?: AssistantMessage; usage?: Usage };

/** Longest we honour a provider's "retry after" before treating it as a normal backoff. */
const MAX_PROVIDER_WAIT_MS = 120_000;

/**
 * One model call with retries. Streams text to the front end as it arrives; retries read only the
 * classified error's flags. Never throws.
 */
export async function callModel(opts: ModelCallOptions): Promise<ModelCallResult> {
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const result = await streamOnce(opts);
    if (result.ok) return result;
    const err = result.error;
    if (err.reason === "aborted" || opts.signal.aborted) return result;
    if (!err.retryable || attempt > opts.maxRetries) return result;
    let delay = jitteredBackoff(attempt, {
      baseDelayMs: opts.retryBaseDelayMs,
      maxDelayMs: opts.retryMaxDelayMs,
    });
    if (err.resetAt !== undefined) {
      const wait = err.resetAt - Date.now();
      if (wait > 0 && wait <= MAX_PROVIDER_WAIT_MS) delay = Math.max(delay, wait);
    }
    opts.emit({
      type: "status",
      kind: "retry",
      message: `${err.reason}: ${err.message} — retrying in ${(delay / 1000).toFixed(1)}s (attempt ${attempt + 1} of ${opts.maxRetries + 1})`,
    });
    const slept = await sleep(delay, opts.signal);
    if (!slept)
      return { ok: false, error: { ...err, reason: "aborted", retryable: false, message: "Interrupted" } };
  }
}

async function streamOnce(opts: ModelCallOptions): Promise<ModelCallResult> {
  for await (const event of opts.streamFn(opts.request)) {
    opts.onActivity?.();
    switch (event.type) {
      case "text_delta":
        opts.emit({ type: "text_delta", text: event.text });
        break;
      case "reasoning_delta":
        opts.emit({ type: "reasoning_delta", text: event.text });
        break;
      case "tool_call_start":
      case "tool_call_delta":
        break;
      case "done":
        return { ok: true, message: event.message, usage: event.usage, finishReason: event.finishReason };
      case "error":
        return { ok: false, error: event.error, partial: event.partial, usage: event.usage };
    }
  }
  return {
    ok: false,
    error: {
      reason: "unknown",
      message: "The model stream ended without a result",
      retryable: true,
      shouldCompress: false,
      shouldRotateCredential: false,
      shouldFallback: false,
    },
  };
}
