import { statSync } from "node:fs";
import type { SessionRecord, StoredMessage, StoreStats } from "../store.js";
import type { Statements } from "./connection.js";
import { type Row, toMessage, toSession } from "./rows.js";

/** Read-only queries of the store: they never take the write lock, so another writer never delays them. */

/** A unique id prefix, then the newest session with that exact title (followed to its continuation). */
export function findByPrefixOrTitle(st: Statements, idOrTitle: string): SessionRecord | undefined {
  const byPrefix = st("SELECT * FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 2").all(
    `${idOrTitle.replace(/[\\%_]/g, "\\$&")}%`,
  ) as Row[];
  if (byPrefix.length === 1) return toSession(byPrefix[0]!);
  const byTitle = st("SELECT * FROM sessions WHERE title = ? ORDER BY started_at DESC LIMIT 1").get(
    idOrTitle,
  ) as Row | undefined;
  return byTitle ? latestContinuation(st, toSession(byTitle)) : undefined;
}

/** A session compressed away lives on in its continuation: follow the chain to the newest one. */
function latestContinuation(st: Statements, session: SessionRecord): SessionRecord {
  let current = session;
  for (let hops = 0; hops < 10_000 && current.endReason === "compression"; hops++) {
    const next = st(
      "SELECT * FROM sessions WHERE parent_session_id = ? AND source != 'subagent' ORDER BY started_at DESC, rowid DESC LIMIT 1",
    ).get(current.id) as Row | undefined;
    if (!next) break;
    current = toSession(next);
  }
  return current;
}

export function listSessions(
  st: Statements,
  opts: { limit?: number; source?: string; userId?: string },
): SessionRecord[] {
  const limit = opts.limit ?? -1;
  const order = "ORDER BY started_at DESC, rowid DESC LIMIT ?";
  const rows =
    opts.source && opts.userId !== undefined
      ? st(`SELECT * FROM sessions WHERE source = ? AND user_id = ? ${order}`).all(
          opts.source,
          opts.userId,
          limit,
        )
      : opts.source
        ? st(`SELECT * FROM sessions WHERE source = ? ${order}`).all(opts.source, limit)
        : st(`SELECT * FROM sessions ${order}`).all(limit);
  return (rows as Row[]).map(toSession);
}

export function latestSession(st: Statements, opts: { source?: string }): SessionRecord | undefined {
  const order = "ORDER BY COALESCE(last_active_at, started_at) DESC, rowid DESC LIMIT 1";
  const r = (
    opts.source
      ? st(`SELECT * FROM sessions WHERE source = ? ${order}`).get(opts.source)
      : st(`SELECT * FROM sessions ${order}`).get()
  ) as Row | undefined;
  return r ? toSession(r) : undefined;
}

export function messagesAround(
  st: Statements,
  sessionId: string,
  aroundId: number,
  window: number,
): StoredMessage[] {
  const at = st("SELECT seq FROM messages WHERE id = ? AND session_id = ?").get(aroundId, sessionId) as
    | Row
    | undefined;
  if (!at) return [];
  const seq = Number(at.seq);
  return (
    st("SELECT * FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq").all(
      sessionId,
      seq - window,
      seq + window,
    ) as Row[]
  ).map(toMessage);
}

export function readStats(st: Statements, path: string): StoreStats {
  const one = (sql: string): Row => st(sql).get() as Row;
  const bySource: Record<string, number> = {};
  for (const r of st("SELECT source, COUNT(*) AS n FROM sessions GROUP BY source").all() as Row[]) {
    bySource[String(r.source)] = Number(r.n);
  }
  let fileBytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      fileBytes += statSync(path + suffix).size;
    } catch {
      // No WAL right now.
    }
  }
  const range = one("SELECT MIN(started_at) AS lo, MAX(started_at) AS hi FROM sessions");
  return {
    path,
    sessions: Number(one("SELECT COUNT(*) AS n FROM sessions").n),
    messages: Number(one("SELECT COUNT(*) AS n FROM messages").n),
    bySource,
    fileBytes,
    oldestStartedAt: range.lo === null ? null : Number(range.lo),
    newestStartedAt: range.hi === null ? null : Number(range.hi),
  };
}
