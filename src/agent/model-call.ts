/**
 * One model call with recovery (seed 004 §13.2). A request shape the provider refused (replayed
 * reasoning, images with tool results) is repaired once and sent again at once; otherwise the loop
 * reads only the classified error's flags, in this order: shouldCompress → compress hook;
 * shouldRotateCredential / shouldFallback → the provider router (another key, else the next
 * provider); retryable → jittered backoff honouring the provider's reset time; otherwise stop with
 * a message saying what happened. Every repair, wait, rotation and fallback is reported as a
 * `status` event. Bounded: it never loops forever.
 */
import { getHermesHome, homePaths } from "../core/home.js";
import { apiKeySources } from "../llm/detect.js";
import type { ProviderRouter } from "../llm/provider-router.js";
import { retryBudget, retryDelay, sleep } from "../llm/retry.js";
import type {
  AssistantMessage,
  ClassifiedError,
  FinishReason,
  LlmRequest,
  ModelTarget,
  StreamFn,
  Usage,
} from "../llm/types.js";
import type { ContextCompressorHook, ModelSwitchHook } from "./compressor-hook.js";
import type { AgentEvent } from "./events.js";
import type { HookBus, HookPayload } from "./hooks.js";
import { stripMemoryContext } from "./memory/fence.js";
import { StreamingContextScrubber } from "./memory/scrubber.js";
import {
  applyRepair,
  applyRepairs,
  REQUEST_REPAIRS,
  type RequestRepair,
  repairFor,
  repairMessage,
} from "./request-repair.js";

export interface ModelCallOptions {
  streamFn: StreamFn;
  /** Builds one attempt's request for `target`: called again after compression, rotation or fallback. */
  buildRequest: (target: ModelTarget) => LlmRequest;
  router: ProviderRouter;
  compressor?: ContextCompressorHook;
  /** Called after a fallback, before the next attempt, with the new provider/model. */
  onModelSwitch?: ModelSwitchHook;
  /** Backoff retries allowed per provider (agent.api_max_retries). */
  maxRetries: number;
  emit: (event: AgentEvent) => void;
  /** Base delay for backoff between retries (ms). */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** Longest single wait for a provider's reset time (ms); default retryMaxDelayMs. */
  maxProviderWaitMs?: number;
  signal: AbortSignal;
  /** Called on every stream event (activity tracking). */
  onActivity?: () => void;
  /** Numbers each attempt for the events it streams (unique across a run); default 1, 2, ... per call. */
  nextAttempt?: () => number;
  /** pre_api_request / post_api_request / api_request_error around each HTTP attempt. */
  hooks?: HookBus | undefined;
  /** The session fields those hooks carry. */
  hookFields?: () => HookPayload;
}

export type ModelCallResult =
  | { ok: true; message: AssistantMessage; usage: Usage; finishReason: FinishReason }
  | { ok: false; error: ClassifiedError; partial?: AssistantMessage; usage?: Usage };

type Failure = Extract<ModelCallResult, { ok: false }>;

/** Compressions per call: a compressor that keeps "succeeding" without the request fitting must not loop. */
const MAX_COMPRESSIONS = 3;
/** Key rotations per call, across all routes. */
const MAX_ROTATIONS = 10;
/** Fallback hops per call (the chain is walked once, forward only). */
const MAX_FALLBACKS = 10;

/** One HTTP attempt: its number in the events, and whether it showed the front end anything. */
interface Attempt {
  number: number;
  shown: boolean;
}

/**
 * Streams text to the front end as it arrives and recovers from failures as the flags direct.
 * Never throws. The history is not touched here: a failed attempt's partial text is only returned
 * (for an interrupt), never appended, so a retried answer appears in the transcript once; what it
 * streamed is withdrawn with `attempt_discarded` unless an interrupt keeps it.
 */
export async function callModel(opts: ModelCallOptions): Promise<ModelCallResult> {
  const maxAttempts =
    (opts.maxRetries + 1) * (MAX_FALLBACKS + 1) + MAX_ROTATIONS + MAX_COMPRESSIONS + REQUEST_REPAIRS.length;
  // Repairs stay for the rest of this call: a fallback provider could not verify the replay either.
  const repairs = new Set<RequestRepair>();
  let retries = 0;
  let compressions = 0;
  let rotations = 0;
  let fallbacks = 0;
  let last: Failure | undefined;
  let numbered = 0;
  const nextAttempt = opts.nextAttempt ?? (() => ++numbered);
  for (let n = 1; n <= maxAttempts; n++) {
    const target = opts.router.current();
    const built = opts.buildRequest(target);
    const messages = applyRepairs(built.messages, repairs);
    const request = messages === built.messages ? built : { ...built, messages };
    const attempt: Attempt = { number: nextAttempt(), shown: false };
    const watched =
      opts.hooks && hasApiHooks(opts.hooks) ? apiHookPayload(opts, request, attempt) : undefined;
    if (watched && opts.hooks?.has("pre_api_request")) await opts.hooks.emit("pre_api_request", watched);
    const started = performance.now();
    const result = await streamOnce(opts, request, attempt);
    if (watched) await afterApiRequest(opts.hooks!, watched, result, performance.now() - started);
    if (result.ok) return result;
    last = result;
    const err = result.error;
    if (err.reason === "aborted" || opts.signal.aborted) return interrupted(result);
    // Whatever follows (another attempt or the end of the call), this attempt's text is not the answer.
    if (attempt.shown) opts.emit({ type: "attempt_discarded", attempt: attempt.number, reason: err.reason });

    // 0. A part of the request this provider refuses: repair it once, when that changes anything.
    const repair = repairFor(err.reason);
    if (repair && !repairs.has(repair) && applyRepair(request.messages, repair)) {
      repairs.add(repair);
      opts.emit({ type: "status", kind: "retry", message: `${err.reason}: ${repairMessage(repair)}` });
      continue;
    }

    // 1. The conversation does not fit: only a smaller conversation helps.
    if (err.shouldCompress) {
      if (opts.compressor && compressions < MAX_COMPRESSIONS) {
        opts.emit({
          type: "status",
          kind: "compress",
          message: `${err.reason}: compressing the conversation`,
        });
        if (await opts.compressor.compress(err.reason)) {
          compressions += 1;
          continue;
        }
      }
      return fail(result, contextMessage(err, target));
    }

    // 2–3. Another key of this provider, else the next provider of the chain.
    const canRoute = rotations < MAX_ROTATIONS && fallbacks < MAX_FALLBACKS;
    if ((err.shouldRotateCredential || err.shouldFallback) && canRoute) {
      const decision = opts.router.handleFailure(err);
      if (decision.kind === "rotate") {
        rotations += 1;
        opts.emit({ type: "status", kind: "rotate", message: decision.message });
        continue;
      }
      if (decision.kind === "fallback") {
        fallbacks += 1;
        retries = 0;
        switchTo(opts, decision.target, decision.message);
        continue;
      }
    }

    // 4. Transient: wait and try again, within this provider's retry budget (or the failure's own,
    // when smaller). A reset time beyond the cap is worth a fallback at once; without one, wait the
    // cap (limits often lift early).
    if (!err.retryable) return fail(result, withHint(err, target));
    const budget = retryBudget(err, opts.maxRetries);
    const providerWait = err.resetAt === undefined ? 0 : err.resetAt - Date.now();
    const waitCap = opts.maxProviderWaitMs ?? opts.retryMaxDelayMs;
    const tooLong = providerWait > waitCap;
    if (retries >= budget || tooLong) {
      const why = tooLong
        ? `${err.reason} until ${new Date(err.resetAt ?? 0).toLocaleTimeString()}`
        : `${err.reason} after ${retries} ${retries === 1 ? "retry" : "retries"}`;
      const decision = fallbacks < MAX_FALLBACKS ? opts.router.fallback(why) : ({ kind: "none" } as const);
      if (decision.kind === "fallback") {
        fallbacks += 1;
        retries = 0;
        switchTo(opts, decision.target, decision.message);
        continue;
      }
      if (retries >= budget) return fail(result, giveUpMessage(err, retries, tooLong));
    }
    retries += 1;
    const backoff = retryDelay(err, retries, {
      baseDelayMs: opts.retryBaseDelayMs,
      maxDelayMs: opts.retryMaxDelayMs,
    });
    const delay = Math.max(backoff, Math.min(providerWait, waitCap));
    opts.emit({
      type: "status",
      kind: "retry",
      message: `${err.reason}: ${err.message} — retrying in ${(delay / 1000).toFixed(1)}s (retry ${retries} of ${budget})`,
    });
    if (!(await sleep(delay, opts.signal))) {
      return { ok: false, error: { ...err, reason: "aborted", retryable: false, message: "Interrupted" } };
    }
  }
  // Only reachable if every bound above was hit at once; `last` is the final failure.
  return fail(last ?? noAttempt(), `${last?.error.message ?? "Model call failed"} (too many attempts)`);
}

const hasApiHooks = (hooks: HookBus): boolean =>
  hooks.has("pre_api_request") || hooks.has("post_api_request") || hooks.has("api_request_error");

/** What the API hooks get about one HTTP attempt. */
function apiHookPayload(opts: ModelCallOptions, request: LlmRequest, attempt: Attempt): HookPayload {
  const { target } = request;
  return {
    ...opts.hookFields?.(),
    model: target.model,
    provider: target.provider,
    api_mode: target.apiMode,
    base_url: target.baseUrl,
    attempt: attempt.number,
    message_count: request.messages.length,
    tool_count: request.tools.length,
  };
}

/** post_api_request for an answer, api_request_error for a failure. */
async function afterApiRequest(
  hooks: HookBus,
  payload: HookPayload,
  result: ModelCallResult,
  ms: number,
): Promise<void> {
  const duration_ms = Math.round(ms);
  if (result.ok) {
    if (hooks.has("post_api_request"))
      await hooks.emit("post_api_request", {
        ...payload,
        duration_ms,
        finish_reason: result.finishReason,
        usage: result.usage,
      });
    return;
  }
  if (!hooks.has("api_request_error")) return;
  const { reason, message, status, retryable } = result.error;
  await hooks.emit("api_request_error", {
    ...payload,
    duration_ms,
    error: { reason, message, ...(status !== undefined ? { status } : {}) },
    retryable,
  });
}

function switchTo(opts: ModelCallOptions, target: ModelTarget, message: string): void {
  opts.emit({ type: "status", kind: "fallback", message });
  opts.onModelSwitch?.(target);
}

/** The final failure, with a message for the user; not retryable any more. */
function fail(result: Failure, message: string): Failure {
  return { ...result, error: { ...result.error, message, retryable: false } };
}

function interrupted(result: Failure): Failure {
  return result.error.reason === "aborted"
    ? result
    : { ...result, error: { ...result.error, reason: "aborted" } };
}

function noAttempt(): Failure {
  return {
    ok: false,
    error: {
      reason: "unknown",
      message: "Model call failed",
      retryable: false,
      shouldCompress: false,
      shouldRotateCredential: false,
      shouldFallback: false,
    },
  };
}

function contextMessage(err: ClassifiedError, target: ModelTarget): string {
  return (
    `${err.message}\nThe conversation no longer fits the context window of ${target.model}. ` +
    "Start a new conversation (/new in the chat), or switch to a model with a larger context."
  );
}

function giveUpMessage(err: ClassifiedError, retries: number, tooLong: boolean): string {
  if (tooLong && err.resetAt !== undefined) {
    return `${err.message} (the provider's limit resets at ${new Date(err.resetAt).toLocaleString()}; try again then)`;
  }
  if (retries === 0) return err.message;
  return `${err.message} (gave up after ${retries} ${retries === 1 ? "retry" : "retries"})`;
}

/** What the user can do about a failure nothing automatic could fix. */
function withHint(err: ClassifiedError, target: ModelTarget): string {
  const hints: Partial<Record<ClassifiedError["reason"], string>> = {
    auth: `Check the API key for ${target.provider}: ${apiKeySources(target.provider, homePaths(getHermesHome()).env)} ('hermes auth list' shows pooled keys).`,
    auth_permanent: `The account cannot use ${target.provider}; configure fallback_providers or another provider.`,
    billing: `Add credits, or another key with 'hermes auth add ${target.provider}'.`,
    model_not_found: `Check the model name (-m or model.default), or add a fallback with 'hermes fallback add'.`,
    provider_policy_blocked: "Allow the model's providers in your account's privacy settings.",
    content_policy_blocked: "Rephrase the request, or use another model.",
    multimodal_tool_content_unsupported: "Use a model that reads images in tool results.",
    image_too_large: "Use a smaller image.",
  };
  const hint = hints[err.reason];
  return hint ? `${err.message}\n${hint}` : err.message;
}

async function streamOnce(
  opts: ModelCallOptions,
  request: LlmRequest,
  attempt: Attempt,
): Promise<ModelCallResult> {
  // A model that echoes the recalled <memory-context> block must not show it to the user.
  const scrubber = new StreamingContextScrubber();
  // Shown reasoning is scrubbed too; the stored reasoning is not (signed thinking is replayed as is).
  const reasoningScrubber = new StreamingContextScrubber();
  const emitText = (text: string) => {
    if (!text) return;
    attempt.shown = true;
    opts.emit({ type: "text_delta", text, attempt: attempt.number });
  };
  const emitReasoning = (text: string) => {
    if (!text) return;
    attempt.shown = true;
    opts.emit({ type: "reasoning_delta", text, attempt: attempt.number });
  };
  const flush = () => {
    emitText(scrubber.flush());
    emitReasoning(reasoningScrubber.flush());
  };
  for await (const event of opts.streamFn(request)) {
    opts.onActivity?.();
    switch (event.type) {
      case "text_delta":
        emitText(scrubber.feed(event.text));
        break;
      case "reasoning_delta":
        emitReasoning(reasoningScrubber.feed(event.text));
        break;
      case "tool_call_start":
      case "tool_call_delta":
        break;
      case "done":
        flush();
        return {
          ok: true,
          message: withoutMemoryContext(event.message),
          usage: event.usage,
          finishReason: event.finishReason,
        };
      case "error":
        flush();
        return {
          ok: false,
          error: event.error,
          partial: event.partial && withoutMemoryContext(event.partial),
          usage: event.usage,
        };
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

/** The reply as it is stored and returned: any echoed fence removed (and the blank lines it leaves). */
function withoutMemoryContext(message: AssistantMessage): AssistantMessage {
  const content = message.content;
  if (!content) return message;
  const clean = stripMemoryContext(content);
  return clean === content ? message : { ...message, content: clean.trim() };
}
