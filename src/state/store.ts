import type { ChatMessage } from "../llm/types.js";
import type { ContinuationStore } from "./continuations.js";
import type { IdempotencyStore } from "./idempotency.js";
import type { DeliveryLedger } from "./ledger.js";
import type { PairingTables } from "./pairing.js";
import type { ResponseStore } from "./responses.js";
import type { RoutingStore } from "./routing.js";

/**
 * Persistence: one interface for every table of state.db, the node:sqlite store (`sqlite/store.ts`)
 * is the default. Several Hermes processes may write one store (two terminals, a gateway and a
 * CLI), and the event loop never waits for another process's write lock:
 * - conversation writes (messages, usage, titles) return at once: stored now, or queued in order and
 *   retried on timers (`pendingWrites`, `watchWrites`, `flush`);
 * - writes whose caller needs the answer or must know they are durable (delete, prune, rename, the
 *   side tables) return a Promise that settles once committed, and rejects with StateStoreError
 *   kind "locked" when the lock stayed taken past the store's write deadline (nothing was written);
 * - reads never wait (WAL).
 * What is persisted passes the store's redactor first (secrets never reach the file or its index).
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
  /** Who the session belongs to (gateway chats): the platform's user id, chat id and session key. */
  userId?: string;
  chatId?: string;
  sessionKey?: string;
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
  userId?: string;
  chatId?: string;
  sessionKey?: string;
}

export interface StoredMessage {
  /** Global message id (stable; used by session_search to scroll around a hit); 0 while queued. */
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
  /** Only sessions of this source (a gateway chat searches its own platform's sessions). */
  source?: string;
  /** Only sessions of this user (with `source`: one person's conversations on one platform). */
  userId?: string;
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

/** A write still queued when the store closed. */
export interface UnwrittenWrite {
  sessionId: string;
  what: "session" | "message" | "usage" | "inner_tool_call" | "session_update";
}

/** What `close()` could not write (the lock stayed with another process for the whole wait). */
export interface CloseReport {
  unwritten: UnwrittenWrite[];
}

/** What happens to the queued writes of one session (see `watchWrites`). */
export type WriteEvent =
  /** A retry found the lock still held; `waitedMs` since the oldest of them was queued. */
  | { type: "waiting"; sessionId: string; pending: number; waitedMs: number }
  /** Nothing of the session waits any more; `count` queued writes were stored meanwhile. */
  | { type: "written"; sessionId: string; count: number }
  /** A queued write failed with an error that retrying cannot fix: it is lost. */
  | { type: "dropped"; sessionId: string; what: UnwrittenWrite["what"]; reason: string }
  /** The store closed with `count` writes of the session still queued: they are lost. */
  | { type: "abandoned"; sessionId: string; count: number };

export interface SessionStore {
  readonly path: string;
  createSession(s: NewSession): SessionRecord;
  getSession(id: string): SessionRecord | undefined;
  /** Exact id, then a unique id prefix, then the newest session with that exact title. */
  resolveSession(idOrTitle: string): SessionRecord | undefined;
  /** Newest first; with `source` and `userId`: one user's sessions on one platform (a gateway chat's /resume). */
  listSessions(opts?: { limit?: number; source?: string; userId?: string }): SessionRecord[];
  /** The session with the most recent message (or start): what `hermes -c` continues. */
  latestSession(opts?: { source?: string }): SessionRecord | undefined;
  /** Resolves once written with whether the session exists; rejects "locked" past the deadline. */
  renameSession(id: string, title: string): Promise<boolean>;
  /** Sets the title in order with the session's other writes (queued like them; never waits). */
  setTitle(id: string, title: string): void;
  /**
   * Titles the session only if it has no title yet (generated titles never replace the user's).
   * A title queued behind another process's lock answers from what is stored now.
   */
  setTitleIfUnset(id: string, title: string): boolean;
  setSystemPrompt(id: string, systemPrompt: string): void;
  addUsage(id: string, delta: UsageDelta): void;
  endSession(id: string, reason: string): void;
  /**
   * Deletes the session and everything of it in every table (messages and their search index, inner
   * tool calls, stored API responses, continuation and idempotency records, routes pointing at it,
   * the delivery ledger's outbound messages of it and the text of its inbound updates),
   * after this process's queued writes. Resolves with whether it existed; rejects StateStoreError
   * "locked" when the lock stayed taken past the write deadline (nothing deleted).
   */
  deleteSession(id: string): Promise<boolean>;
  /** Deletes sessions started before `olderThan` (ms epoch) as deleteSession does; resolves with how many. */
  prune(olderThan: number, opts?: { source?: string }): Promise<number>;
  /**
   * Stores a message after the session's last one (its `seq` is taken inside the write, so writers
   * in other processes never collide), as the redactor leaves it; the caller's object is not
   * changed. Undefined when it was queued behind another process's lock.
   */
  appendMessage(sessionId: string, message: ChatMessage, meta?: MessageMeta): StoredMessage | undefined;
  /** Several messages in one transaction (one turn). */
  appendMessages(sessionId: string, messages: ChatMessage[]): void;
  /**
   * Deletes the messages of a session from position `fromSeq` on (undo), after the writes queued
   * before it; resolves with how many. Rejects like deleteSession.
   */
  deleteMessagesFrom(sessionId: string, fromSeq: number): Promise<number>;
  /** Deletes the session's last `count` messages (undo) in order with its other writes; never waits. */
  deleteLastMessages(sessionId: string, count: number): void;
  /** Indexes messages written since the last search or batch; searches call it themselves. */
  indexPending(): number;
  /** Queued messages of the session come last, with id 0 and the seq they will most likely get. */
  loadMessages(sessionId: string): StoredMessage[];
  /** Records a tool call made by a tool after the session's latest message (transcript only). */
  appendInnerToolCall(sessionId: string, call: InnerToolCall): void;
  loadInnerToolCalls(sessionId: string): StoredInnerToolCall[];
  /** Messages of a session with `id` within `window` positions of message `aroundId`. */
  messagesAround(sessionId: string, aroundId: number, window: number): StoredMessage[];
  search(opts: SearchOptions): SearchHit[];
  stats(): StoreStats;
  integrityCheck(): string;
  /** Writes of this process still queued behind another process's lock (of one session, or all). */
  pendingWrites(sessionId?: string): number;
  /** Reports what happens to the queued writes of a session; returns the unsubscribe function. */
  watchWrites(sessionId: string, listener: (e: WriteEvent) => void): () => void;
  /** Retries queued writes on timers until none is left or `timeoutMs` passes; resolves with what is left. */
  flush(timeoutMs?: number): Promise<number>;
  /**
   * Writes what is queued (retrying on timers for the store's close wait), then closes. Reports the
   * conversation writes it could not write; durable writes still waiting reject. Idempotent.
   */
  close(): Promise<CloseReport>;
}

/**
 * state.db as a whole: the sessions, and every side table a front end keeps, each behind its own
 * interface so a second backend implements the same contracts. One connection and one write path
 * (one ordered queue) serve them all.
 */
export interface StateStore extends SessionStore {
  /** The gateway's delivery ledger (inbound updates once, outbound messages before they are sent). */
  readonly ledger: DeliveryLedger;
  /** The gateway's chat → current session map. */
  readonly routing: RoutingStore;
  /** The API server's stored Responses (previous_response_id). */
  readonly responses: ResponseStore;
  /** The API server's Idempotency-Key records. */
  readonly idempotency: IdempotencyStore;
  /** The API server's chat-completions continuation index (conversation prefix → session). */
  readonly continuations: ContinuationStore;
  /** DM pairing: approved users, waiting codes, rate limits and lockouts, pinned allowlist handles. */
  readonly pairing: PairingTables;
}

/** How a store is opened: every backend takes these. */
export interface StateStoreOptions {
  /**
   * Applied to every text persisted (messages of every role, tool-call arguments, titles, ledger
   * payloads, responses): secrets never reach the file or its search index. The objects a caller
   * passes are never changed. Default: nothing is redacted.
   */
  redact?: (text: string) => string;
  /**
   * How long a durable write (a Promise-returning one) may wait for another process's write lock
   * before it rejects with StateStoreError "locked" (default 5 s).
   */
  writeDeadlineMs?: number;
  /** The clock of retention and expiry (tests). */
  now?: () => number;
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
