import type { DatabaseSync } from "node:sqlite";
import type { ChatMessage } from "../../llm/types.js";
import {
  type CloseReport,
  type InnerToolCall,
  type MessageMeta,
  type NewSession,
  type SearchHit,
  type SearchOptions,
  type SessionRecord,
  type SessionStore,
  StateStoreError,
  type StoredInnerToolCall,
  type StoredMessage,
  type StoreStats,
  type UsageDelta,
  type WriteEvent,
} from "../store.js";
import { openDatabase, type Statements, schemaVersion, statementCache } from "./connection.js";
import { FtsIndex } from "./fts.js";
import { deleteMessagesFrom, insertInnerToolCall, insertMessage } from "./message-writes.js";
import { findByPrefixOrTitle, latestSession, listSessions, messagesAround, readStats } from "./queries.js";
import { newSessionRecord, type Row, toInnerToolCall, toMessage, toSession } from "./rows.js";
import { isBusy, type QueuedWrite, WriteQueue } from "./write-queue.js";

export { toFtsQuery } from "./rows.js";

export interface SqliteStoreOptions {
  /**
   * Unindexed messages that make an append index them in the same transaction (default 512).
   * Batching is what makes indexing cheap: one FTS5 segment per batch instead of one per turn.
   * `Infinity` leaves indexing to `indexPending()` and searches (benchmarks).
   */
  indexBatch?: number;
  /** How long a write waits for another process's lock before it is queued instead (default 10 ms). */
  busyTimeoutMs?: number;
  /** How long opening, delete, prune, rename and undo wait for the lock (default 5 s). */
  waitMs?: number;
  /** How long `close()` waits for queued writes (default 3 s). */
  closeWaitMs?: number;
}

/** What a queued write is about, besides the work itself. */
type WriteInfo = Omit<QueuedWrite, "run" | "queuedAt">;

/**
 * The default store: SQLite through node:sqlite, WAL, one file per profile (HERMES_HOME/state.db).
 * Writes try the lock for a few milliseconds and otherwise queue (see write-queue.ts); every write
 * is one BEGIN IMMEDIATE transaction, so what it reads (the next seq) is what it writes after.
 */
export class SqliteSessionStore implements SessionStore {
  private readonly db: DatabaseSync;
  private readonly st: Statements;
  private readonly queue: WriteQueue;
  private readonly busyMs: number;
  private readonly waitMs: number;
  private readonly closeWaitMs: number;
  private readonly fts: FtsIndex;
  /** Messages were written through this handle: close() indexes what is left. */
  private wrote = false;

  /** Opens (and migrates) the database. Throws StateStoreError; never deletes or rewrites a bad file. */
  constructor(
    readonly path: string,
    opts: SqliteStoreOptions = {},
  ) {
    this.busyMs = opts.busyTimeoutMs ?? 10;
    this.waitMs = opts.waitMs ?? 5_000;
    this.closeWaitMs = opts.closeWaitMs ?? 3_000;
    this.db = openDatabase(path, this.waitMs);
    this.setBusyTimeout(this.busyMs);
    this.st = statementCache(this.db);
    this.fts = new FtsIndex(this.db, this.st, opts.indexBatch ?? 512);
    this.queue = new WriteQueue((run) => this.tx(run));
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  private setBusyTimeout(ms: number): void {
    this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(ms))}`);
  }

  private tx<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (err) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      this.fts.forget();
      throw err;
    }
  }

  /**
   * Runs a write now when the lock is free within busyMs and nothing of this process waits before
   * it; otherwise queues it and returns undefined. Errors other than "busy" are thrown as before.
   */
  private submit<T>(info: WriteInfo, run: () => T): { value: T } | undefined {
    if (this.queue.pending() === 0 || this.queue.drainNow()) {
      try {
        return { value: this.tx(run) };
      } catch (err) {
        if (!isBusy(err)) throw err;
      }
    }
    this.queue.push({ ...info, run: () => void run(), queuedAt: Date.now() });
    return undefined;
  }

  /**
   * Runs a write whose caller needs the answer (delete, prune, rename, undo): writes what is queued
   * first, waiting up to waitMs for the lock, then throws StateStoreError "locked".
   */
  private waitFor<T>(run: () => T): T {
    const locked = (detail: string): StateStoreError =>
      new StateStoreError(
        `The session database ${this.path} stayed locked by another process for ${this.waitMs / 1000} s (${detail}); try again.`,
        "locked",
      );
    this.setBusyTimeout(this.waitMs);
    try {
      if (!this.queue.drainNow()) throw locked("writes of this process are still queued");
      return this.tx(run);
    } catch (err) {
      throw isBusy(err) ? locked((err as Error).message) : err;
    } finally {
      this.setBusyTimeout(this.busyMs);
    }
  }

  /** Before reading a session with queued writes: one more try to write them. */
  private catchUp(sessionId: string): QueuedWrite[] {
    if (this.queue.pending(sessionId) === 0 || this.queue.drainNow()) return [];
    return this.queue.waitingFor(sessionId);
  }

  createSession(s: NewSession): SessionRecord {
    const record = newSessionRecord(s);
    const done = this.submit({ sessionId: s.id, what: "session", session: record }, () =>
      this.st(
        `INSERT INTO sessions (id, source, model, provider, title, parent_session_id, cwd, system_prompt, started_at,
         user_id, chat_id, session_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        record.id,
        record.source,
        record.model,
        record.provider,
        record.title,
        record.parentSessionId,
        record.cwd,
        record.systemPrompt,
        record.startedAt,
        record.userId ?? null,
        record.chatId ?? null,
        record.sessionKey ?? null,
      ),
    );
    return (done && this.getSession(s.id)) || record;
  }

  getSession(id: string): SessionRecord | undefined {
    const waiting = this.catchUp(id);
    const r = this.st("SELECT * FROM sessions WHERE id = ?").get(id) as Row | undefined;
    return r ? toSession(r) : waiting.find((w) => w.session)?.session;
  }

  resolveSession(idOrTitle: string): SessionRecord | undefined {
    return this.getSession(idOrTitle) ?? findByPrefixOrTitle(this.st, idOrTitle);
  }

  listSessions(opts: { limit?: number; source?: string; userId?: string } = {}): SessionRecord[] {
    return listSessions(this.st, opts);
  }

  latestSession(opts: { source?: string } = {}): SessionRecord | undefined {
    return latestSession(this.st, opts);
  }

  renameSession(id: string, title: string): boolean {
    return this.waitFor(
      () => this.st("UPDATE sessions SET title = ? WHERE id = ?").run(title, id).changes > 0,
    );
  }

  setTitle(id: string, title: string): void {
    this.submit({ sessionId: id, what: "session_update" }, () =>
      this.st("UPDATE sessions SET title = ? WHERE id = ?").run(title, id),
    );
  }

  setTitleIfUnset(id: string, title: string): boolean {
    const sql = "UPDATE sessions SET title = ? WHERE id = ? AND (title IS NULL OR title = '')";
    const done = this.submit(
      { sessionId: id, what: "session_update" },
      () => this.st(sql).run(title, id).changes > 0,
    );
    return done ? done.value : !this.getSession(id)?.title;
  }

  setSystemPrompt(id: string, systemPrompt: string): void {
    this.submit({ sessionId: id, what: "session_update" }, () =>
      this.st("UPDATE sessions SET system_prompt = ? WHERE id = ?").run(systemPrompt, id),
    );
  }

  addUsage(id: string, d: UsageDelta): void {
    this.submit({ sessionId: id, what: "usage" }, () =>
      this.st(
        `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
       cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
       reasoning_tokens = reasoning_tokens + ?, cost_usd = cost_usd + ? WHERE id = ?`,
      ).run(
        d.inputTokens ?? 0,
        d.outputTokens ?? 0,
        d.cacheReadTokens ?? 0,
        d.cacheWriteTokens ?? 0,
        d.reasoningTokens ?? 0,
        d.costUsd ?? 0,
        id,
      ),
    );
  }

  endSession(id: string, reason: string): void {
    const at = Date.now();
    this.submit({ sessionId: id, what: "session_update" }, () =>
      this.st("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?").run(at, reason, id),
    );
  }

  deleteSession(id: string): boolean {
    return this.waitFor(() => {
      this.st("DELETE FROM messages WHERE session_id = ?").run(id);
      return this.st("DELETE FROM sessions WHERE id = ?").run(id).changes > 0;
    });
  }

  prune(olderThan: number, opts: { source?: string } = {}): number {
    return this.waitFor(() => {
      const ids = (
        opts.source
          ? this.st("SELECT id FROM sessions WHERE started_at < ? AND source = ?").all(olderThan, opts.source)
          : this.st("SELECT id FROM sessions WHERE started_at < ?").all(olderThan)
      ) as Row[];
      for (const r of ids) {
        this.st("DELETE FROM messages WHERE session_id = ?").run(String(r.id));
        this.st("DELETE FROM sessions WHERE id = ?").run(String(r.id));
      }
      return ids.length;
    });
  }

  /** Session counters once per batch, then the index catch-up when enough rows wait for it. */
  private afterInsert(sessionId: string, count: number, lastAt: number, lastId: number): void {
    this.st("UPDATE sessions SET message_count = message_count + ?, last_active_at = ? WHERE id = ?").run(
      count,
      lastAt,
      sessionId,
    );
    this.wrote = true;
    this.fts.afterAppend(lastId);
  }

  appendMessage(sessionId: string, message: ChatMessage, meta: MessageMeta = {}): StoredMessage | undefined {
    const createdAt = meta.createdAt ?? Date.now();
    const done = this.submit({ sessionId, what: "message", messages: [message], createdAt }, () => {
      const stored = insertMessage(this.st, sessionId, message, meta, createdAt);
      this.afterInsert(sessionId, 1, createdAt, stored.id);
      return stored;
    });
    return done?.value;
  }

  appendMessages(sessionId: string, messages: ChatMessage[]): void {
    if (messages.length === 0) return;
    const createdAt = Date.now();
    this.submit({ sessionId, what: "message", messages, createdAt }, () => {
      let last: StoredMessage | undefined;
      for (const m of messages) last = insertMessage(this.st, sessionId, m, {}, createdAt);
      this.afterInsert(sessionId, messages.length, createdAt, last!.id);
    });
  }

  appendInnerToolCall(sessionId: string, call: InnerToolCall): void {
    const at = Date.now();
    this.submit({ sessionId, what: "inner_tool_call" }, () =>
      insertInnerToolCall(this.st, sessionId, call, at),
    );
  }

  loadInnerToolCalls(sessionId: string): StoredInnerToolCall[] {
    this.catchUp(sessionId);
    const rows = this.st("SELECT * FROM inner_tool_calls WHERE session_id = ? ORDER BY id").all(
      sessionId,
    ) as Row[];
    return rows.map(toInnerToolCall);
  }

  deleteMessagesFrom(sessionId: string, fromSeq: number): number {
    return this.waitFor(() => deleteMessagesFrom(this.st, sessionId, fromSeq));
  }

  deleteLastMessages(sessionId: string, count: number): void {
    if (count <= 0) return;
    this.submit({ sessionId, what: "session_update" }, () => {
      // Counted when it runs, so messages queued before it are among the last ones.
      const from = this.st(
        "SELECT seq FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?",
      ).get(sessionId, count - 1) as Row | undefined;
      deleteMessagesFrom(this.st, sessionId, from ? Number(from.seq) : 0);
    });
  }

  /** Brings the full-text indexes up to date (searches do this first); returns the id span indexed. */
  indexPending(): number {
    return this.fts.indexPending((fn) => this.tx(fn));
  }

  loadMessages(sessionId: string): StoredMessage[] {
    const waiting = this.catchUp(sessionId);
    const rows = (
      this.st("SELECT * FROM messages WHERE session_id = ? ORDER BY seq").all(sessionId) as Row[]
    ).map(toMessage);
    let seq = rows.at(-1)?.seq ?? -1;
    for (const w of waiting) {
      for (const message of w.messages ?? []) {
        rows.push({ id: 0, sessionId, seq: ++seq, createdAt: w.createdAt ?? w.queuedAt, message });
      }
    }
    return rows;
  }

  messagesAround(sessionId: string, aroundId: number, window: number): StoredMessage[] {
    return messagesAround(this.st, sessionId, aroundId, window);
  }

  search(opts: SearchOptions): SearchHit[] {
    return this.fts.search(opts, (fn) => this.tx(fn));
  }

  stats(): StoreStats {
    return readStats(this.st, this.path);
  }

  integrityCheck(): string {
    const rows = this.db.prepare("PRAGMA integrity_check").all() as Row[];
    return rows.map((r) => String(Object.values(r)[0])).join("\n");
  }

  pendingWrites(sessionId?: string): number {
    return this.queue.pending(sessionId);
  }

  watchWrites(sessionId: string, listener: (e: WriteEvent) => void): () => void {
    return this.queue.watch(sessionId, listener);
  }

  flush(timeoutMs = this.closeWaitMs): Promise<number> {
    return this.queue.flush(timeoutMs);
  }

  close(): CloseReport {
    if (!this.db.isOpen) return { unwritten: [] };
    const deadline = Date.now() + this.closeWaitMs;
    while (this.queue.pending() > 0 && Date.now() < deadline) {
      this.setBusyTimeout(deadline - Date.now());
      this.queue.drainNow();
    }
    const left = this.queue.abandon();
    this.setBusyTimeout(this.busyMs);
    if (this.wrote) {
      try {
        this.indexPending();
      } catch {
        // Left for the next search or append, which index from the watermark.
      }
    }
    this.db.close();
    return { unwritten: left.map(({ sessionId, what }) => ({ sessionId, what })) };
  }
}

/** Opens the store at `path`; see SqliteSessionStore. */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteSessionStore {
  return new SqliteSessionStore(path, opts);
}
