import type { SQLInputValue } from "node:sqlite";
import {
  type DeliveryLedger,
  type InboundStatus,
  LEDGER_RETENTION_MS,
  type LedgerInbound,
  type LedgerOutboundBody,
  type LedgerStats,
  type OutboundRecord,
  type OutboundStatus,
} from "../ledger.js";
import { redactValue } from "../redaction.js";
import type { SqliteDatabase } from "./database.js";
import { ROUTING_SCOPE } from "./routing.js";
import type { Row } from "./rows.js";

/** Inbound rows between two prunes of a running gateway. */
const PRUNE_EVERY = 1_000;

/** The delivery ledger's tables (gateway_inbound, gateway_outbound) on the shared connection. */
export class SqliteDeliveryLedger implements DeliveryLedger {
  private readonly retentionMs: number;
  /** Rows recorded since the last prune; the first write prunes (opening a store never writes). */
  private sincePrune = PRUNE_EVERY;
  /**
   * Bodies of outbound rows this process recorded and has not finished: the stored copy is
   * redacted, but what is sent now is what the caller wrote.
   */
  private readonly live = new Map<string, LedgerOutboundBody>();

  constructor(
    private readonly core: SqliteDatabase,
    options: { retentionMs?: number } = {},
  ) {
    this.retentionMs = options.retentionMs ?? LEDGER_RETENTION_MS;
  }

  prune(): Promise<number> {
    this.sincePrune = 0;
    const cutoff = this.core.now() - this.retentionMs;
    return this.core.write(() => {
      const inbound = this.core.st("DELETE FROM gateway_inbound WHERE received_at < ?").run(cutoff);
      const outbound = this.core.st("DELETE FROM gateway_outbound WHERE created_at < ?").run(cutoff);
      return Number(inbound.changes) + Number(outbound.changes);
    });
  }

  private maybePrune(): void {
    if (++this.sincePrune < PRUNE_EVERY) return;
    this.prune().catch(() => {
      // The next prune takes what this one could not.
    });
  }

  // ---- inbound ----

  async recordInbound(m: LedgerInbound, sessionKey?: string): Promise<"new" | "duplicate"> {
    this.maybePrune();
    // What identifies the update and where to answer stays as it is; everything else is redacted.
    const payload = JSON.stringify({
      ...redactValue(m, this.core.redact),
      platform: m.platform,
      updateId: m.updateId,
      chatId: m.chatId,
    });
    const at = this.core.now();
    const changes = await this.core.write(
      () =>
        this.core
          .st(
            `INSERT OR IGNORE INTO gateway_inbound(platform, update_id, session_key, status, payload, received_at)
             VALUES (?, ?, ?, 'received', ?, ?)`,
          )
          .run(m.platform, m.updateId, sessionKey ?? null, payload, at).changes,
    );
    return Number(changes) === 1 ? "new" : "duplicate";
  }

  markInbound(platform: string, updateId: string, status: Exclude<InboundStatus, "received">): Promise<void> {
    const finished = status === "processing" ? null : this.core.now();
    return this.core.write(() => {
      this.core
        .st("UPDATE gateway_inbound SET status = ?, finished_at = ? WHERE platform = ? AND update_id = ?")
        .run(status, finished, platform, updateId);
    });
  }

  startInbound(platform: string, updateId: string, preparedText: string, sessionId?: string): Promise<void> {
    const text = this.core.redact(preparedText);
    return this.core.write(() => {
      this.core
        .st(
          `UPDATE gateway_inbound SET status = 'processing', finished_at = NULL,
             payload = json_set(coalesce(payload, '{}'), '$.preparedText', ?),
             session_id = coalesce(?, (SELECT r.session_id FROM gateway_routing r
               WHERE r.scope = ? AND r.session_key = gateway_inbound.session_key), session_id)
           WHERE platform = ? AND update_id = ?`,
        )
        .run(text, sessionId ?? null, ROUTING_SCOPE, platform, updateId);
    });
  }

  inboundStatus(platform: string, updateId: string): InboundStatus | undefined {
    const row = this.core
      .st("SELECT status FROM gateway_inbound WHERE platform = ? AND update_id = ?")
      .get(platform, updateId) as Row | undefined;
    return row ? (String(row.status) as InboundStatus) : undefined;
  }

  unfinishedInbound(platform?: string): LedgerInbound[] {
    const rows = (
      platform === undefined
        ? this.core
            .st(
              "SELECT platform, update_id, payload FROM gateway_inbound WHERE status IN ('received','processing') ORDER BY received_at, rowid",
            )
            .all()
        : this.core
            .st(
              "SELECT platform, update_id, payload FROM gateway_inbound WHERE status IN ('received','processing') AND platform = ? ORDER BY received_at, rowid",
            )
            .all(platform)
    ) as Row[];
    const out: LedgerInbound[] = [];
    for (const row of rows) {
      const message = parseInbound(row.payload ?? null);
      if (message) out.push(message);
      else {
        this.markInbound(String(row.platform), String(row.update_id), "failed").catch(() => {
          // Still unreadable next time: marked then.
        });
      }
    }
    return out;
  }

  // ---- outbound ----

  async recordOutbound(entry: {
    key: string;
    platform: string;
    sessionKey?: string;
    sessionId?: string;
    body: LedgerOutboundBody;
  }): Promise<{ record: OutboundRecord; created: boolean }> {
    const { body } = entry;
    const stored = JSON.stringify({
      ...redactValue(body, this.core.redact),
      kind: body.kind,
      target: body.target,
      sent: body.sent,
    });
    const done = outboundDone(body);
    const at = this.core.now();
    const created = await this.core.write(() => {
      const result = this.core
        .st(
          `INSERT OR IGNORE INTO gateway_outbound(idempotency_key, platform, chat_id, thread_id, session_key,
             session_id, kind, body, status, platform_message_ids, created_at, sent_at)
           VALUES (?, ?, ?, ?, ?,
             coalesce(?, (SELECT session_id FROM gateway_routing WHERE scope = ? AND session_key = ?)),
             ?, ?, ?, '[]', ?, ?)`,
        )
        .run(
          entry.key,
          entry.platform,
          body.target.chatId,
          body.target.threadId ?? null,
          entry.sessionKey ?? null,
          entry.sessionId ?? null,
          ROUTING_SCOPE,
          entry.sessionKey ?? null,
          body.kind,
          stored,
          // A body with nothing left to send is recorded as sent.
          done ? "sent" : "pending",
          at,
          done ? at : null,
        );
      return Number(result.changes) === 1;
    });
    if (created && !done) this.live.set(entry.key, body);
    const record = this.outbound(entry.key);
    if (!record)
      throw new Error(`delivery ledger: the row for ${entry.key} vanished right after it was recorded`);
    return { record, created };
  }

  outbound(key: string): OutboundRecord | undefined {
    const row = this.core.st("SELECT * FROM gateway_outbound WHERE idempotency_key = ?").get(key) as
      | Row
      | undefined;
    return row ? this.toRecord(row) : undefined;
  }

  pendingOutbound(platform: string): OutboundRecord[] {
    const rows = this.core
      .st("SELECT * FROM gateway_outbound WHERE status = 'pending' AND platform = ? ORDER BY created_at, id")
      .all(platform) as Row[];
    const out: OutboundRecord[] = [];
    for (const row of rows) {
      try {
        out.push(this.toRecord(row));
      } catch (err) {
        // A row no one can read would be retried forever: retire it.
        const id = Number(row.id);
        const why = `unreadable row: ${(err as Error).message}`;
        this.core.background(() => {
          this.core
            .st("UPDATE gateway_outbound SET status = 'failed', last_error = ? WHERE id = ?")
            .run(why, id);
        });
      }
    }
    return out;
  }

  async markChunkSent(record: OutboundRecord, index: number, messageId: string): Promise<OutboundRecord> {
    const at = this.core.now();
    const { sent, ids } = await this.core.write(() => {
      const fresh = this.core
        .st("SELECT body, platform_message_ids FROM gateway_outbound WHERE idempotency_key = ?")
        .get(record.key) as Row | undefined;
      if (!fresh) throw new Error(`delivery ledger: no row for ${record.key}`);
      const storedBody = JSON.parse(String(fresh.body)) as LedgerOutboundBody;
      if (index !== storedBody.sent) {
        throw new Error(
          `delivery ledger: chunk ${index} of ${record.key} is not next (next is ${storedBody.sent})`,
        );
      }
      const next = { ...storedBody, sent: index + 1 };
      const messageIds = [...(JSON.parse(String(fresh.platform_message_ids ?? "[]")) as string[]), messageId];
      const done = outboundDone(next);
      this.core
        .st(
          `UPDATE gateway_outbound SET body = ?, platform_message_ids = ?, status = ?, sent_at = ?, last_error = NULL
           WHERE idempotency_key = ?`,
        )
        .run(
          JSON.stringify(next),
          JSON.stringify(messageIds),
          done ? "sent" : "pending",
          done ? at : null,
          record.key,
        );
      return { sent: index + 1, ids: messageIds };
    });
    const body = { ...record.body, sent };
    const done = outboundDone(body);
    if (done) this.live.delete(record.key);
    else if (this.live.has(record.key)) this.live.set(record.key, body);
    return { ...record, body, messageIds: ids, status: done ? "sent" : "pending", lastError: null };
  }

  markAttemptFailed(record: OutboundRecord, error: string): Promise<void> {
    const why = this.core.redact(error.slice(0, 2000));
    return this.core.write(() => {
      this.core
        .st("UPDATE gateway_outbound SET attempts = attempts + 1, last_error = ? WHERE id = ?")
        .run(why, record.id);
    });
  }

  async markFailed(record: OutboundRecord, error: string): Promise<void> {
    const why = this.core.redact(error.slice(0, 2000));
    await this.core.write(() => {
      this.core
        .st(
          "UPDATE gateway_outbound SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?",
        )
        .run(why, record.id);
    });
    this.live.delete(record.key);
  }

  stats(): LedgerStats {
    const st = this.core.st;
    const pending = st(
      "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM gateway_outbound WHERE status = 'pending'",
    ).get() as Row;
    const failed = st("SELECT COUNT(*) AS n FROM gateway_outbound WHERE status = 'failed'").get() as Row;
    const inbound = st(
      "SELECT COUNT(*) AS n FROM gateway_inbound WHERE status IN ('received','processing')",
    ).get() as Row;
    const oldest = pending.oldest === null ? null : Number(pending.oldest);
    return {
      pending: Number(pending.n),
      oldestPendingAgeMs: oldest === null ? null : Math.max(0, this.core.now() - oldest),
      failed: Number(failed.n),
      unfinishedInbound: Number(inbound.n),
    };
  }

  /** A row as a record; the caller's own body when this process recorded it and it is unfinished. */
  private toRecord(row: Row): OutboundRecord {
    const key = String(row.idempotency_key);
    const stored = JSON.parse(String(row.body)) as LedgerOutboundBody;
    const status = String(row.status) as OutboundStatus;
    const live = status === "pending" ? this.live.get(key) : undefined;
    return {
      id: Number(row.id),
      key,
      platform: String(row.platform),
      sessionKey: row.session_key === null ? null : String(row.session_key),
      status,
      body: live ? { ...live, sent: stored.sent } : stored,
      messageIds: JSON.parse(String(row.platform_message_ids ?? "[]")) as string[],
      attempts: Number(row.attempts),
      lastError: row.last_error === null ? null : String(row.last_error),
      createdAt: Number(row.created_at),
    };
  }
}

function outboundDone(body: LedgerOutboundBody): boolean {
  return body.sent >= (body.chunks ? body.chunks.length : 1);
}

function parseInbound(payload: SQLInputValue): LedgerInbound | undefined {
  if (typeof payload !== "string") return undefined;
  try {
    const m = JSON.parse(payload) as LedgerInbound;
    return typeof m?.platform === "string" && typeof m.updateId === "string" && typeof m.chatId === "string"
      ? m
      : undefined;
  } catch {
    return undefined;
  }
}
