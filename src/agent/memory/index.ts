import type { HermesConfig } from "../../core/config.js";
import { homePaths } from "../../core/home.js";
import { MemoryStore } from "./store.js";

export { fenceMemoryContext, stripMemoryContext, withMemoryContext } from "./fence.js";
export { MEMORY_PROVIDER_TIMEOUT_MS, type MemoryProvider, withProviderTimeout } from "./provider.js";
export { StreamingContextScrubber } from "./scrubber.js";
export { ENTRY_SEPARATOR, MemoryStore, parseEntries } from "./store.js";

/** The built-in store for a home, configured from `memory.*`. */
export function createMemoryStore(home: string, config: HermesConfig): MemoryStore {
  const m = config.memory;
  return new MemoryStore({
    dir: homePaths(home).memories,
    memoryEnabled: m.memory_enabled,
    userEnabled: m.user_profile_enabled,
    memoryCharLimit: m.memory_char_limit,
    userCharLimit: m.user_char_limit,
  });
}
