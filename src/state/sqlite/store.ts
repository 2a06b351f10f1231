import { statSync } from "node:fs";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { ChatMessage } from "../../llm/types.js";
import {
  INNER_RESULT_MAX_CHARS,
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
} from "../store.js";
import {
  CJK,
  describeOpenError,
  type Row,
  toColumns,
  toFtsQuery,
  toMessage,
  toSession,
  trigramQuery,
} from "./rows.js";
import { MIGRATIONS } from "./schema.js";
import { runFtsSearch } from "./search.js";

export { toFtsQuery } from "./rows.js";

export interface SqliteStoreOptions {
  /**
   * Unindexed messages that make an append index them in the same transaction (default 512).
   * Batching is what makes indexing cheap: one FTS5 segment per batch instead of one per turn.
   * `Infinity` leaves indexing to `indexPending()` and searches (benchmarks).
   */
  indexBatch?: number;
}

/** The default store: SQLite through node:sqlite, WAL, one file per profile (HERMES_HOME/state.db). */
export class SqliteSessionStore implements SessionStore {
  private readonly db: DatabaseSync;
  private readonly stmts = new Map<string, StatementSync>();
  private readonly nextSeq = new Map<string, number>();
  private readonly indexBatch: number;
  /** Messages were written through this handle: close() indexes what is left. */
  private wrote = false;
  /**
   * Last watermark seen. Another process only moves it forward, so a stale value can only make an
   * append look at the real one early, never skip indexing.
   */
  private knownUpto = 0;

  /** Opens (and migrates) the database. Throws StateStoreError; never deletes or rewrites a bad file. */
  constructor(
    readonly path: string,
    opts: SqliteStoreOptions = {},
  ) {
    this.indexBatch = opts.indexBatch ?? 512;
    try {
      this.db = new DatabaseSync(path, { timeout: 5000, enableForeignKeyConstraints: true });
    } catch (err) {
      throw describeOpenError(path, err);
    }
    try {
      this.db.exec("PRAGMA busy_timeout = 5000");
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      this.db.exec("PRAGMA foreign_keys = ON");
      // FTS5 segment merges are page-heavy: a bigger cache keeps inserts fast on large stores.
      this.db.exec("PRAGMA cache_size = -65536");
      this.db.exec("PRAGMA temp_store = MEMORY");
      this.db.exec("PRAGMA wal_autocheckpoint = 4000");
      this.migrate();
    } catch (err) {
      try {
        this.db.close();
      } catch {
        // Already unusable.
      }
      throw describeOpenError(path, err);
    }
  }

  private migrate(): void {
    this.db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const row = this.db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as Row | undefined;
    const current = row?.v === null || row?.v === undefined ? 0 : Number(row.v);
    if (current > MIGRATIONS.length) {
      throw new StateStoreError(
        `${this.path} was written by a newer hermes (schema ${current}; this one knows ${MIGRATIONS.length}). Upgrade hermes.`,
        "other",
      );
    }
    for (let v = current + 1; v <= MIGRATIONS.length; v++) {
      this.tx(() => {
        this.db.exec(MIGRATIONS[v - 1]!);
        this.db.prepare("INSERT INTO schema_version(version) VALUES (?)").run(v);
      });
    }
  }

  get schemaVersion(): number {
    return Number((this.db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as Row).v);
  }

  private st(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private tx<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  createSession(s: NewSession): SessionRecord {
    this.st(
      `INSERT INTO sessions (id, source, model, provider, title, parent_session_id, cwd, system_prompt, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      s.id,
      s.source,
      s.model ?? null,
      s.provider ?? null,
      s.title ?? null,
      s.parentSessionId ?? null,
      s.cwd ?? null,
      s.systemPrompt ?? null,
      s.startedAt ?? Date.now(),
    );
    return this.getSession(s.id)!;
  }

  getSession(id: string): SessionRecord | undefined {
    const r = this.st("SELECT * FROM sessions WHERE id = ?").get(id) as Row | undefined;
    return r ? toSession(r) : undefined;
  }

  resolveSession(idOrTitle: string): SessionRecord | undefined {
    const exact = this.getSession(idOrTitle);
    if (exact) return exact;
    const byPrefix = this.st("SELECT * FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 2").all(
      `${idOrTitle.replace(/[\\%_]/g, "\\$&")}%`,
    ) as Row[];
    if (byPrefix.length === 1) return toSession(byPrefix[0]!);
    const byTitle = this.st("SELECT * FROM sessions WHERE title = ? ORDER BY started_at DESC LIMIT 1").get(
      idOrTitle,
    ) as Row | undefined;
    return byTitle ? this.latestContinuation(toSession(byTitle)) : undefined;
  }

  /** A session compressed away lives on in its continuation: follow the chain to the newest one. */
  private latestContinuation(session: SessionRecord): SessionRecord {
    let current = session;
    for (let hops = 0; hops < 10_000 && current.endReason === "compression"; hops++) {
      const next = this.st(
        "SELECT * FROM sessions WHERE parent_session_id = ? AND source != 'subagent' ORDER BY started_at DESC, rowid DESC LIMIT 1",
      ).get(current.id) as Row | undefined;
      if (!next) break;
      current = toSession(next);
    }
    return current;
  }

  listSessions(opts: { limit?: number; source?: string } = {}): SessionRecord[] {
    const limit = opts.limit ?? -1;
    const rows = opts.source
      ? this.st("SELECT * FROM sessions WHERE source = ? ORDER BY started_at DESC, rowid DESC LIMIT ?").all(
          opts.source,
          limit,
        )
      : this.st("SELECT * FROM sessions ORDER BY started_at DESC, rowid DESC LIMIT ?").all(limit);
    return (rows as Row[]).map(toSession);
  }

  latestSession(opts: { source?: string } = {}): SessionRecord | undefined {
    const order = "ORDER BY COALESCE(last_active_at, started_at) DESC, rowid DESC LIMIT 1";
    const r = (
      opts.source
        ? this.st(`SELECT * FROM sessions WHERE source = ? ${order}`).get(opts.source)
        : this.st(`SELECT * FROM sessions ${order}`).get()
    ) as Row | undefined;
    return r ? toSession(r) : undefined;
  }

  renameSession(id: string, title: string): boolean {
    return this.st("UPDATE sessions SET title = ? WHERE id = ?").run(title, id).changes > 0;
  }

  setTitleIfUnset(id: string, title: string): boolean {
    return (
      this.st("UPDATE sessions SET title = ? WHERE id = ? AND (title IS NULL OR title = '')").run(title, id)
        .changes > 0
    );
  }

  setSystemPrompt(id: string, systemPrompt: string): void {
    this.st("UPDATE sessions SET system_prompt = ? WHERE id = ?").run(systemPrompt, id);
  }

  addUsage(id: string, d: UsageDelta): void {
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
    );
  }

  endSession(id: string, reason: string): void {
    this.st("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?").run(Date.now(), reason, id);
  }

  deleteSession(id: string): boolean {
    this.nextSeq.delete(id);
    return this.tx(() => {
      this.st("DELETE FROM messages WHERE session_id = ?").run(id);
      return this.st("DELETE FROM sessions WHERE id = ?").run(id).changes > 0;
    });
  }

  prune(olderThan: number, opts: { source?: string } = {}): number {
    const ids = (
      opts.source
        ? this.st("SELECT id FROM sessions WHERE started_at < ? AND source = ?").all(olderThan, opts.source)
        : this.st("SELECT id FROM sessions WHERE started_at < ?").all(olderThan)
    ) as Row[];
    this.tx(() => {
      for (const r of ids) {
        this.st("DELETE FROM messages WHERE session_id = ?").run(String(r.id));
        this.st("DELETE FROM sessions WHERE id = ?").run(String(r.id));
        this.nextSeq.delete(String(r.id));
      }
    });
    return ids.length;
  }

  private seqFor(sessionId: string): number {
    let next = this.nextSeq.get(sessionId);
    if (next === undefined) {
      const r = this.st("SELECT MAX(seq) AS m FROM messages WHERE session_id = ?").get(sessionId) as Row;
      next = r.m === null ? 0 : Number(r.m) + 1;
    }
    this.nextSeq.set(sessionId, next + 1);
    return next;
  }

  private insert(sessionId: string, m: ChatMessage, meta: MessageMeta): StoredMessage {
    const seq = this.seqFor(sessionId);
    const createdAt = meta.createdAt ?? Date.now();
    const { content, toolCalls, toolCallId, toolName, reasoning, extra } = toColumns(m);
    const r = this.st(
      `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, reasoning,
       extra, created_at, token_count, finish_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      sessionId,
      seq,
      m.role,
      content,
      toolCalls,
      toolCallId,
      toolName,
      reasoning,
      extra,
      createdAt,
      meta.tokenCount ?? null,
      meta.finishReason ?? null,
    );
    return { id: Number(r.lastInsertRowid), sessionId, seq, createdAt, message: m };
  }

  /** Session counters once per batch, then the index catch-up when enough rows wait for it. */
  private afterInsert(sessionId: string, count: number, lastAt: number, lastId: number): void {
    this.st("UPDATE sessions SET message_count = message_count + ?, last_active_at = ? WHERE id = ?").run(
      count,
      lastAt,
      sessionId,
    );
    this.wrote = true;
    if (lastId - this.knownUpto >= this.indexBatch) this.indexUpTo(lastId);
  }

  appendMessage(sessionId: string, message: ChatMessage, meta: MessageMeta = {}): StoredMessage {
    try {
      return this.tx(() => {
        const stored = this.insert(sessionId, message, meta);
        this.afterInsert(sessionId, 1, stored.createdAt, stored.id);
        return stored;
      });
    } catch (err) {
      this.nextSeq.delete(sessionId);
      this.knownUpto = 0;
      throw err;
    }
  }

  appendMessages(sessionId: string, messages: ChatMessage[]): void {
    if (messages.length === 0) return;
    try {
      this.tx(() => {
        let last: StoredMessage | undefined;
        for (const m of messages) last = this.insert(sessionId, m, {});
        this.afterInsert(sessionId, messages.length, last!.createdAt, last!.id);
      });
    } catch (err) {
      this.nextSeq.delete(sessionId);
      this.knownUpto = 0;
      throw err;
    }
  }

  appendInnerToolCall(sessionId: string, call: InnerToolCall): void {
    const result =
      call.result.length > INNER_RESULT_MAX_CHARS
        ? `${call.result.slice(0, INNER_RESULT_MAX_CHARS)}… [${call.result.length - INNER_RESULT_MAX_CHARS} more chars]`
        : call.result;
    this.st(
      `INSERT INTO inner_tool_calls
         (session_id, after_seq, parent_tool, tool_name, args, result, is_error, duration_ms, created_at)
       VALUES (?, COALESCE((SELECT MAX(seq) FROM messages WHERE session_id = ?), -1), ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      sessionId,
      sessionId,
      call.parentTool,
      call.toolName,
      JSON.stringify(call.args),
      result,
      call.isError ? 1 : 0,
      call.durationMs,
      Date.now(),
    );
  }

  loadInnerToolCalls(sessionId: string): StoredInnerToolCall[] {
    const rows = this.st("SELECT * FROM inner_tool_calls WHERE session_id = ? ORDER BY id").all(
      sessionId,
    ) as Row[];
    return rows.map((r) => ({
      afterSeq: Number(r.after_seq),
      createdAt: Number(r.created_at),
      parentTool: String(r.parent_tool),
      toolName: String(r.tool_name),
      args: JSON.parse(String(r.args)) as Record<string, unknown>,
      result: String(r.result),
      isError: Number(r.is_error) === 1,
      durationMs: Number(r.duration_ms),
    }));
  }

  /** Drops messages from `fromSeq` on (undo); the indexes follow through the delete trigger. */
  deleteMessagesFrom(sessionId: string, fromSeq: number): number {
    try {
      return this.tx(() => {
        const n = this.st("DELETE FROM messages WHERE session_id = ? AND seq >= ?").run(
          sessionId,
          fromSeq,
        ).changes;
        this.st("DELETE FROM inner_tool_calls WHERE session_id = ? AND after_seq >= ?").run(
          sessionId,
          fromSeq,
        );
        const last = this.st("SELECT MAX(created_at) AS t FROM messages WHERE session_id = ?").get(
          sessionId,
        ) as Row;
        this.st(
          "UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?), last_active_at = COALESCE(?, started_at) WHERE id = ?",
        ).run(sessionId, last.t ?? null, sessionId);
        return Number(n);
      });
    } finally {
      this.nextSeq.delete(sessionId);
    }
  }

  private indexedUpto(): number {
    this.knownUpto = Number((this.st("SELECT indexed_upto AS u FROM fts_state WHERE id = 1").get() as Row).u);
    return this.knownUpto;
  }

  /** Indexes messages with upto < id <= `lastId` into both FTS5 tables (inside a transaction). */
  private indexUpTo(lastId: number): number {
    const from = this.indexedUpto();
    if (lastId <= from) return 0;
    for (const table of ["messages_fts", "messages_fts_trigram"]) {
      this.st(
        `INSERT INTO ${table}(rowid, content, tool_name, tool_calls)
         SELECT id, content, tool_name, tool_calls FROM messages WHERE id > ? AND id <= ? ORDER BY id`,
      ).run(from, lastId);
    }
    this.st("UPDATE fts_state SET indexed_upto = ? WHERE id = 1").run(lastId);
    this.knownUpto = lastId;
    return lastId - from;
  }

  /** Brings the full-text indexes up to date (searches do this first); returns the id span indexed. */
  indexPending(): number {
    const max = this.st("SELECT MAX(id) AS m FROM messages").get() as Row;
    if (max.m === null || Number(max.m) <= this.indexedUpto()) return 0;
    return this.tx(() => {
      const top = Number((this.st("SELECT MAX(id) AS m FROM messages").get() as Row).m ?? 0);
      return this.indexUpTo(top);
    });
  }

  loadMessages(sessionId: string): StoredMessage[] {
    return (this.st("SELECT * FROM messages WHERE session_id = ? ORDER BY seq").all(sessionId) as Row[]).map(
      toMessage,
    );
  }

  messagesAround(sessionId: string, aroundId: number, window: number): StoredMessage[] {
    const at = this.st("SELECT seq FROM messages WHERE id = ? AND session_id = ?").get(aroundId, sessionId) as
      | Row
      | undefined;
    if (!at) return [];
    const seq = Number(at.seq);
    return (
      this.st("SELECT * FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq").all(
        sessionId,
        seq - window,
        seq + window,
      ) as Row[]
    ).map(toMessage);
  }

  search(opts: SearchOptions): SearchHit[] {
    const limit = Math.max(1, Math.min(opts.limit ?? 10, 100));
    const text = opts.query.trim();
    if (!text) return [];
    try {
      this.indexPending();
    } catch {
      // Busy with another writer: search what is indexed; the next search catches up.
    }
    const words = toFtsQuery(text);
    // Words first (ranked by bm25); CJK text and substrings go through the trigram index.
    const attempts: Array<{ table: string; q: string }> = [];
    if (words && !CJK.test(text)) attempts.push({ table: "messages_fts", q: words });
    if ([...text].length >= 3) attempts.push({ table: "messages_fts_trigram", q: trigramQuery(text) });
    for (const { table, q } of attempts) {
      const hits = runFtsSearch(this.db, table, q, opts, limit);
      if (hits.length) return hits;
    }
    return [];
  }

  stats(): StoreStats {
    const one = (sql: string): Row => this.st(sql).get() as Row;
    const bySource: Record<string, number> = {};
    for (const r of this.st("SELECT source, COUNT(*) AS n FROM sessions GROUP BY source").all() as Row[]) {
      bySource[String(r.source)] = Number(r.n);
    }
    let fileBytes = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        fileBytes += statSync(this.path + suffix).size;
      } catch {
        // No WAL right now.
      }
    }
    const range = one("SELECT MIN(started_at) AS lo, MAX(started_at) AS hi FROM sessions");
    return {
      path: this.path,
      sessions: Number(one("SELECT COUNT(*) AS n FROM sessions").n),
      messages: Number(one("SELECT COUNT(*) AS n FROM messages").n),
      bySource,
      fileBytes,
      oldestStartedAt: range.lo === null ? null : Number(range.lo),
      newestStartedAt: range.hi === null ? null : Number(range.hi),
    };
  }

  integrityCheck(): string {
    const rows = this.db.prepare("PRAGMA integrity_check").all() as Row[];
    return rows.map((r) => String(Object.values(r)[0])).join("\n");
  }

  close(): void {
    if (this.wrote && this.db.isOpen) {
      try {
        this.indexPending();
      } catch {
        // Left for the next search or append, which index from the watermark.
      }
    }
    this.stmts.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/** Opens the store at `path`; see SqliteSessionStore. */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteSessionStore {
  return new SqliteSessionStore(path, opts);
}
