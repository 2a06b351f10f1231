/**
 * Sending through the ledger: a message is recorded before its first send and each chunk is marked
 * as it goes out, so what a crash interrupts is finished at the next start (resumePending) without
 * sending any chunk twice. Transient failures back off and retry a bounded number of times, then the
 * row waits, still pending, for the next start; a permanent refusal marks it failed.
 */
import { existsSync } from "node:fs";
import type { OutboundBody, OutboundLedger, OutboundRecord } from "./ledger.js";
import { MIN_SPLIT_LIMIT, splitMessage } from "./split.js";
import {
  type Button,
  type DeliveryChannel,
  type DeliveryLog,
  type OutboundFile,
  type OutboundTarget,
  PlatformSendError,
  type SendOptions,
} from "./types.js";

export interface OutboundDeliveryOptions {
  log?: DeliveryLog;
  /** Tries per chunk before the message is left pending for the next start (default 5). */
  maxAttempts?: number;
  /** First backoff after a transient failure, doubled each time (default 1 s). */
  retryBaseMs?: number;
  /** Longest backoff, and the longest retry-after honoured (default 60 s). */
  retryMaxMs?: number;
}

export interface DeliverOptions {
  sessionKey?: string;
  /** Shown under the last chunk. */
  buttons?: Button[][];
  format?: SendOptions["format"];
}

/** A message already in the chat (a streamed preview) that chunk i of a delivery takes over by an edit. */
export interface ReusableMessage {
  messageId: string;
  /** What it shows now: an edit to the same text in the same format is skipped. */
  text: string;
  format?: SendOptions["format"];
}

/** Why deliver() gave up: `pending` (retried at the next start) or `failed` (refused for good). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly key: string,
    readonly state: "pending" | "failed",
  ) {
    super(message);
    this.name = "DeliveryError";
  }
}

/** A platform refusal that retrying cannot fix, or transient failures past the attempt budget. */
class GaveUp extends Error {
  constructor(
    readonly error: PlatformSendError,
    readonly permanent: boolean,
  ) {
    super(error.message);
  }
}

/** The platform could not parse the formatted text (Telegram: "can't parse entities"). */
export function isParseError(e: PlatformSendError): boolean {
  return !e.retryable && /pars|entit/i.test(e.message);
}

function asSendError(err: unknown): PlatformSendError {
  if (err instanceof PlatformSendError) return err;
  // Anything else an adapter throws (a socket reset, a timeout) may well pass on a later try.
  return new PlatformSendError(err instanceof Error ? err.message : String(err), true);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class OutboundDelivery {
  private readonly log: DeliveryLog;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  /** Deliveries running now, by key: a second caller waits for the first instead of sending again. */
  private readonly running = new Map<string, Promise<string[]>>();

  constructor(
    readonly adapter: DeliveryChannel,
    readonly ledger: OutboundLedger,
    options: OutboundDeliveryOptions = {},
  ) {
    this.log = options.log ?? (() => {});
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.retryBaseMs = options.retryBaseMs ?? 1_000;
    this.retryMaxMs = options.retryMaxMs ?? 60_000;
  }

  /** Records the message (idempotent on key) BEFORE sending, then sends it split at the platform limit. */
  async deliver(
    key: string,
    target: OutboundTarget,
    text: string,
    opts: DeliverOptions = {},
  ): Promise<string[]> {
    return this.complete(await this.record(key, target, text, opts));
  }

  /** Records a file message (idempotent on key), then sends it; resolves with its platform id. */
  async deliverFile(
    key: string,
    target: OutboundTarget,
    file: OutboundFile,
    sessionKey?: string,
  ): Promise<string | undefined> {
    const ids = await this.complete(await this.recordFile(key, target, file, sessionKey));
    return ids[0] || undefined;
  }

  /**
   * Records a text message without sending it (a key seen before returns its existing row). Rejects
   * with StateStoreError "locked" when state.db stayed locked: nothing is recorded, nothing sent.
   */
  async record(
    key: string,
    target: OutboundTarget,
    text: string,
    opts: DeliverOptions = {},
  ): Promise<OutboundRecord> {
    const limit = Math.max(MIN_SPLIT_LIMIT, this.adapter.maxMessageLength);
    const body: OutboundBody = { kind: "text", target, chunks: splitMessage(text, limit), sent: 0 };
    if (opts.format) body.format = opts.format;
    if (opts.buttons?.length) body.buttons = opts.buttons;
    const recorded = await this.ledger.recordOutbound({
      key,
      platform: this.adapter.name,
      ...(opts.sessionKey !== undefined ? { sessionKey: opts.sessionKey } : {}),
      body,
    });
    return recorded.record;
  }

  async recordFile(
    key: string,
    target: OutboundTarget,
    file: OutboundFile,
    sessionKey?: string,
  ): Promise<OutboundRecord> {
    const body: OutboundBody = { kind: "file", target, file, sent: 0 };
    const recorded = await this.ledger.recordOutbound({
      key,
      platform: this.adapter.name,
      ...(sessionKey !== undefined ? { sessionKey } : {}),
      body,
    });
    return recorded.record;
  }

  /**
   * Sends what of a recorded message is not sent yet, chunk by chunk, marking each in the ledger.
   * Chunk i may take over `reuse[i]` (an edit instead of a new message). Resolves with the ids of all
   * chunks; throws DeliveryError when it gives up.
   */
  complete(record: OutboundRecord, reuse: readonly ReusableMessage[] = []): Promise<string[]> {
    const running = this.running.get(record.key);
    if (running) return running;
    const run = this.sendRest(record, reuse).finally(() => this.running.delete(record.key));
    this.running.set(record.key, run);
    return run;
  }

  /**
   * At start: sends what an earlier run recorded but did not (fully) send, oldest first, never a
   * chunk twice. Stops at the first message that stays pending (the platform is unreachable; the
   * rest keeps its order for the next start). Resolves with the number of messages completed.
   */
  async resumePending(): Promise<number> {
    let completed = 0;
    for (const record of this.ledger.pendingOutbound(this.adapter.name)) {
      try {
        await this.complete(record);
        completed++;
      } catch (err) {
        if (err instanceof DeliveryError && err.state === "failed") continue;
        this.log("warn", "delivery: pending messages left for the next start", {
          platform: this.adapter.name,
          key: record.key,
          error: (err as Error).message,
        });
        break;
      }
    }
    if (completed > 0)
      this.log("info", "delivery: resumed pending messages", { platform: this.adapter.name, completed });
    return completed;
  }

  /** A failure that could not be written down: the row stays pending and is tried again. */
  private unmarked(record: OutboundRecord, err: unknown): void {
    this.log("warn", "delivery: a failed attempt was not recorded", {
      key: record.key,
      error: err instanceof Error ? err.message : String(err),
    });
  }

  private async sendRest(start: OutboundRecord, reuse: readonly ReusableMessage[]): Promise<string[]> {
    // The row may have moved on since the caller read it (another run of this key finished it).
    let record = this.ledger.outbound(start.key) ?? start;
    if (record.status === "failed") {
      throw new DeliveryError(
        `delivery ${record.key} was refused earlier: ${record.lastError}`,
        record.key,
        "failed",
      );
    }
    const { body } = record;
    const total = body.kind === "text" ? body.chunks.length : 1;
    for (let i = body.sent; i < total; i++) {
      const messageId = await this.sendPart(record, i, reuse[i]);
      record = await this.ledger.markChunkSent(record, i, messageId);
    }
    return record.messageIds;
  }

  /** Sends (or edits in) part `index` of a message; resolves with its platform id ("" when none was needed). */
  private async sendPart(
    record: OutboundRecord,
    index: number,
    reuse: ReusableMessage | undefined,
  ): Promise<string> {
    const { body } = record;
    const target = body.target;
    if (body.kind === "file") return this.guarded(record, "plain", () => this.sendFile(target, body.file));
    const text = body.chunks[index]!;
    // A chunk of blank lines is not a message any platform accepts; it carries nothing to show.
    if (text.trim() === "" && !reuse) return "";
    const format = body.format;
    const buttons = index === body.chunks.length - 1 ? body.buttons : undefined;
    const options = (f: SendOptions["format"]): SendOptions => ({
      ...(f ? { format: f } : {}),
      ...(buttons ? { buttons } : {}),
    });
    if (reuse) {
      if (reuse.text === text && reuse.format === (format ?? "markdown") && !buttons) return reuse.messageId;
      try {
        await this.withRetries(
          format,
          (f) => this.adapter.edit(target, reuse.messageId, text, options(f)),
          record,
        );
        return reuse.messageId;
      } catch (err) {
        if (!(err instanceof GaveUp) || !err.permanent) throw this.giveUp(record, err);
        // The preview cannot be edited (deleted, too old): the chunk goes out as a new message.
        this.log("warn", "delivery: could not edit a streamed message, sending anew", {
          key: record.key,
          error: err.message,
        });
      }
    }
    return this.guarded(
      record,
      format,
      async (f) => (await this.adapter.send(target, text, options(f))).messageId,
    );
  }

  private async sendFile(target: OutboundTarget, file: OutboundFile): Promise<string> {
    if (!existsSync(file.path)) {
      return (await this.adapter.send(target, `⚠ File not found: ${file.path}`, { format: "plain" }))
        .messageId;
    }
    if (this.adapter.sendFile) return (await this.adapter.sendFile(target, file)).messageId;
    const line = file.caption ? `${file.caption}\n📎 ${file.path}` : `📎 ${file.path}`;
    return (await this.adapter.send(target, line, { format: "plain" })).messageId;
  }

  /** Runs one platform call with retries; on giving up, records why in the ledger and throws DeliveryError. */
  private async guarded<T>(
    record: OutboundRecord,
    format: SendOptions["format"],
    op: (format: SendOptions["format"]) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.withRetries(format, op, record);
    } catch (err) {
      throw this.giveUp(record, err);
    }
  }

  private giveUp(record: OutboundRecord, err: unknown): DeliveryError {
    const permanent = err instanceof GaveUp && err.permanent;
    const message = err instanceof Error ? err.message : String(err);
    const fields = { platform: this.adapter.name, key: record.key, error: message };
    if (permanent) {
      this.ledger.markFailed(record, message).catch((e: unknown) => this.unmarked(record, e));
      this.log("error", "delivery: the platform refused a message", fields);
      return new DeliveryError(`delivery ${record.key} refused: ${message}`, record.key, "failed");
    }
    this.log("error", "delivery: giving up for now; the message stays pending for the next start", fields);
    return new DeliveryError(`delivery ${record.key} still pending: ${message}`, record.key, "pending");
  }

  /**
   * Calls `op` until it succeeds: transient errors back off (honouring retry-after) up to maxAttempts;
   * formatted text the platform cannot parse is tried once more as plain text. Throws GaveUp.
   */
  private async withRetries<T>(
    format: SendOptions["format"],
    op: (format: SendOptions["format"]) => Promise<T>,
    record: OutboundRecord,
  ): Promise<T> {
    let attempt = 0;
    let current = format;
    for (;;) {
      try {
        return await op(current);
      } catch (err) {
        const error = asSendError(err);
        if (isParseError(error) && current !== "plain") {
          this.log("warn", "delivery: the platform could not parse the formatted text; sending it plain", {
            key: record.key,
            error: error.message,
          });
          current = "plain";
          continue;
        }
        if (!error.retryable) throw new GaveUp(error, true);
        attempt++;
        this.ledger.markAttemptFailed(record, error.message).catch((e: unknown) => this.unmarked(record, e));
        if (attempt >= this.maxAttempts) throw new GaveUp(error, false);
        const wait =
          error.retryAfter !== undefined
            ? Math.min(this.retryMaxMs, error.retryAfter * 1000)
            : Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (attempt - 1));
        this.log("warn", "delivery: send failed, retrying", {
          key: record.key,
          attempt,
          waitMs: wait,
          error: error.message,
        });
        await sleep(wait);
      }
    }
  }
}
