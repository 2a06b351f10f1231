import type { AgentEvent } from "../events.js";
import { fenceMemoryContext } from "./fence.js";
import { type MemoryProvider, withProviderTimeout } from "./provider.js";

type Emit = (event: AgentEvent) => void;

function warn(emit: Emit, provider: MemoryProvider, what: string, err: unknown): void {
  const why = err instanceof Error ? err.message : String(err);
  emit({
    type: "status",
    kind: "warning",
    message: `Memory provider ${provider.name}: ${what} failed (${why})`,
  });
}

/** The provider's recall for this request, fenced; "" for none, a failure or a timeout. */
export async function recallMemory(
  provider: MemoryProvider | undefined,
  query: string,
  signal: AbortSignal,
  emit: Emit,
): Promise<string> {
  const prefetch = provider?.prefetch?.bind(provider);
  if (!provider || !prefetch) return "";
  try {
    const text = await withProviderTimeout((s) => prefetch(query, s), signal);
    return typeof text === "string" ? fenceMemoryContext(text) : "";
  } catch (err) {
    if (!signal.aborted) warn(emit, provider, "recall", err);
    return "";
  }
}

/** Tells the provider about a completed turn; a failure is reported and otherwise ignored. */
export async function syncMemoryTurn(
  provider: MemoryProvider | undefined,
  user: string,
  assistant: string,
  emit: Emit,
): Promise<void> {
  const sync = provider?.syncTurn?.bind(provider);
  if (!provider || !sync) return;
  try {
    await withProviderTimeout(() => sync(user, assistant));
  } catch (err) {
    warn(emit, provider, "turn sync", err);
  }
}
