/**
 * Stored Responses (`store: true`, the default) in state.db's `api_responses` table: the response
 * object for GET /v1/responses/{id}, and the conversation after it, which a later request's
 * `previous_response_id` continues. Only the newest `keep` responses stay.
 */
import type { DatabaseSync } from "node:sqlite";
import type { ChatMessage } from "../llm/types.js";
import {
  openDatabase,
  SIDE_TABLE_CACHE_KIB,
  type Statements,
  statementCache,
} from "../state/sqlite/connection.js";

/** How long a statement waits for another process's write lock (the writes are one row). */
const LOCK_WAIT_MS = 2000;

export interface StoredResponse {
  id: string;
  previousResponseId: string | null;
  /** The state.db session of the run that produced it. */
  sessionId: string | null;
  model: string;
  /** The conversation after this response (no system prompt, no caller instructions). */
  conversation: ChatMessage[];
  /** The Responses API object, as returned. */
  response: Record<string, unknown>;
  createdAt: number;
}

export class ResponseStore {
  private readonly sql: Statements;

  private constructor(private readonly db: DatabaseSync) {
    this.sql = statementCache(db);
  }

  /** Opens (and migrates) state.db. Throws StateStoreError. */
  static open(stateDbPath: string): ResponseStore {
    return new ResponseStore(openDatabase(stateDbPath, LOCK_WAIT_MS, SIDE_TABLE_CACHE_KIB));
  }

  /** Saves a response and drops all but the newest `keep`. Throws on a database error. */
  save(r: StoredResponse, keep: number): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      this.sql(
        `INSERT OR REPLACE INTO api_responses (id, previous_response_id, session_id, model, conversation, response, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        r.id,
        r.previousResponseId,
        r.sessionId,
        r.model,
        JSON.stringify(r.conversation),
        JSON.stringify(r.response),
        r.createdAt,
      );
      this.sql(
        `DELETE FROM api_responses WHERE id NOT IN
           (SELECT id FROM api_responses ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
      ).run(keep);
      this.db.exec("COMMIT");
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  get(id: string): StoredResponse | undefined {
    const row = this.sql(
      "SELECT id, previous_response_id, session_id, model, conversation, response, created_at FROM api_responses WHERE id = ?",
    ).get(id) as Record<string, string | number | null> | undefined;
    if (!row) return undefined;
    return {
      id: String(row.id),
      previousResponseId: row.previous_response_id === null ? null : String(row.previous_response_id),
      sessionId: row.session_id === null ? null : String(row.session_id),
      model: String(row.model ?? ""),
      conversation: JSON.parse(String(row.conversation)) as ChatMessage[],
      response: JSON.parse(String(row.response)) as Record<string, unknown>,
      createdAt: Number(row.created_at),
    };
  }

  delete(id: string): boolean {
    return Number(this.sql("DELETE FROM api_responses WHERE id = ?").run(id).changes) > 0;
  }

  count(): number {
    const row = this.sql("SELECT COUNT(*) AS n FROM api_responses").get() as { n: number } | undefined;
    return Number(row?.n ?? 0);
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // Already closed.
    }
  }
}
