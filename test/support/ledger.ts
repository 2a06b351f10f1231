import { type DeliveryLedger, gatewayLedger } from "../../src/gateway/ledger.js";
import { SqliteSessionStore, type SqliteStoreOptions } from "../../src/state/sqlite/store.js";

/** The gateway's ledger on a state.db of its own; `close` closes that store (a restart reopens the file). */
export function openTestLedger(
  path: string,
  options: SqliteStoreOptions = {},
): DeliveryLedger & { store: SqliteSessionStore; close(): Promise<void> } {
  const store = new SqliteSessionStore(path, options);
  return Object.assign(gatewayLedger(store), {
    store,
    close: async () => {
      await store.close();
    },
  });
}
