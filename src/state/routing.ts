/**
 * The gateway's routing table: a chat's session key → its current session id. It is what lets a
 * chat continue its conversation after its agent was evicted or the gateway restarted.
 */

/** What the gateway remembers of a chat besides its current session. */
export interface RouteEntry {
  platform: string;
  chatId: string;
  chatType: "dm" | "group" | "channel";
  threadId?: string;
  userId: string;
  /** Milliseconds since the epoch of the chat's last message (the reset policy reads it). */
  lastActiveAt: number;
  /** Stored redacted. */
  title?: string;
  /** The model this chat switched to with /model (kept across evictions and restarts). */
  model?: string;
}

export interface Route {
  sessionKey: string;
  sessionId: string;
  entry: RouteEntry;
  updatedAt: number;
}

/**
 * Reads never wait. Writes resolve once committed and reject with StateStoreError "locked" past the
 * store's write deadline; a route written by an earlier call stays until one succeeds.
 */
export interface RoutingStore {
  get(sessionKey: string): Route | undefined;
  /** Points the key at `sessionId` (insert or replace). */
  set(sessionKey: string, sessionId: string, entry: RouteEntry, now?: number): Promise<void>;
  /** Forgets the key: its next message starts a new session (/new, reset policy). */
  delete(sessionKey: string): Promise<void>;
  /** Every route, most recently active first. */
  list(limit?: number): Route[];
}
