import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { SearchHit, SearchOptions } from "../store.js";
import type { Row } from "./rows.js";

/** One FTS5 query (`table` is messages_fts or messages_fts_trigram) joined to messages and sessions. */
export function runFtsSearch(
  db: DatabaseSync,
  table: string,
  q: string,
  opts: SearchOptions,
  limit: number,
): SearchHit[] {
  const where: string[] = [`${table} MATCH ?`];
  const params: SQLInputValue[] = [q];
  if (opts.role) {
    where.push("m.role = ?");
    params.push(opts.role);
  }
  if (opts.source !== undefined) {
    where.push("s.source = ?");
    params.push(opts.source);
  }
  if (opts.userId !== undefined) {
    where.push("s.user_id = ?");
    params.push(opts.userId);
  }
  for (const id of opts.excludeSessionIds ?? []) {
    where.push("m.session_id <> ?");
    params.push(id);
  }
  // Message ids grow with time: FTS5 walks rowids backwards without sorting every match. Substring
  // (trigram) hits have no useful rank and can be numerous: newest first as well.
  const byRowid = opts.sort === "recency" || table === "messages_fts_trigram";
  const order = byRowid ? `${table}.rowid DESC` : `${table}.rank`;
  const sql = `SELECT m.id, m.session_id, m.role, m.seq, m.created_at, s.title,
      snippet(${table}, -1, '>>>', '<<<', '…', 16) AS snip
    FROM ${table} JOIN messages m ON m.id = ${table}.rowid JOIN sessions s ON s.id = m.session_id
    WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ?`;
  params.push(limit);
  return (db.prepare(sql).all(...params) as Row[]).map((r) => ({
    messageId: Number(r.id),
    sessionId: String(r.session_id),
    sessionTitle: (r.title as string | null) ?? null,
    role: String(r.role),
    seq: Number(r.seq),
    createdAt: Number(r.created_at),
    snippet: String(r.snip ?? ""),
  }));
}
