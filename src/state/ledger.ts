/**
 * The gateway's delivery ledger in state.db. Inbound: every platform update once, by (platform,
 * update id), so a redelivered update is never answered twice, even across restarts; its payload is
 * kept so what a crash interrupted can run again. Outbound: every logical message is recorded, keyed
 * by an idempotency key, BEFORE its first send; each chunk is marked as it goes out, so a restart
 * resumes at the first unsent chunk and never sends one twice. Rows older than the retention window
 * (a week) are pruned as the ledger is written.
 *
 * The ledger knows messages only by the fields below; what else they carry is the front end's JSON,
 * stored redacted and given back as it was written (`In`, `Body`).
 */

export type InboundStatus = "received" | "processing" | "done" | "skipped" | "failed";
export type OutboundStatus = "pending" | "sent" | "failed";

/** What the ledger reads of an inbound update. */
export interface LedgerInbound {
  platform: string;
  /** The platform's unique id of the update (Telegram's update_id). */
  updateId: string;
  chatId: string;
}

/** What the ledger reads of an outbound body: text already split into chunks, or one file. */
export interface LedgerOutboundBody {
  kind: string;
  target: { chatId: string; threadId?: string };
  /** Chunks already sent (they are never sent again). */
  sent: number;
  /** A text body's chunks: the message is sent when all are; a body without chunks is one part. */
  chunks?: readonly string[];
}

export interface OutboundRecord<Body extends LedgerOutboundBody = LedgerOutboundBody> {
  id: number;
  key: string;
  platform: string;
  sessionKey: string | null;
  status: OutboundStatus;
  /**
   * The body as recorded. A row this process recorded and has not finished comes back with the
   * caller's own text; any other comes back as stored (redacted).
   */
  body: Body;
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

export const LEDGER_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Writes resolve once committed and reject with StateStoreError "locked" when state.db's write lock
 * stayed with another process past the store's write deadline: nothing was recorded, and a caller
 * that acknowledges its sender only after recording must not acknowledge. Reads never wait.
 */
export interface DeliveryLedger<
  In extends LedgerInbound = LedgerInbound,
  Body extends LedgerOutboundBody = LedgerOutboundBody,
> {
  // ---- inbound ----

  /** Records an update: "duplicate" when it was recorded before (do nothing with it). */
  recordInbound(m: In, sessionKey?: string): Promise<"new" | "duplicate">;
  markInbound(platform: string, updateId: string, status: Exclude<InboundStatus, "received">): Promise<void>;
  /**
   * A turn starts on the update: `processing`, with the user message it runs kept in the payload
   * and the session it runs in (default: the one its session key routes to), which deleting that
   * session clears.
   */
  startInbound(platform: string, updateId: string, preparedText: string, sessionId?: string): Promise<void>;
  inboundStatus(platform: string, updateId: string): InboundStatus | undefined;
  /**
   * Updates recorded but never finished (the process stopped while they waited or ran), oldest
   * first, each with `preparedText` when its turn had started. A row whose payload cannot be read
   * is marked failed rather than returned.
   */
  unfinishedInbound(platform?: string): Array<In & { preparedText?: string }>;

  // ---- outbound ----

  /**
   * Records a message before anything is sent. Idempotent on `key`: a key seen before resolves with
   * the existing row (whatever its state) and records nothing. It belongs to `sessionId` (default:
   * the session its session key routes to now); deleting that session deletes it, sent or not.
   */
  recordOutbound(entry: {
    key: string;
    platform: string;
    sessionKey?: string;
    sessionId?: string;
    body: Body;
  }): Promise<{ record: OutboundRecord<Body>; created: boolean }>;
  /** The row of `key`, or undefined. */
  outbound(key: string): OutboundRecord<Body> | undefined;
  /** Pending rows of a platform, oldest first (what a restart has to send). */
  pendingOutbound(platform: string): OutboundRecord<Body>[];
  /**
   * Marks chunk `index` as sent with the platform's id; the row becomes `sent` with its last chunk.
   * Rejects (and changes nothing) when `index` is not the next unsent chunk.
   */
  markChunkSent(
    record: OutboundRecord<Body>,
    index: number,
    messageId: string,
  ): Promise<OutboundRecord<Body>>;
  /** Counts a failed attempt (the row stays pending and is retried, now or at the next start). */
  markAttemptFailed(record: OutboundRecord<Body>, error: string): Promise<void>;
  /** The platform refused the message for good: never retried. */
  markFailed(record: OutboundRecord<Body>, error: string): Promise<void>;
  stats(): LedgerStats;
  /** Deletes rows older than the retention window; resolves with how many went. */
  prune(): Promise<number>;
}
