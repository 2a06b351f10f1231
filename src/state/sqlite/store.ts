import type { ChatMessage } from "../../llm/types.js";
import { noRedaction, redactJsonText, redactMessage, redactMessages, redactValue } from "../redaction.js";
import type {
  CloseReport,
  InnerToolCall,
  MessageMeta,
  NewSession,
  SearchHit,
  SearchOptions,
  SessionRecord,
  StateStore,
  StateStoreOptions,
  StoredInnerToolCall,
  StoredMessage,
  StoreStats,
  UsageDelta,
  WriteEvent,
} from "../store.js";
import { deleteSessionRows } from "./cascade.js";
import { schemaVersion } from "./connection.js";
import { SqliteContinuationStore } from "./continuations.js";
import { SqliteDatabase } from "./database.js";
import { FtsIndex } from "./fts.js";
import { SqliteIdempotencyStore } from "./idempotency.js";
import { SqliteDeliveryLedger } from "./ledger.js";
import { deleteMessagesFrom, insertInnerToolCall, insertMessage } from "./message-writes.js";
import { SqlitePairingTables } from "./pairing.js";
import { findByPrefixOrTitle, latestSession, listSessions, messagesAround, readStats } from "./queries.js";
import { SqliteResponseStore } from "./responses.js";
import { SqliteRoutingStore } from "./routing.js";
import { newSessionRecord, type Row, toInnerToolCall, toMessage, toSession } from "./rows.js";
import type { SessionWrite } from "./write-queue.js";

export { toFtsQuery } from "./rows.js";

export interface SqliteStoreOptions extends StateStoreOptions {
  /**
   * Unindexed messages that make an append index them in the same transaction (default 512).
   * Batching is what makes indexing cheap: one FTS5 segment per batch instead of one per turn.
   * `Infinity` leaves indexing to `indexPending()` and searches (benchmarks).
   */
  indexBatch?: number;
  /** How long a write waits for another process's lock before it is queued instead (default 10 ms). */
  busyTimeoutMs?: number;
  /** How long opening waits for the lock when the file needs migrating (default 5 s). */
  waitMs?: number;
  /** How long `close()` retries queued writes (default 3 s). */
  closeWaitMs?: number;
  /** How long the delivery ledger keeps rows (default 7 days). */
  ledgerRetentionMs?: number;
}

/** What a queued conversation write is about, besides the work itself. */
type WriteInfo = Omit<SessionWrite, "kind" | "run" | "queuedAt">;

/**
 * The default store: SQLite through node:sqlite, WAL, one file per profile (HERMES_HOME/state.db).
 * One connection (database.ts) serves the sessions and every side table; every write is one
 * BEGIN IMMEDIATE transaction, so what it reads (the next seq) is what it writes after.
 */
export class SqliteSessionStore implements StateStore {
  private readonly core: SqliteDatabase;
  private readonly closeWaitMs: number;
  private readonly fts: FtsIndex;
  private readonly redact: (text: string) => string;
  /** Messages were written through this handle: close() indexes what is left. */
  private wrote = false;
  private closing: Promise<CloseReport> | undefined;
  readonly ledger: SqliteDeliveryLedger;
  readonly routing: SqliteRoutingStore;
  readonly responses: SqliteResponseStore;
  readonly idempotency: SqliteIdempotencyStore;
  readonly continuations: SqliteContinuationStore;
  readonly pairing: SqlitePairingTables;

  /** Opens (and migrates) the database. Throws StateStoreError; never deletes or rewrites a bad file. */
  constructor(
    readonly path: string,
    opts: SqliteStoreOptions = {},
  ) {
    this.redact = opts.redact ?? noRedaction;
    this.closeWaitMs = opts.closeWaitMs ?? 3_000;
    this.core = new SqliteDatabase(path, {
      busyTimeoutMs: opts.busyTimeoutMs ?? 10,
      openWaitMs: opts.waitMs ?? 5_000,
      writeDeadlineMs: opts.writeDeadlineMs ?? 5_000,
      redact: this.redact,
      now: opts.now ?? Date.now,
    });
    this.fts = new FtsIndex(this.core.db, this.core.st, opts.indexBatch ?? 512);
    this.core.onRollback(() => this.fts.forget());
    this.ledger = new SqliteDeliveryLedger(
      this.core,
      opts.ledgerRetentionMs !== undefined ? { retentionMs: opts.ledgerRetentionMs } : {},
    );
    this.routing = new SqliteRoutingStore(this.core);
    this.responses = new SqliteResponseStore(this.core);
    this.idempotency = new SqliteIdempotencyStore(this.core);
    this.continuations = new SqliteContinuationStore(this.core);
    this.pairing = new SqlitePairingTables(this.core);
  }

  get schemaVersion(): number {
    return schemaVersion(this.core.db);
  }

  private get st() {
    return this.core.st;
  }

  private submit<T>(info: WriteInfo, run: () => T): { value: T } | undefined {
    return this.core.submit(info, run);
  }

  /** Before reading a session with queued writes: one more try to write them. */
  private catchUp(sessionId: string): SessionWrite[] {
    const queue = this.core.queue;
    if (queue.pending(sessionId) === 0 || this.core.drainWithoutWaiting()) return [];
    return queue.waitingFor(sessionId);
  }

  private title(title: string | undefined): string | undefined {
    return title === undefined ? undefined : this.redact(title);
  }

  createSession(s: NewSession): SessionRecord {
    const record = newSessionRecord(s);
    const stored = {
      ...record,
      title: record.title === null ? null : this.redact(record.title),
      systemPrompt: record.systemPrompt === null ? null : this.redact(record.systemPrompt),
    };
    const done = this.submit({ sessionId: s.id, what: "session", session: stored }, () =>
      this.st(
        `INSERT INTO sessions (id, source, model, provider, title, parent_session_id, cwd, system_prompt, started_at,
         user_id, chat_id, session_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        stored.id,
        stored.source,
        stored.model,
        stored.provider,
        stored.title,
        stored.parentSessionId,
        stored.cwd,
        stored.systemPrompt,
        stored.startedAt,
        stored.userId ?? null,
        stored.chatId ?? null,
        stored.sessionKey ?? null,
      ),
    );
    return (done && this.getSession(s.id)) || stored;
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

  async renameSession(id: string, title: string): Promise<boolean> {
    const stored = this.redact(title);
    const changes = await this.core.write(
      () => this.st("UPDATE sessions SET title = ? WHERE id = ?").run(stored, id).changes,
      { sessionId: id },
    );
    return Number(changes) > 0;
  }

  setTitle(id: string, title: string): void {
    const stored = this.redact(title);
    this.submit({ sessionId: id, what: "session_update" }, () =>
      this.st("UPDATE sessions SET title = ? WHERE id = ?").run(stored, id),
    );
  }

  setTitleIfUnset(id: string, title: string): boolean {
    const stored = this.redact(title);
    const sql = "UPDATE sessions SET title = ? WHERE id = ? AND (title IS NULL OR title = '')";
    const done = this.submit(
      { sessionId: id, what: "session_update" },
      () => this.st(sql).run(stored, id).changes > 0,
    );
    return done ? done.value : !this.getSession(id)?.title;
  }

  setSystemPrompt(id: string, systemPrompt: string): void {
    const stored = this.redact(systemPrompt);
    this.submit({ sessionId: id, what: "session_update" }, () =>
      this.st("UPDATE sessions SET system_prompt = ? WHERE id = ?").run(stored, id),
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

  deleteSession(id: string): Promise<boolean> {
    return this.core.write(() => deleteSessionRows(this.st, id, this.core.now()), { sessionId: id });
  }

  prune(olderThan: number, opts: { source?: string } = {}): Promise<number> {
    return this.core.write(() => {
      const ids = (
        opts.source
          ? this.st("SELECT id FROM sessions WHERE started_at < ? AND source = ?").all(olderThan, opts.source)
          : this.st("SELECT id FROM sessions WHERE started_at < ?").all(olderThan)
      ) as Row[];
      for (const r of ids) deleteSessionRows(this.st, String(r.id), this.core.now());
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
    const stored = redactMessage(message, this.redact);
    const done = this.submit({ sessionId, what: "message", messages: [stored], createdAt }, () => {
      const row = insertMessage(this.st, sessionId, stored, meta, createdAt);
      this.afterInsert(sessionId, 1, createdAt, row.id);
      return row;
    });
    return done?.value;
  }

  appendMessages(sessionId: string, messages: ChatMessage[]): void {
    if (messages.length === 0) return;
    const createdAt = Date.now();
    const stored = redactMessages(messages, this.redact);
    this.submit({ sessionId, what: "message", messages: stored, createdAt }, () => {
      let last: StoredMessage | undefined;
      for (const m of stored) last = insertMessage(this.st, sessionId, m, {}, createdAt);
      this.afterInsert(sessionId, stored.length, createdAt, last!.id);
    });
  }

  appendInnerToolCall(sessionId: string, call: InnerToolCall): void {
    const at = Date.now();
    const stored: InnerToolCall = {
      ...call,
      args: redactValue(call.args, this.redact),
      result: redactJsonText(call.result, this.redact),
    };
    this.submit({ sessionId, what: "inner_tool_call" }, () =>
      insertInnerToolCall(this.st, sessionId, stored, at),
    );
  }

  loadInnerToolCalls(sessionId: string): StoredInnerToolCall[] {
    this.catchUp(sessionId);
    const rows = this.st("SELECT * FROM inner_tool_calls WHERE session_id = ? ORDER BY id").all(
      sessionId,
    ) as Row[];
    return rows.map(toInnerToolCall);
  }

  deleteMessagesFrom(sessionId: string, fromSeq: number): Promise<number> {
    return this.core.write(() => deleteMessagesFrom(this.st, sessionId, fromSeq), { sessionId });
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
    return this.fts.indexPending((fn) => this.core.tx(fn));
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
    return this.fts.search(opts, (fn) => this.core.tx(fn));
  }

  stats(): StoreStats {
    return readStats(this.st, this.path);
  }

  integrityCheck(): string {
    const rows = this.core.db.prepare("PRAGMA integrity_check").all() as Row[];
    return rows.map((r) => String(Object.values(r)[0])).join("\n");
  }

  pendingWrites(sessionId?: string): number {
    return this.core.queue.pending(sessionId);
  }

  watchWrites(sessionId: string, listener: (e: WriteEvent) => void): () => void {
    return this.core.queue.watch(sessionId, listener);
  }

  flush(timeoutMs = this.closeWaitMs): Promise<number> {
    return this.core.queue.flush(timeoutMs);
  }

  close(): Promise<CloseReport> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<CloseReport> {
    if (!this.core.isOpen) return { unwritten: [] };
    await this.core.queue.flush(this.closeWaitMs);
    const left = this.core.queue.abandon(() => this.core.closedError());
    if (this.wrote) {
      try {
        this.indexPending();
      } catch {
        // Left for the next search or append, which index from the watermark.
      }
    }
    this.core.db.close();
    return { unwritten: left.map(({ sessionId, what }) => ({ sessionId, what })) };
  }
}

/** Opens the store at `path`; see SqliteSessionStore. */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteSessionStore {
  return new SqliteSessionStore(path, opts);
}
