import type { Route, RouteEntry, RoutingStore } from "../routing.js";
import type { SqliteDatabase } from "./database.js";

/** One gateway instance per profile: the scope column leaves room for serving several later. */
export const ROUTING_SCOPE = "main";

interface RouteRow {
  session_key: string;
  session_id: string;
  entry: string;
  updated_at: number;
}

/** The `gateway_routing` table on the shared connection. */
export class SqliteRoutingStore implements RoutingStore {
  constructor(private readonly core: SqliteDatabase) {}

  get(sessionKey: string): Route | undefined {
    const row = this.core
      .st(
        "SELECT session_key, session_id, entry, updated_at FROM gateway_routing WHERE scope = ? AND session_key = ?",
      )
      .get(ROUTING_SCOPE, sessionKey) as RouteRow | undefined;
    return row ? toRoute(row) : undefined;
  }

  set(sessionKey: string, sessionId: string, entry: RouteEntry, now = this.core.now()): Promise<void> {
    const stored = entry.title === undefined ? entry : { ...entry, title: this.core.redact(entry.title) };
    return this.core.write(() => {
      this.core
        .st(
          `INSERT INTO gateway_routing (scope, session_key, session_id, entry, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (scope, session_key) DO UPDATE SET session_id = excluded.session_id,
             entry = excluded.entry, updated_at = excluded.updated_at`,
        )
        .run(ROUTING_SCOPE, sessionKey, sessionId, JSON.stringify(stored), now);
    });
  }

  delete(sessionKey: string): Promise<void> {
    return this.core.write(() => {
      this.core
        .st("DELETE FROM gateway_routing WHERE scope = ? AND session_key = ?")
        .run(ROUTING_SCOPE, sessionKey);
    });
  }

  list(limit = 1000): Route[] {
    const rows = this.core
      .st(
        "SELECT session_key, session_id, entry, updated_at FROM gateway_routing WHERE scope = ? ORDER BY updated_at DESC LIMIT ?",
      )
      .all(ROUTING_SCOPE, limit) as unknown as RouteRow[];
    return rows.map(toRoute);
  }
}

function toRoute(r: RouteRow): Route {
  return {
    sessionKey: r.session_key,
    sessionId: r.session_id,
    entry: parseEntry(r.entry),
    updatedAt: Number(r.updated_at),
  };
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
