/**
 * Long polling over getUpdates. Updates of a batch are handed over one by one, and the next
 * getUpdates (whose offset confirms them to Telegram) is sent only after each was handled, so an
 * update the gateway never recorded is delivered again after a crash. An update the gateway could
 * not record now (`unavailable`) is not confirmed: the poller waits and asks for it again. Failures
 * back off (Telegram's retry_after on 429) and stopping interrupts both the pending request and any
 * backoff.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Update } from "grammy/types";
import type { InboundReceipt } from "../../types.js";

export interface LongPollerOptions {
  getUpdates(
    params: { offset?: number; limit?: number; timeout: number; allowed_updates?: string[] },
    signal: AbortSignal,
  ): Promise<Update[]>;
  /** Handles one update; must not throw (errors are the handler's to log). */
  handle(update: Update): Promise<InboundReceipt>;
  /** A failed getUpdates; `fatal` stops polling (the token was revoked). */
  onError(error: unknown, fatal: boolean): void;
  /** Called after a successful getUpdates following failures. */
  onRecovered?(): void;
  /** Seconds one getUpdates may wait for updates. */
  pollSeconds: number;
  allowedUpdates: string[];
}

const retryAfterOf = (error: unknown): number | undefined =>
  (error as { parameters?: { retry_after?: number } }).parameters?.retry_after;
const codeOf = (error: unknown): number | undefined => (error as { error_code?: number }).error_code;

export class LongPoller {
  private readonly abort = new AbortController();
  private offset: number | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: LongPollerOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Ends the loop, waits for the update in hand, and confirms what was handled. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.offset === undefined) return;
    const confirm = new AbortController();
    const timer = setTimeout(() => confirm.abort(), 5_000);
    try {
      await this.options.getUpdates({ offset: this.offset, limit: 1, timeout: 0 }, confirm.signal);
    } catch {
      // Not confirmed: Telegram delivers those updates again and the gateway drops them as duplicates.
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    let failures = 0;
    let first = true;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await this.options.getUpdates(
          {
            ...(this.offset !== undefined ? { offset: this.offset } : {}),
            timeout: this.options.pollSeconds,
            ...(first ? { allowed_updates: this.options.allowedUpdates } : {}),
          },
          signal,
        );
      } catch (error) {
        if (signal.aborted) return;
        const fatal = codeOf(error) === 401;
        this.options.onError(error, fatal);
        if (fatal) return;
        failures++;
        const waitSeconds = retryAfterOf(error) ?? Math.min(2 ** (failures - 1), 30);
        await delay(waitSeconds * 1000, undefined, { signal }).catch(() => undefined);
        continue;
      }
      first = false;
      if (failures > 0) this.options.onRecovered?.();
      failures = 0;
      for (const update of updates) {
        if (signal.aborted) return; // the rest stays unconfirmed and comes again next time
        const receipt = await this.options.handle(update);
        if (receipt.status === "unavailable") {
          // Not recorded: this update and the rest of the batch stay unconfirmed and come again.
          await delay(receipt.retryAfterSeconds * 1000, undefined, { signal }).catch(() => undefined);
          break;
        }
        // Never move backwards: a redelivered old update must not un-confirm newer ones.
        this.offset = Math.max(this.offset ?? 0, update.update_id + 1);
      }
    }
  }
}
