import {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyRecord,
  type IdempotencyStore,
  type IdempotentResponse,
} from "../idempotency.js";
import { redactJsonText, redactValue } from "../redaction.js";
import type { SqliteDatabase } from "./database.js";
import type { Row } from "./rows.js";

/** A "running" record this long without an update belongs to an attempt that died. */
const DEFAULT_STALE_MS = 10 * 60 * 1000;
/** Claims between two prunes of expired records. */
const PRUNE_EVERY = 500;

/** The `api_idempotency` table on the shared connection. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  /** The first claim prunes (opening a store never writes). */
  private sincePrune = PRUNE_EVERY;

  constructor(
    private readonly core: SqliteDatabase,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
  ) {}

  async claim(
    callerId: string,
    key: string,
    opts: { fingerprint: string; staleAfterMs?: number },
  ): Promise<IdempotencyClaim> {
    if (++this.sincePrune >= PRUNE_EVERY) {
      this.sincePrune = 0;
      this.prune().catch(() => {
        // Expired records are ignored by reads; the next prune takes them.
      });
    }
    const staleMs = opts.staleAfterMs ?? DEFAULT_STALE_MS;
    return this.core.write(() => {
      const now = this.core.now();
      const existing = this.read(callerId, key, now);
      const abandoned = existing?.state === "running" && existing.updatedAt < now - staleMs;
      if (existing && !abandoned) {
        if (existing.fingerprint !== opts.fingerprint) return { outcome: "mismatch", record: existing };
        return existing.state === "done"
          ? { outcome: "done", record: existing }
          : { outcome: "running", record: existing };
      }
      this.core
        .st(
          `INSERT OR REPLACE INTO api_idempotency
             (caller_id, idempotency_key, fingerprint, session_id, status, response, created_at, updated_at)
           VALUES (?, ?, ?, NULL, 'running', NULL, ?, ?)`,
        )
        .run(callerId, key, opts.fingerprint, now, now);
      return { outcome: "claimed" };
    });
  }

  complete(callerId: string, key: string, response: IdempotentResponse, sessionId?: string): Promise<void> {
    const stored = JSON.stringify({
      status: response.status,
      headers: redactValue(response.headers, this.core.redact),
      body: redactJsonText(response.body, this.core.redact),
    });
    return this.core.write(
      () => {
        this.core
          .st(
            `UPDATE api_idempotency SET status = 'done', response = ?, session_id = COALESCE(?, session_id), updated_at = ?
             WHERE caller_id = ? AND idempotency_key = ?`,
          )
          .run(stored, sessionId ?? null, this.core.now(), callerId, key);
      },
      sessionId !== undefined ? { sessionId } : {},
    );
  }

  release(callerId: string, key: string): Promise<void> {
    return this.core.write(() => {
      this.core
        .st("DELETE FROM api_idempotency WHERE caller_id = ? AND idempotency_key = ? AND status = 'running'")
        .run(callerId, key);
    });
  }

  get(callerId: string, key: string): IdempotencyRecord | undefined {
    return this.read(callerId, key, this.core.now());
  }

  prune(): Promise<number> {
    const cutoff = this.core.now() - this.ttlMs;
    return this.core.write(() =>
      Number(this.core.st("DELETE FROM api_idempotency WHERE created_at < ?").run(cutoff).changes),
    );
  }

  private read(callerId: string, key: string, now: number): IdempotencyRecord | undefined {
    const row = this.core
      .st("SELECT * FROM api_idempotency WHERE caller_id = ? AND idempotency_key = ? AND created_at >= ?")
      .get(callerId, key, now - this.ttlMs) as Row | undefined;
    if (!row) return undefined;
    const base = {
      callerId,
      key,
      fingerprint: String(row.fingerprint ?? ""),
      sessionId: row.session_id === null ? null : String(row.session_id),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
    if (String(row.status) === "done" && typeof row.response === "string") {
      return { ...base, state: "done", response: JSON.parse(row.response) as IdempotentResponse };
    }
    return { ...base, state: "running" };
  }
}
