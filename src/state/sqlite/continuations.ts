import type { ContinuationHit, ContinuationStore } from "../continuations.js";
import type { SqliteDatabase } from "./database.js";
import type { Row } from "./rows.js";

/** Hashes asked for in one query (SQLite's parameter limit is far above it). */
const LOOKUP_BATCH = 500;

/** The `api_continuations` table on the shared connection. */
export class SqliteContinuationStore implements ContinuationStore {
  constructor(private readonly core: SqliteDatabase) {}

  find(callerId: string, prefixHashes: readonly string[]): ContinuationHit | undefined {
    for (let start = 0; start < prefixHashes.length; start += LOOKUP_BATCH) {
      const batch = prefixHashes.slice(start, start + LOOKUP_BATCH);
      const rows = this.core
        .st(
          `SELECT prefix_hash, session_id, message_count, created_at FROM api_continuations
           WHERE caller_id = ? AND prefix_hash IN (${batch.map(() => "?").join(",")})`,
        )
        .all(callerId, ...batch) as Row[];
      if (rows.length === 0) continue;
      const found = new Map(rows.map((r) => [String(r.prefix_hash), r]));
      // The caller's order decides (longest prefix first), not the table's.
      for (const hash of batch) {
        const r = found.get(hash);
        if (r)
          return {
            prefixHash: hash,
            sessionId: String(r.session_id),
            messageCount: Number(r.message_count),
            createdAt: Number(r.created_at),
          };
      }
    }
    return undefined;
  }

  record(
    callerId: string,
    entry: { prefixHash: string; sessionId: string; messageCount: number },
  ): Promise<void> {
    const at = this.core.now();
    return this.core.write(
      () => {
        this.core
          .st(
            `INSERT INTO api_continuations (caller_id, prefix_hash, session_id, message_count, created_at)
             VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (caller_id, prefix_hash) DO UPDATE SET session_id = excluded.session_id,
               message_count = excluded.message_count, created_at = excluded.created_at`,
          )
          .run(callerId, entry.prefixHash, entry.sessionId, entry.messageCount, at);
      },
      { sessionId: entry.sessionId },
    );
  }
}
