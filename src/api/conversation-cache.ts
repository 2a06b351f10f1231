/**
 * Recent conversations as the agent held them, before redaction: a Responses' conversation (what a
 * request's `previous_response_id` continues) and a chat session's (what the next chat request
 * continues, tool messages included). state.db keeps a redacted copy (a key the user pasted reads
 * `[REDACTED…]` there); a Responses conversation evicted from here, or stored before a restart, is
 * continued from that copy, a chat session from the history the client resends. Bounded by
 * entries and bytes, the least recently used going first.
 */
import type { ChatMessage } from "../llm/types.js";

export interface ConversationCacheOptions {
  maxEntries: number;
  maxBytes: number;
}

export const DEFAULT_CONVERSATION_CACHE: ConversationCacheOptions = {
  maxEntries: 256,
  maxBytes: 64 * 1024 * 1024,
};

interface Entry {
  conversation: readonly ChatMessage[];
  bytes: number;
}

/** Roughly what a conversation holds in memory: its JSON length, in UTF-16 code units × 2. */
const sizeOf = (conversation: readonly ChatMessage[]): number => JSON.stringify(conversation).length * 2;

export class ConversationCache {
  /** Insertion order is recency: a read moves the entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly o: ConversationCacheOptions = DEFAULT_CONVERSATION_CACHE) {}

  /** Keeps the conversation after response `id`; one larger than the whole budget is not kept. */
  set(id: string, conversation: readonly ChatMessage[]): void {
    this.delete(id);
    const bytes = sizeOf(conversation);
    if (bytes > this.o.maxBytes) return;
    this.entries.set(id, { conversation, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.o.maxEntries && this.bytes <= this.o.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  get(id: string): readonly ChatMessage[] | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.conversation;
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
  }

  get size(): number {
    return this.entries.size;
  }
}
