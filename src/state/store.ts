import type { ChatMessage } from "../llm/types.js";

/**
 * Session persistence: one interface, the node:sqlite store (`sqlite/store.ts`) is the default.
 * Every call is synchronous so a message is on disk before the next thing is shown.
 */

export interface SessionRecord {
  id: string;
  source: string;
  model: string | null;
  provider: string | null;
  title: string | null;
  parentSessionId: string | null;
  cwd: string | null;
  systemPrompt: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
  messageCount: number;
}

export interface NewSession {
  id: string;
  source: string;
  model?: string;
  provider?: string;
  title?: string;
  parentSessionId?: string;
  cwd?: string;
  systemPrompt?: string;
  startedAt?: number;
}

export interface StoredMessage {
  /** Global message id (stable; used by session_search to scroll around a hit). */
  id: number;
  sessionId: string;
  seq: number;
  createdAt: number;
  message: ChatMessage;
}

/** A tool call made by a tool (an execute_code script), kept in the transcript only. */
export interface InnerToolCall {
  /** The tool that made it (execute_code). */
  parentTool: string;
  toolName: string;
  args: Record<string, unknown>;
  /** The result as the script received it, cut at INNER_RESULT_MAX_CHARS. */
  result: string;
  isError: boolean;
  durationMs: number;
}

export interface StoredInnerToolCall extends InnerToolCall {
  /** Sequence number of the last message stored before the call: it belongs right after it. */
  afterSeq: number;
  createdAt: number;
}

/** Longest inner-call result kept in the transcript (scripts often read whole files). */
export const INNER_RESULT_MAX_CHARS = 4_000;

export interface MessageMeta {
  tokenCount?: number;
  finishReason?: string;
  createdAt?: number;
}

export interface SearchOptions {
  query: string;
  limit?: number;
  sort?: "relevance" | "recency";
  role?: string;
  /** Sessions left out of the results (the current one). */
  excludeSessionIds?: string[];
}

export interface SearchHit {
  messageId: number;
  sessionId: string;
  sessionTitle: string | null;
  role: string;
  seq: number;
  createdAt: number;
  snippet: string;
}

export interface StoreStats {
  path: string;
  sessions: number;
  messages: number;
  bySource: Record<string, number>;
  fileBytes: number;
  oldestStartedAt: number | null;
  newestStartedAt: number | null;
}

export interface UsageDelta {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  costUsd?: number;
}

export interface SessionStore {
  readonly path: string;
  createSession(s: NewSession): SessionRecord;
  getSession(id: string): SessionRecord | undefined;
  /** Exact id, then a unique id prefix, then the newest session with that exact title. */
  resolveSession(idOrTitle: string): SessionRecord | undefined;
  /** Newest first. */
  listSessions(opts?: { limit?: number; source?: string }): SessionRecord[];
  /** The session with the most recent message (or start): what `hermes -c` continues. */
  latestSession(opts?: { source?: string }): SessionRecord | undefined;
  renameSession(id: string, title: string): boolean;
  /** Titles the session only if it has no title yet (generated titles never replace the user's). */
  setTitleIfUnset(id: string, title: string): boolean;
  setSystemPrompt(id: string, systemPrompt: string): void;
  addUsage(id: string, delta: UsageDelta): void;
  endSession(id: string, reason: string): void;
  deleteSession(id: string): boolean;
  /** Deletes sessions started before `olderThan` (ms epoch); returns how many. */
  prune(olderThan: number, opts?: { source?: string }): number;
  appendMessage(sessionId: string, message: ChatMessage, meta?: MessageMeta): StoredMessage;
  /** Several messages in one transaction (one turn). */
  appendMessages(sessionId: string, messages: ChatMessage[]): void;
  /** Deletes the messages of a session from position `fromSeq` on (undo); returns how many. */
  deleteMessagesFrom(sessionId: string, fromSeq: number): number;
  /** Indexes messages written since the last search or batch; searches call it themselves. */
  indexPending(): number;
  loadMessages(sessionId: string): StoredMessage[];
  /** Records a tool call made by a tool after the session's latest message (transcript only). */
  appendInnerToolCall(sessionId: string, call: InnerToolCall): void;
  loadInnerToolCalls(sessionId: string): StoredInnerToolCall[];
  /** Messages of a session with `id` within `window` positions of message `aroundId`. */
  messagesAround(sessionId: string, aroundId: number, window: number): StoredMessage[];
  search(opts: SearchOptions): SearchHit[];
  stats(): StoreStats;
  integrityCheck(): string;
  close(): void;
}

/** Raised when state.db cannot be opened or used; the message says what to do. The file is never touched. */
export class StateStoreError extends Error {
  constructor(
    message: string,
    readonly kind: "corrupt" | "locked" | "other",
  ) {
    super(message);
    this.name = "StateStoreError";
  }
}

/** Plain text of a message for transcripts and search. */
export function messageText(m: ChatMessage): string {
  if (typeof m.content === "string") return m.content;
  if (m.content === null) return "";
  return m.content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : "")).join("\n");
}
