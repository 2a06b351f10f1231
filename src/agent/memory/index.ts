import type { HermesConfig } from "../../core/config.js";
import { homePaths } from "../../core/home.js";
import { MemoryStore } from "./store.js";

export { fenceMemoryContext, stripMemoryContext, withMemoryContext } from "./fence.js";
export { MEMORY_PROVIDER_TIMEOUT_MS, type MemoryProvider, withProviderTimeout } from "./provider.js";
export { StreamingContextScrubber } from "./scrubber.js";
export { ENTRY_SEPARATOR, MemoryStore, parseEntries } from "./store.js";

/**
 * The built-in store, configured from `memory.*`: in `dir` (a chat user's own memory folder) or,
 * without it, the profile's HERMES_HOME/memories.
 */
export function createMemoryStore(home: string, config: HermesConfig, dir?: string): MemoryStore {
  const m = config.memory;
  return new MemoryStore({
    dir: dir ?? homePaths(home).memories,
    memoryEnabled: m.memory_enabled,
    userEnabled: m.user_profile_enabled,
    memoryCharLimit: m.memory_char_limit,
    userCharLimit: m.user_char_limit,
  });
}
