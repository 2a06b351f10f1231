/**
 * Every platform's outbound delivery on one ledger. Whatever starts a message (a chat turn, a
 * command's answer, `hermes send`, a scheduled job, a webhook route delivering to a chat) sends it
 * through here, so it is recorded before it is sent, sent once, and finished after a crash.
 */
import type { OutboundLedger } from "./ledger.js";
import { type DeliverOptions, OutboundDelivery, type OutboundDeliveryOptions } from "./outbound.js";
import type { DeliveryChannel, OutboundTarget } from "./types.js";

export class Outbox {
  private readonly deliveries = new Map<string, OutboundDelivery>();

  constructor(
    readonly ledger: OutboundLedger,
    private readonly options: OutboundDeliveryOptions = {},
  ) {}

  /** Sends to `channel` from now on (one delivery per platform name; a second add replaces the first). */
  add(channel: DeliveryChannel): OutboundDelivery {
    const delivery = new OutboundDelivery(channel, this.ledger, this.options);
    this.deliveries.set(channel.name, delivery);
    return delivery;
  }

  /** The delivery of a platform, if it is one of this outbox's. */
  get(platform: string): OutboundDelivery | undefined {
    return this.deliveries.get(platform);
  }

  platforms(): string[] {
    return [...this.deliveries.keys()];
  }

  /**
   * Sends `text` to `target` on `platform` under idempotency key `key`: a key recorded before is not
   * recorded again, and what of it was sent is not sent again (`repeated`: it had all gone out).
   * Throws Error for a platform this outbox does not have, DeliveryError when it is not sent now,
   * and StateStoreError when it could not be recorded.
   */
  async deliver(
    platform: string,
    key: string,
    target: OutboundTarget,
    text: string,
    opts: DeliverOptions = {},
  ): Promise<{ messageIds: string[]; repeated: boolean }> {
    const delivery = this.deliveries.get(platform);
    if (!delivery) throw new Error(`platform ${platform} is not running here`);
    const repeated = this.ledger.outbound(key)?.status === "sent";
    const messageIds = await delivery.deliver(key, target, text, opts);
    return { messageIds, repeated };
  }

  /**
   * At start: sends what earlier runs recorded and did not finish, per platform, oldest first.
   * Resolves with the messages completed per platform; a platform that fails is reported to
   * `onError` and the others go on.
   */
  async resumePending(onError: (platform: string, err: unknown) => void): Promise<Map<string, number>> {
    const done = new Map<string, number>();
    for (const [platform, delivery] of this.deliveries) {
      try {
        done.set(platform, await delivery.resumePending());
      } catch (err) {
        onError(platform, err);
      }
    }
    return done;
  }
}
