import { SqliteSessionStore } from "./sqlite/store.js";
import { type SessionStore, StateStoreError } from "./store.js";

/** Opens HERMES_HOME/state.db, or explains why not (the file is never modified on failure). */
export function openStateStore(path: string): { store: SessionStore } | { error: StateStoreError } {
  try {
    return { store: new SqliteSessionStore(path) };
  } catch (err) {
    return { error: err instanceof StateStoreError ? err : new StateStoreError(String(err), "other") };
  }
}
