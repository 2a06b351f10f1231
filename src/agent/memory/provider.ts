/**
 * The pluggable side of memory. The built-in store (MEMORY.md / USER.md) is always there; at most
 * one external provider may be added later (a vector store, a hosted memory service). Providers
 * contribute text to the session's system prompt once, at session start, and never mid-session.
 */
export interface MemoryProvider {
  readonly name: string;
  /** Text for the memory layer of the system prompt, taken once per session ("" for none). */
  systemPromptBlock(): string;
}
