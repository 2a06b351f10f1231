import { statSync } from "node:fs";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { ChatMessage } from "../../llm/types.js";
import {
  type MessageMeta,
  type NewSession,
  type SearchHit,
  type SearchOptions,
  type SessionRecord,
  type SessionStore,
  StateStoreError,
  type StoredMessage,
  type StoreStats,
  type UsageDelta,
} from "../store.js";
import { MIGRATIONS } from "./schema.js";

type Row = Record<string, SQLInputValue>;

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

/** Turns user text into an FTS5 query: each word quoted (no syntax errors), prefix match on the last. */
export function toFtsQuery(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(" ");
}

const trigramQuery = (text: string): string => `"${text.trim().replace(/"/g, '""')}"`;

function describeOpenError(path: string, err: unknown): StateStoreError {
  const e = err as { message?: string; errcode?: number; errstr?: string };
  const msg = e.message ?? String(err);
  const code = (e.errcode ?? 0) & 0xff;
  if (code === 5 || code === 6 || /locked|busy/i.test(msg)) {
    return new StateStoreError(
      `The session database ${path} is locked by another process (${msg}). Close other hermes instances and try again.`,
      "locked",
    );
  }
  if (code === 11 || code === 26 || /malformed|not a database|corrupt/i.test(msg)) {
    return new StateStoreError(
      `The session database ${path} is damaged (${msg}). It was left untouched; move it aside (e.g. 'mv state.db state.db.bad') to start a fresh one, or repair it with the sqlite3 '.recover' command.`,
      "corrupt",
    );
  }
  return new StateStoreError(`Cannot use the session database ${path}: ${msg}`, "other");
}

function toSession(r: Row): SessionRecord {
  return {
    id: String(r.id),
    source: String(r.source),
    model: (r.model as string | null) ?? null,
    provider: (r.provider as string | null) ?? null,
    title: (r.title as string | null) ?? null,
    parentSessionId: (r.parent_session_id as string | null) ?? null,
    cwd: (r.cwd as string | null) ?? null,
    systemPrompt: (r.system_prompt as string | null) ?? null,
    startedAt: Number(r.started_at),
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
    endReason: (r.end_reason as string | null) ?? null,
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    cacheReadTokens: Number(r.cache_read_tokens),
    cacheWriteTokens: Number(r.cache_write_tokens),
    reasoningTokens: Number(r.reasoning_tokens),
    costUsd: Number(r.cost_usd),
    messageCount: Number(r.message_count),
  };
}

function toMessage(r: Row): StoredMessage {
  const extra = r.extra ? (JSON.parse(String(r.extra)) as Record<string, unknown>) : {};
  const role = String(r.role);
  const content = r.content === null ? null : String(r.content);
  let message: ChatMessage;
  if (role === "assistant") {
    message = { role, content };
    if (r.tool_calls) message.tool_calls = JSON.parse(String(r.tool_calls));
    if (r.reasoning !== null) message.reasoning = String(r.reasoning);
    if (extra.thinking_blocks) message.thinking_blocks = extra.thinking_blocks as never;
    if (extra.reasoning_items) message.reasoning_items = extra.reasoning_items as never;
  } else if (role === "tool") {
    message = { role, tool_call_id: String(r.tool_call_id ?? ""), content: content ?? "" };
    if (r.tool_name !== null) message.name = String(r.tool_name);
  } else if (role === "user") {
    message = { role, content: extra.content_parts ? (extra.content_parts as never) : (content ?? "") };
  } else {
    message = { role: "system", content: content ?? "" };
  }
  return {
    id: Number(r.id),
    sessionId: String(r.session_id),
    seq: Number(r.seq),
    createdAt: Number(r.created_at),
    message,
  };
}

/** The default store: SQLite through node:sqlite, WAL, one file per profile (HERMES_HOME/state.db). */
export class SqliteSessionStore implements SessionStore {
  private readonly db: DatabaseSync;
  private readonly stmts = new Map<string, StatementSync>();
  private readonly nextSeq = new Map<string, number>();

  /** Opens (and migrates) the database. Throws StateStoreError; never deletes or rewrites a bad file. */
  constructor(readonly path: string) {
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
    return byTitle ? toSession(byTitle) : undefined;
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
    const extra: Record<string, unknown> = {};
    let content: string | null;
    let toolCalls: string | null = null;
    let toolCallId: string | null = null;
    let toolName: string | null = null;
    let reasoning: string | null = null;
    if (m.role === "assistant") {
      content = m.content;
      if (m.tool_calls?.length) toolCalls = JSON.stringify(m.tool_calls);
      reasoning = m.reasoning ?? null;
      if (m.thinking_blocks?.length) extra.thinking_blocks = m.thinking_blocks;
      if (m.reasoning_items?.length) extra.reasoning_items = m.reasoning_items;
    } else if (m.role === "tool") {
      content = m.content;
      toolCallId = m.tool_call_id;
      toolName = m.name ?? null;
    } else if (m.role === "user" && typeof m.content !== "string") {
      content = m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
      extra.content_parts = m.content;
    } else {
      content = m.content as string;
    }
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
      Object.keys(extra).length ? JSON.stringify(extra) : null,
      createdAt,
      meta.tokenCount ?? null,
      meta.finishReason ?? null,
    );
    this.st("UPDATE sessions SET message_count = message_count + 1, last_active_at = ? WHERE id = ?").run(
      createdAt,
      sessionId,
    );
    return { id: Number(r.lastInsertRowid), sessionId, seq, createdAt, message: m };
  }

  appendMessage(sessionId: string, message: ChatMessage, meta: MessageMeta = {}): StoredMessage {
    try {
      return this.tx(() => this.insert(sessionId, message, meta));
    } catch (err) {
      this.nextSeq.delete(sessionId);
      throw err;
    }
  }

  appendMessages(sessionId: string, messages: ChatMessage[]): void {
    try {
      this.tx(() => {
        for (const m of messages) this.insert(sessionId, m, {});
      });
    } catch (err) {
      this.nextSeq.delete(sessionId);
      throw err;
    }
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
    const words = toFtsQuery(text);
    // Words first (ranked by bm25); CJK text and substrings go through the trigram index.
    const attempts: Array<{ table: string; q: string }> = [];
    if (words && !CJK.test(text)) attempts.push({ table: "messages_fts", q: words });
    if ([...text].length >= 3) attempts.push({ table: "messages_fts_trigram", q: trigramQuery(text) });
    for (const { table, q } of attempts) {
      const hits = this.runSearch(table, q, opts, limit);
      if (hits.length) return hits;
    }
    return [];
  }

  private runSearch(table: string, q: string, opts: SearchOptions, limit: number): SearchHit[] {
    const where: string[] = [`${table} MATCH ?`];
    const params: SQLInputValue[] = [q];
    if (opts.role) {
      where.push("m.role = ?");
      params.push(opts.role);
    }
    for (const id of opts.excludeSessionIds ?? []) {
      where.push("m.session_id <> ?");
      params.push(id);
    }
    // Message ids grow with time: FTS5 walks rowids backwards without sorting every match. Substring
    // (trigram) hits have no useful rank and can be numerous: newest first as well.
    const byRowid = opts.sort === "recency" || table === "messages_fts_trigram";
    const order = byRowid ? `${table}.rowid DESC` : `${table}.rank`;
    const sql = `SELECT m.id, m.session_id, m.role, m.seq, m.created_at, s.title,
        snippet(${table}, -1, '>>>', '<<<', '…', 16) AS snip
      FROM ${table} JOIN messages m ON m.id = ${table}.rowid JOIN sessions s ON s.id = m.session_id
      WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ?`;
    params.push(limit);
    return (this.db.prepare(sql).all(...params) as Row[]).map((r) => ({
      messageId: Number(r.id),
      sessionId: String(r.session_id),
      sessionTitle: (r.title as string | null) ?? null,
      role: String(r.role),
      seq: Number(r.seq),
      createdAt: Number(r.created_at),
      snippet: String(r.snip ?? ""),
    }));
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
    this.stmts.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/** Opens the store at `path`; see SqliteSessionStore. */
export function openSqliteStore(path: string): SqliteSessionStore {
  return new SqliteSessionStore(path);
}
