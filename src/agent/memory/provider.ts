/**
 * The pluggable side of memory. The built-in store (MEMORY.md / USER.md) is always there; at most
 * one external provider may be added (a vector store, a hosted memory service). A provider may
 * contribute three things (seed 004 §9.2): a block of the system prompt, taken once at session
 * start and never mid-session; context recalled for each user message, sent fenced in that
 * message's API copy only (fence.ts), so the cached prompt prefix and the transcript stay as they
 * were; and a look at each finished turn, to learn from it.
 */
export interface MemoryProvider {
  readonly name: string;
  /** Text for the memory layer of the system prompt, taken once per session ("" for none). */
  systemPromptBlock(): string;
  /**
   * Context recalled for this user message ("" for none). Called once per request before the first
   * model call, under a short time limit (`signal` aborts when it passes); a failure or a timeout
   * only costs the recall, never the request.
   */
  prefetch?(query: string, signal?: AbortSignal): Promise<string>;
  /** Told each completed turn (the user's text and the final answer). Failures are reported, not fatal. */
  syncTurn?(user: string, assistant: string): Promise<void> | void;
}

/** How long a provider's recall or turn sync may hold up a request. */
export const MEMORY_PROVIDER_TIMEOUT_MS = 3000;

/**
 * Runs one provider call with a time limit that also aborts when `parent` does. Resolves to the
 * call's value, or throws (a timeout included) for the caller to report. A provider that ignores
 * its signal cannot hold the request past the limit.
 */
export async function withProviderTimeout<T>(
  run: (signal: AbortSignal) => Promise<T> | T,
  parent?: AbortSignal,
  timeoutMs = MEMORY_PROVIDER_TIMEOUT_MS,
): Promise<T> {
  const limit = new AbortController();
  const signal = parent ? AbortSignal.any([parent, limit.signal]) : limit.signal;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      limit.abort();
      reject(new Error(`timed out after ${timeoutMs / 1000}s`));
    }, timeoutMs);
    onAbort = () => reject(new Error("interrupted"));
    parent?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    if (parent?.aborted) throw new Error("interrupted");
    return await Promise.race([Promise.resolve().then(() => run(signal)), stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) parent?.removeEventListener("abort", onAbort);
  }
}
