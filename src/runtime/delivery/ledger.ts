/**
 * The outbound half of the store's delivery ledger, typed with what delivery records: a message
 * already split into the chunks its platform accepts, or one file, and how many of them went out.
 */
import type { DeliveryLedger, OutboundRecord as StoreOutboundRecord } from "../../state/ledger.js";
import type { StateStore } from "../../state/store.js";
import type { Button, OutboundFile, OutboundTarget, SendOptions } from "./types.js";

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

export type OutboundRecord = StoreOutboundRecord<OutboundBody>;

/** The ledger calls delivery makes. */
export type OutboundLedger = Pick<
  DeliveryLedger<{ platform: string; updateId: string; chatId: string }, OutboundBody>,
  "recordOutbound" | "outbound" | "pendingOutbound" | "markChunkSent" | "markAttemptFailed" | "markFailed"
>;

/** The store's ledger as delivery uses it: it gives back the bodies delivery recorded. */
export function outboundLedger(store: Pick<StateStore, "ledger">): OutboundLedger {
  return store.ledger as unknown as OutboundLedger;
}
