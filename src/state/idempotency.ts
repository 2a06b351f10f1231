/**
 * The API server's Idempotency-Key records: a retried request (same caller, same key) gets the
 * first attempt's answer instead of running the agent again. A record is claimed before the run
 * ("running"), completed with the answer ("done") or released when the attempt should not count;
 * records expire after IDEMPOTENCY_TTL_MS and go with their session when it is deleted.
 */

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** The answer a completed request gave, replayed byte for byte (its body stored redacted). */
export interface IdempotentResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface RecordBase {
  callerId: string;
  key: string;
  /** What the caller says identifies the request (a hash of its body): a reuse with another is refused. */
  fingerprint: string;
  sessionId: string | null;
  createdAt: number;
  updatedAt: number;
}

export type IdempotencyRecord =
  | (RecordBase & { state: "running" })
  | (RecordBase & { state: "done"; response: IdempotentResponse });

export type IdempotencyClaim =
  /** The key is this caller's now: run the request, then `complete` or `release` it. */
  | { outcome: "claimed" }
  /** Another attempt holds the key and has not finished (wait and ask again, or answer 409). */
  | { outcome: "running"; record: IdempotencyRecord & { state: "running" } }
  /** The request was answered before: send `record.response` again. */
  | { outcome: "done"; record: IdempotencyRecord & { state: "done" } }
  /** The key was used with another request (another fingerprint): refuse it (422). */
  | { outcome: "mismatch"; record: IdempotencyRecord };

/**
 * Keys are scoped by caller: two callers never see each other's records. Writes resolve once
 * committed and reject with StateStoreError "locked" past the store's write deadline (a claim that
 * rejects claimed nothing). Reads never wait.
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a request, atomically: one of several concurrent attempts (in any process) gets
   * "claimed". A "running" record not updated for `staleAfterMs` (its process died mid-run; default
   * 10 min) and an expired one are taken over as if absent.
   */
  claim(
    callerId: string,
    key: string,
    opts: { fingerprint: string; staleAfterMs?: number },
  ): Promise<IdempotencyClaim>;
  /** Stores the answer of a claimed key; `sessionId` ties the record to the run's session. */
  complete(callerId: string, key: string, response: IdempotentResponse, sessionId?: string): Promise<void>;
  /** Forgets a claim whose attempt should not count (it failed before doing anything): a retry runs. */
  release(callerId: string, key: string): Promise<void>;
  /** The live (unexpired) record, or undefined. */
  get(callerId: string, key: string): IdempotencyRecord | undefined;
  /** Deletes expired records; resolves with how many went. */
  prune(): Promise<number>;
}
