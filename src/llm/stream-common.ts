/**
 * Pieces shared by the protocol stream functions: the per-call abort/idle guard, client caching,
 * and turning a failure into the stream's final `error` event.
 */
import { classified, classifyError } from "./errors.js";
import { noteModelRequest } from "./first-request.js";
import {
  type AssistantMessage,
  type ChatMessage,
  emptyUsage,
  type FinishReason,
  type LlmEvent,
  type LlmRequest,
  type ModelTarget,
  type Usage,
} from "./types.js";

/** The SDKs' own default; a stream silent for this long is treated as dead. */
export const DEFAULT_TIMEOUT_MS = 600_000;

export interface CallGuard {
  /** Aborts when the caller aborts, when the stream idles past the timeout, or on dispose. */
  readonly signal: AbortSignal;
  /** Marks activity: restarts the idle timer. Call on every chunk. */
  touch(): void;
  /** Stops the timer and aborts the underlying request (releases the socket). Idempotent. */
  dispose(): void;
  readonly timedOut: boolean;
  readonly callerAborted: boolean;
}

/**
 * Links the caller's signal to an internal controller and adds an inactivity watchdog: the SDKs'
 * `timeout` stops at response headers, so a server that stalls mid-stream would otherwise hang.
 */
export function createCallGuard(callerSignal: AbortSignal | undefined, idleMs: number): CallGuard {
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error("idle timeout"));
    }, idleMs);
  };
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  arm();
  return {
    signal: controller.signal,
    touch: () => {
      if (!controller.signal.aborted) arm();
    },
    dispose: () => {
      if (timer) clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
      if (!controller.signal.aborted) controller.abort(new Error("stream closed"));
    },
    get timedOut() {
      return timedOut;
    },
    get callerAborted() {
      return callerSignal?.aborted === true;
    },
  };
}

/** Rough token count of a request (chars / 4): only used to spot disconnects on huge sessions. */
export function approxTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m.content === "string") chars += m.content.length;
    else if (Array.isArray(m.content))
      for (const p of m.content) chars += p.type === "text" ? p.text.length : 1000;
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) chars += c.function.arguments.length;
  }
  return Math.ceil(chars / 4);
}

/** The final `error` event for a failed call; caller aborts and idle timeouts win over the SDK's view. */
export function failureEvent(
  err: unknown,
  target: ModelTarget,
  guard: CallGuard,
  messages: readonly ChatMessage[],
  partial: AssistantMessage | undefined,
  usage: Usage | undefined,
): LlmEvent {
  let error = classifyError(err, {
    provider: target.provider,
    baseUrl: target.baseUrl,
    approxTokens: approxTokens(messages),
    ...(target.contextLength ? { contextLength: target.contextLength } : {}),
  });
  if (guard.callerAborted) error = classified("aborted", "Request cancelled.");
  else if (guard.timedOut) {
    const seconds = Math.round((target.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000);
    error = classified("timeout", `No response from ${target.baseUrl} for ${seconds}s.`);
  }
  const event: LlmEvent = { type: "error", error };
  if (partial) event.partial = partial;
  if (usage) event.usage = usage;
  return event;
}

/** Builds the partial/final assistant message from accumulated text and reasoning. */
export function assistantMessage(text: string, reasoning: string): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content: text === "" ? null : text };
  if (reasoning) message.reasoning = reasoning;
  return message;
}

const CLIENT_CACHE_LIMIT = 16;

/**
 * Small keyed cache of SDK clients, so a session reuses one client (and its connection pool) per
 * endpoint + key instead of building one per call. Oldest entry is evicted past the limit.
 */
export function createClientCache<T>(): (key: string, create: () => T) => T {
  const cache = new Map<string, T>();
  return (key, create) => {
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const client = create();
    cache.set(key, client);
    if (cache.size > CLIENT_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    return client;
  };
}

/** Cache key for a client: everything that changes how it connects or authenticates. */
export function clientKey(target: ModelTarget, proxyUrl: string | undefined): string {
  return JSON.stringify([
    target.baseUrl,
    target.apiKey,
    target.headers ?? {},
    target.timeoutMs ?? 0,
    proxyUrl ?? "",
  ]);
}

/** Folds one protocol's stream chunks into LlmEvents and, at the end, the assistant message. */
export interface StreamAssembler<Chunk> {
  readonly text: string;
  readonly reasoning: string;
  readonly usage: Usage | undefined;
  accept(chunk: Chunk): Iterable<LlmEvent>;
  message(): AssistantMessage;
  finishReason(): FinishReason;
}

/**
 * The shared body of every wire protocol's StreamFn: opens the stream under an idle/abort guard,
 * feeds chunks to the assembler, and turns any failure into a final classified `error` event.
 * Never throws.
 */
export async function* runProviderStream<Chunk>(
  request: LlmRequest,
  assembler: StreamAssembler<Chunk>,
  open: (signal: AbortSignal) => Promise<AsyncIterable<Chunk>>,
): AsyncGenerator<LlmEvent> {
  const { target } = request;
  const guard = createCallGuard(request.signal, target.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const opening = open(guard.signal);
    noteModelRequest();
    const stream = await opening;
    for await (const chunk of stream) {
      guard.touch();
      yield* assembler.accept(chunk);
    }
    if (guard.signal.aborted) throw guard.signal.reason;
    yield {
      type: "done",
      message: assembler.message(),
      usage: assembler.usage ?? emptyUsage(),
      finishReason: assembler.finishReason(),
    };
  } catch (err) {
    // Tool calls are left out of the partial: half-streamed arguments cannot be replayed.
    const { text, reasoning } = assembler;
    const partial = text || reasoning ? assistantMessage(text, reasoning) : undefined;
    yield failureEvent(err, target, guard, request.messages, partial, assembler.usage);
  } finally {
    guard.dispose();
  }
}
