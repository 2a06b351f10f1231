import type { DatabaseSync } from "node:sqlite";
import type { SearchHit, SearchOptions } from "../store.js";
import type { Statements } from "./connection.js";
import { CJK, type Row, toFtsQuery, trigramQuery } from "./rows.js";
import { runFtsSearch } from "./search.js";

/**
 * The two FTS5 indexes (unicode61 words, trigram substrings/CJK), filled in batches behind a
 * watermark (fts_state.indexed_upto, schema 2): every row with a larger id is not indexed yet.
 */
export class FtsIndex {
  /**
   * Last watermark seen. Another process only moves it forward, so a stale value can only make an
   * append look at the real one early, never skip indexing.
   */
  private knownUpto = 0;

  constructor(
    private readonly db: DatabaseSync,
    private readonly st: Statements,
    /** Unindexed rows that make an append index them in its own transaction. */
    private readonly batch: number,
  ) {}

  /** A transaction failed: what it indexed was rolled back with it. */
  forget(): void {
    this.knownUpto = 0;
  }

  /** Inside an append's transaction: indexes the waiting rows once a batch of them is there. */
  afterAppend(lastId: number): void {
    if (lastId - this.knownUpto >= this.batch) this.indexUpTo(lastId);
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

  /** Indexes every waiting row in a transaction of `tx`; returns the id span indexed. */
  indexPending(tx: <T>(fn: () => T) => T): number {
    const max = this.st("SELECT MAX(id) AS m FROM messages").get() as Row;
    if (max.m === null || Number(max.m) <= this.indexedUpto()) return 0;
    return tx(() => {
      const top = Number((this.st("SELECT MAX(id) AS m FROM messages").get() as Row).m ?? 0);
      return this.indexUpTo(top);
    });
  }

  /** Words first (ranked by bm25); CJK text and substrings go through the trigram index. */
  search(opts: SearchOptions, tx: <T>(fn: () => T) => T): SearchHit[] {
    const limit = Math.max(1, Math.min(opts.limit ?? 10, 100));
    const text = opts.query.trim();
    if (!text) return [];
    try {
      this.indexPending(tx);
    } catch {
      // Busy with another writer: search what is indexed; the next search catches up.
    }
    const words = toFtsQuery(text);
    const attempts: Array<{ table: string; q: string }> = [];
    if (words && !CJK.test(text)) attempts.push({ table: "messages_fts", q: words });
    if ([...text].length >= 3) attempts.push({ table: "messages_fts_trigram", q: trigramQuery(text) });
    for (const { table, q } of attempts) {
      const hits = runFtsSearch(this.db, table, q, opts, limit);
      if (hits.length) return hits;
    }
    return [];
  }
}
