import type { OutboundBody } from "../runtime/delivery/ledger.js";
import type { DeliveryLedger as StoreLedger } from "../state/ledger.js";
import type { StateStore } from "../state/store.js";
import type { InboundMessage } from "./types.js";

/**
 * The gateway's view of the store's delivery ledger (state/ledger.ts): the same rows, typed with
 * the gateway's inbound messages and delivery's outbound bodies (runtime/delivery/ledger.ts).
 */

export type { OutboundBody, OutboundRecord } from "../runtime/delivery/ledger.js";
export {
  type InboundStatus,
  LEDGER_RETENTION_MS,
  type LedgerStats,
  type OutboundStatus,
} from "../state/ledger.js";

export type DeliveryLedger = StoreLedger<InboundMessage, OutboundBody>;

/** The store's ledger as the gateway uses it: it gives back the messages and bodies the gateway recorded. */
export function gatewayLedger(store: StateStore): DeliveryLedger {
  return store.ledger as unknown as DeliveryLedger;
}
