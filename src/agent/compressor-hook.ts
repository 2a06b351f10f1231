/**
 * What the retry loop needs from a context compressor (seed 004 §7) and from whoever tracks the
 * model in use. The compressor itself arrives later; until then these hooks are optional and a
 * context overflow ends the request with a clear message.
 */
import type { ModelTarget } from "../llm/types.js";

export interface ContextCompressorHook {
  /**
   * Shrinks the conversation in place so the next request fits. Resolves true when something was
   * compressed (the call is retried), false when nothing more can be done. Must not throw.
   */
  compress(reason: string): Promise<boolean>;
}

/** Told when a fallback switched provider or model: budgets are recalibrated for `target` (§7.9). */
export type ModelSwitchHook = (target: ModelTarget) => void;
