import type { ChatMessage } from "../../llm/types.js";
import { redactMessages, redactValue } from "../redaction.js";
import type { ResponseStore, StoredResponse } from "../responses.js";
import type { SqliteDatabase } from "./database.js";
import type { Row } from "./rows.js";

/** The `api_responses` table on the shared connection; what it keeps is redacted. */
export class SqliteResponseStore implements ResponseStore {
  constructor(private readonly core: SqliteDatabase) {}

  save(r: StoredResponse, keep: number): Promise<void> {
    const { redact } = this.core;
    const conversation = JSON.stringify(redactMessages(r.conversation, redact));
    const response = JSON.stringify(redactValue(r.response, redact));
    return this.core.write(() => {
      this.core
        .st(
          `INSERT OR REPLACE INTO api_responses (id, previous_response_id, session_id, model, conversation, response, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(r.id, r.previousResponseId, r.sessionId, r.model, conversation, response, r.createdAt);
      this.core
        .st(
          `DELETE FROM api_responses WHERE id NOT IN
             (SELECT id FROM api_responses ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
        )
        .run(keep);
    });
  }

  get(id: string): StoredResponse | undefined {
    const row = this.core
      .st(
        "SELECT id, previous_response_id, session_id, model, conversation, response, created_at FROM api_responses WHERE id = ?",
      )
      .get(id) as Row | undefined;
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

  async delete(id: string): Promise<boolean> {
    const changes = await this.core.write(
      () => this.core.st("DELETE FROM api_responses WHERE id = ?").run(id).changes,
    );
    return Number(changes) > 0;
  }

  count(): number {
    const row = this.core.st("SELECT COUNT(*) AS n FROM api_responses").get() as Row | undefined;
    return Number(row?.n ?? 0);
  }
}
