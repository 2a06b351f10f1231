import type { DatabaseSync } from "node:sqlite";
import { openDatabase, SIDE_TABLE_CACHE_KIB } from "../state/sqlite/connection.js";
import type { ChatType } from "./types.js";

/** What the gateway remembers of a chat besides its current session. */
export interface RouteEntry {
  platform: string;
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  userId: string;
  /** Milliseconds since the epoch of the chat's last message (the reset policy reads it). */
  lastActiveAt: number;
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

/** One gateway instance per profile: the scope column leaves room for serving several later. */
const SCOPE = "main";

/** How long a routing write waits for another process's lock on state.db. */
const WAIT_MS = 2_000;

/**
 * The `gateway_routing` table of state.db: a chat's session key → its current session id. It is
 * what lets a chat continue its conversation after its agent was evicted or the gateway restarted.
 * A connection of its own (WAL: readers and the session store's writer do not block each other).
 */
export class SessionRouting {
  private readonly db: DatabaseSync;

  constructor(stateDbPath: string) {
    this.db = openDatabase(stateDbPath, WAIT_MS, SIDE_TABLE_CACHE_KIB);
    this.db.exec(`PRAGMA busy_timeout = ${WAIT_MS}`);
  }

  get(sessionKey: string): Route | undefined {
    const row = this.db
      .prepare(
        "SELECT session_id, entry, updated_at FROM gateway_routing WHERE scope = ? AND session_key = ?",
      )
      .get(SCOPE, sessionKey) as { session_id: string; entry: string; updated_at: number } | undefined;
    if (!row) return undefined;
    return {
      sessionKey,
      sessionId: row.session_id,
      entry: parseEntry(row.entry),
      updatedAt: Number(row.updated_at),
    };
  }

  /** Points the key at `sessionId` (insert or replace). */
  set(sessionKey: string, sessionId: string, entry: RouteEntry, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO gateway_routing (scope, session_key, session_id, entry, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (scope, session_key) DO UPDATE SET session_id = excluded.session_id,
           entry = excluded.entry, updated_at = excluded.updated_at`,
      )
      .run(SCOPE, sessionKey, sessionId, JSON.stringify(entry), now);
  }

  /** Forgets the key: its next message starts a new session (/new, reset policy). */
  delete(sessionKey: string): void {
    this.db.prepare("DELETE FROM gateway_routing WHERE scope = ? AND session_key = ?").run(SCOPE, sessionKey);
  }

  /** Every route, most recently active first. */
  list(limit = 1000): Route[] {
    const rows = this.db
      .prepare(
        "SELECT session_key, session_id, entry, updated_at FROM gateway_routing WHERE scope = ? ORDER BY updated_at DESC LIMIT ?",
      )
      .all(SCOPE, limit) as Array<{
      session_key: string;
      session_id: string;
      entry: string;
      updated_at: number;
    }>;
    return rows.map((r) => ({
      sessionKey: r.session_key,
      sessionId: r.session_id,
      entry: parseEntry(r.entry),
      updatedAt: Number(r.updated_at),
    }));
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

/** A damaged entry is an empty one: the session id alone still routes the chat. */
function parseEntry(json: string): RouteEntry {
  try {
    const v = JSON.parse(json) as Partial<RouteEntry>;
    return {
      platform: String(v.platform ?? ""),
      chatId: String(v.chatId ?? ""),
      chatType: v.chatType === "group" || v.chatType === "channel" ? v.chatType : "dm",
      userId: String(v.userId ?? ""),
      lastActiveAt: Number(v.lastActiveAt ?? 0),
      ...(typeof v.threadId === "string" ? { threadId: v.threadId } : {}),
      ...(typeof v.title === "string" ? { title: v.title } : {}),
      ...(typeof v.model === "string" ? { model: v.model } : {}),
    };
  } catch {
    return { platform: "", chatId: "", chatType: "dm", userId: "", lastActiveAt: 0 };
  }
}
