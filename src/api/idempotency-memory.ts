/**
 * Idempotency records kept in this process's memory: what the API server uses when state.db could
 * not be opened, so retries are still answered once while the process lives. Same contract as
 * the store's table (state/idempotency.ts), records expiring after IDEMPOTENCY_TTL_MS.
 */
import {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyRecord,
  type IdempotencyStore,
  type IdempotentResponse,
} from "../state/idempotency.js";

/** Records kept at most; the oldest go first past it. */
const MAX_RECORDS = 10_000;

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  private id = (callerId: string, key: string): string => `${callerId}\u0000${key}`;

  get(callerId: string, key: string): IdempotencyRecord | undefined {
    const record = this.records.get(this.id(callerId, key));
    if (!record || this.now() - record.createdAt > IDEMPOTENCY_TTL_MS) return undefined;
    return record;
  }

  async claim(
    callerId: string,
    key: string,
    opts: { fingerprint: string; staleAfterMs?: number },
  ): Promise<IdempotencyClaim> {
    const now = this.now();
    const existing = this.get(callerId, key);
    const stale =
      existing?.state === "running" && now - existing.updatedAt > (opts.staleAfterMs ?? 10 * 60_000);
    if (existing && !stale) {
      if (existing.fingerprint !== opts.fingerprint) return { outcome: "mismatch", record: existing };
      return existing.state === "done"
        ? { outcome: "done", record: existing }
        : { outcome: "running", record: existing };
    }
    const id = this.id(callerId, key);
    this.records.delete(id);
    this.records.set(id, {
      callerId,
      key,
      fingerprint: opts.fingerprint,
      sessionId: null,
      createdAt: now,
      updatedAt: now,
      state: "running",
    });
    if (this.records.size > MAX_RECORDS) this.records.delete(this.records.keys().next().value as string);
    return { outcome: "claimed" };
  }

  async complete(
    callerId: string,
    key: string,
    response: IdempotentResponse,
    sessionId?: string,
  ): Promise<void> {
    const record = this.records.get(this.id(callerId, key));
    if (!record) return;
    this.records.set(this.id(callerId, key), {
      ...record,
      sessionId: sessionId ?? record.sessionId,
      updatedAt: this.now(),
      state: "done",
      response,
    });
  }

  async release(callerId: string, key: string): Promise<void> {
    this.records.delete(this.id(callerId, key));
  }

  async prune(): Promise<number> {
    let n = 0;
    for (const [id, record] of this.records) {
      if (this.now() - record.createdAt <= IDEMPOTENCY_TTL_MS) continue;
      this.records.delete(id);
      n++;
    }
    return n;
  }
}
