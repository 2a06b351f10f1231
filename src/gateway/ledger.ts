import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import {
  openDatabase,
  SIDE_TABLE_CACHE_KIB,
  type Statements,
  statementCache,
} from "../state/sqlite/connection.js";
import type { Button, InboundMessage, OutboundFile, OutboundTarget, SendOptions } from "./types.js";

/**
 * The gateway's delivery ledger in state.db. Inbound: every platform update once, by (platform,
 * update_id), so a redelivered update is never answered twice, even across restarts; its payload is
 * kept so what a crash interrupted can run again. Outbound: every logical message is recorded, keyed
 * by an idempotency key, BEFORE its first send; each chunk is marked as it goes out, so a restart
 * resumes at the first unsent chunk and never sends one twice. Rows older than a week are pruned.
 */

export type InboundStatus = "received" | "processing" | "done" | "skipped" | "failed";
export type OutboundStatus = "pending" | "sent" | "failed";

/** What an outbound row carries: the text already split into chunks, or one file. */
export type OutboundBody =
  | {
      kind: "text";
      target: OutboundTarget;
      chunks: string[];
      /** Chunks already sent (they are never sent again). */
      sent: number;
      format?: SendOptions["format"];
      /** Under the last chunk. */
      buttons?: Button[][];
    }
  | { kind: "file"; target: OutboundTarget; file: OutboundFile; sent: number };

export interface OutboundRecord {
  id: number;
  key: string;
  platform: string;
  sessionKey: string | null;
  status: OutboundStatus;
  body: OutboundBody;
  /** Platform ids of the chunks sent so far, in order ("" for a chunk that needed no message). */
  messageIds: string[];
  attempts: number;
  lastError: string | null;
  createdAt: number;
}

export interface LedgerStats {
  /** Outbound messages recorded but not (fully) sent. */
  pending: number;
  /** Age of the oldest pending message in ms (null when none is pending). */
  oldestPendingAgeMs: number | null;
  /** Outbound messages that failed for good (within the retention window). */
  failed: number;
  /** Inbound updates recorded but not finished. */
  unfinishedInbound: number;
}

export interface DeliveryLedgerOptions {
  /** How long finished and unfinished rows are kept (default 7 days). */
  retentionMs?: number;
  /** How long a statement waits for another connection's write lock (default 5 s). */
  busyTimeoutMs?: number;
  now?: () => number;
}

export const LEDGER_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Inbound rows between two prunes of a running gateway. */
const PRUNE_EVERY = 1_000;

type Row = Record<string, SQLInputValue>;

/** The ledger's own connection to state.db, beside the runtime's session store. */
export class DeliveryLedger {
  private readonly st: Statements;
  private readonly now: () => number;
  private readonly retentionMs: number;
  /** Rows recorded since the last prune: a gateway that runs for weeks prunes as it goes. */
  private sincePrune = 0;

  private constructor(
    private readonly db: DatabaseSync,
    readonly path: string,
    options: DeliveryLedgerOptions,
  ) {
    this.st = statementCache(db);
    this.now = options.now ?? Date.now;
    this.retentionMs = options.retentionMs ?? LEDGER_RETENTION_MS;
    this.prune();
  }

  /** Opens (and migrates) state.db. Throws StateStoreError when it cannot. */
  static open(stateDbPath: string, options: DeliveryLedgerOptions = {}): DeliveryLedger {
    const waitMs = options.busyTimeoutMs ?? 5_000;
    const db = openDatabase(stateDbPath, waitMs, SIDE_TABLE_CACHE_KIB);
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(waitMs))}`);
    return new DeliveryLedger(db, stateDbPath, options);
  }

  /** Deletes rows older than the retention window; returns how many went. */
  prune(): number {
    this.sincePrune = 0;
    const cutoff = this.now() - this.retentionMs;
    const inbound = this.st("DELETE FROM gateway_inbound WHERE received_at < ?").run(cutoff);
    const outbound = this.st("DELETE FROM gateway_outbound WHERE created_at < ?").run(cutoff);
    return Number(inbound.changes) + Number(outbound.changes);
  }

  // ---- inbound ----

  /** Records an update; false when it was recorded before (a duplicate: do nothing with it). */
  recordInbound(m: InboundMessage, sessionKey?: string): boolean {
    const result = this.st(
      `INSERT OR IGNORE INTO gateway_inbound(platform, update_id, session_key, status, payload, received_at)
       VALUES (?, ?, ?, 'received', ?, ?)`,
    ).run(m.platform, m.updateId, sessionKey ?? null, JSON.stringify(m), this.now());
    if (++this.sincePrune >= PRUNE_EVERY) this.prune();
    return Number(result.changes) === 1;
  }

  markInbound(platform: string, updateId: string, status: Exclude<InboundStatus, "received">): void {
    const finished = status === "processing" ? null : this.now();
    this.st(
      "UPDATE gateway_inbound SET status = ?, finished_at = ? WHERE platform = ? AND update_id = ?",
    ).run(status, finished, platform, updateId);
  }

  /** A turn starts on the update: `processing`, with the user message it runs kept in the payload. */
  startInbound(platform: string, updateId: string, preparedText: string): void {
    this.st(
      `UPDATE gateway_inbound SET status = 'processing', finished_at = NULL,
         payload = json_set(coalesce(payload, '{}'), '$.preparedText', ?)
       WHERE platform = ? AND update_id = ?`,
    ).run(preparedText, platform, updateId);
  }

  inboundStatus(platform: string, updateId: string): InboundStatus | undefined {
    const row = this.st("SELECT status FROM gateway_inbound WHERE platform = ? AND update_id = ?").get(
      platform,
      updateId,
    ) as Row | undefined;
    return row ? (String(row.status) as InboundStatus) : undefined;
  }

  /**
   * Updates recorded but never finished (the process stopped while they waited or ran), oldest
   * first. A row whose payload cannot be read is marked failed rather than returned.
   */
  unfinishedInbound(platform?: string): InboundMessage[] {
    const rows = (
      platform === undefined
        ? this.st(
            "SELECT platform, update_id, payload FROM gateway_inbound WHERE status IN ('received','processing') ORDER BY received_at, rowid",
          ).all()
        : this.st(
            "SELECT platform, update_id, payload FROM gateway_inbound WHERE status IN ('received','processing') AND platform = ? ORDER BY received_at, rowid",
          ).all(platform)
    ) as Row[];
    const out: InboundMessage[] = [];
    for (const row of rows) {
      const message = parseInbound(row.payload ?? null);
      if (message) out.push(message);
      else this.markInbound(String(row.platform), String(row.update_id), "failed");
    }
    return out;
  }

  // ---- outbound ----

  /**
   * Records a message before anything is sent. Idempotent on `key`: a key seen before returns the
   * existing row (whatever its state) and records nothing.
   */
  recordOutbound(entry: { key: string; platform: string; sessionKey?: string; body: OutboundBody }): {
    record: OutboundRecord;
    created: boolean;
  } {
    const { body } = entry;
    const result = this.st(
      `INSERT OR IGNORE INTO gateway_outbound(idempotency_key, platform, chat_id, thread_id, session_key, kind, body,
         status, platform_message_ids, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', '[]', ?)`,
    ).run(
      entry.key,
      entry.platform,
      body.target.chatId,
      body.target.threadId ?? null,
      entry.sessionKey ?? null,
      body.kind,
      JSON.stringify(body),
      this.now(),
    );
    const record = this.outbound(entry.key);
    if (!record)
      throw new Error(`delivery ledger: the row for ${entry.key} vanished right after it was recorded`);
    if (Number(result.changes) === 1 && outboundDone(record.body))
      return { record: this.finish(record), created: true };
    return { record, created: Number(result.changes) === 1 };
  }

  /** The row of `key`, or undefined. */
  outbound(key: string): OutboundRecord | undefined {
    const row = this.st("SELECT * FROM gateway_outbound WHERE idempotency_key = ?").get(key) as
      | Row
      | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Pending rows of a platform, oldest first (what a restart has to send). */
  pendingOutbound(platform: string): OutboundRecord[] {
    const rows = this.st(
      "SELECT * FROM gateway_outbound WHERE status = 'pending' AND platform = ? ORDER BY created_at, id",
    ).all(platform) as Row[];
    const out: OutboundRecord[] = [];
    for (const row of rows) {
      try {
        out.push(toRecord(row));
      } catch (err) {
        // A row no one can read would block nothing but would be retried forever: retire it.
        this.st("UPDATE gateway_outbound SET status = 'failed', last_error = ? WHERE id = ?").run(
          `unreadable row: ${(err as Error).message}`,
          Number(row.id),
        );
      }
    }
    return out;
  }

  /**
   * Marks chunk `index` as sent with the platform's id; the row becomes `sent` with its last chunk.
   * One transaction, so the count and the ids never disagree.
   */
  markChunkSent(record: OutboundRecord, index: number, messageId: string): OutboundRecord {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const fresh = this.outbound(record.key);
      if (!fresh) throw new Error(`delivery ledger: no row for ${record.key}`);
      if (index !== fresh.body.sent) {
        throw new Error(
          `delivery ledger: chunk ${index} of ${record.key} is not next (next is ${fresh.body.sent})`,
        );
      }
      const body = { ...fresh.body, sent: index + 1 };
      const ids = [...fresh.messageIds, messageId];
      const done = outboundDone(body);
      this.st(
        `UPDATE gateway_outbound SET body = ?, platform_message_ids = ?, status = ?, sent_at = ?, last_error = NULL
         WHERE id = ?`,
      ).run(
        JSON.stringify(body),
        JSON.stringify(ids),
        done ? "sent" : "pending",
        done ? this.now() : null,
        fresh.id,
      );
      this.db.exec("COMMIT");
      return { ...fresh, body, messageIds: ids, status: done ? "sent" : "pending", lastError: null };
    } catch (err) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw err;
    }
  }

  /** Counts a failed attempt (the row stays pending and is retried, now or at the next start). */
  markAttemptFailed(record: OutboundRecord, error: string): void {
    this.st("UPDATE gateway_outbound SET attempts = attempts + 1, last_error = ? WHERE id = ?").run(
      error.slice(0, 2000),
      record.id,
    );
  }

  /** The platform refused the message for good: never retried. */
  markFailed(record: OutboundRecord, error: string): void {
    this.st(
      "UPDATE gateway_outbound SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?",
    ).run(error.slice(0, 2000), record.id);
  }

  stats(): LedgerStats {
    const pending = this.st(
      "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM gateway_outbound WHERE status = 'pending'",
    ).get() as Row;
    const failed = this.st("SELECT COUNT(*) AS n FROM gateway_outbound WHERE status = 'failed'").get() as Row;
    const inbound = this.st(
      "SELECT COUNT(*) AS n FROM gateway_inbound WHERE status IN ('received','processing')",
    ).get() as Row;
    const oldest = pending.oldest === null ? null : Number(pending.oldest);
    return {
      pending: Number(pending.n),
      oldestPendingAgeMs: oldest === null ? null : Math.max(0, this.now() - oldest),
      failed: Number(failed.n),
      unfinishedInbound: Number(inbound.n),
    };
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private finish(record: OutboundRecord): OutboundRecord {
    this.st("UPDATE gateway_outbound SET status = 'sent', sent_at = ? WHERE id = ?").run(
      this.now(),
      record.id,
    );
    return { ...record, status: "sent" };
  }
}

function outboundDone(body: OutboundBody): boolean {
  return body.sent >= (body.kind === "text" ? body.chunks.length : 1);
}

function parseInbound(payload: SQLInputValue): InboundMessage | undefined {
  if (typeof payload !== "string") return undefined;
  try {
    const m = JSON.parse(payload) as InboundMessage;
    return typeof m?.platform === "string" && typeof m.updateId === "string" && typeof m.chatId === "string"
      ? m
      : undefined;
  } catch {
    return undefined;
  }
}

function toRecord(row: Row): OutboundRecord {
  return {
    id: Number(row.id),
    key: String(row.idempotency_key),
    platform: String(row.platform),
    sessionKey: row.session_key === null ? null : String(row.session_key),
    status: String(row.status) as OutboundStatus,
    body: JSON.parse(String(row.body)) as OutboundBody,
    messageIds: JSON.parse(String(row.platform_message_ids ?? "[]")) as string[],
    attempts: Number(row.attempts),
    lastError: row.last_error === null ? null : String(row.last_error),
    createdAt: Number(row.created_at),
  };
}
