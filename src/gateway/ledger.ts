import type {
  DeliveryLedger as StoreLedger,
  OutboundRecord as StoreOutboundRecord,
} from "../state/ledger.js";
import type { StateStore } from "../state/store.js";
import type { Button, InboundMessage, OutboundFile, OutboundTarget, SendOptions } from "./types.js";

/**
 * The gateway's view of the store's delivery ledger (state/ledger.ts): the same rows, typed with
 * the gateway's messages and outbound bodies.
 */

export {
  type InboundStatus,
  LEDGER_RETENTION_MS,
  type LedgerStats,
  type OutboundStatus,
} from "../state/ledger.js";

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

export type DeliveryLedger = StoreLedger<InboundMessage, OutboundBody>;

/** The store's ledger as the gateway uses it: it gives back the messages and bodies the gateway recorded. */
export function gatewayLedger(store: StateStore): DeliveryLedger {
  return store.ledger as unknown as DeliveryLedger;
}
