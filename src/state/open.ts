import { SqliteSessionStore } from "./sqlite/store.js";
import { type StateStore, StateStoreError, type StateStoreOptions } from "./store.js";

/** Opens HERMES_HOME/state.db, or explains why not (the file is never modified on failure). */
export function openStateStore(
  path: string,
  options: StateStoreOptions = {},
): { store: StateStore } | { error: StateStoreError } {
  try {
    return { store: new SqliteSessionStore(path, options) };
  } catch (err) {
    return { error: err instanceof StateStoreError ? err : new StateStoreError(String(err), "other") };
  }
}
