import type { Statements } from "./connection.js";

/**
 * Every row of a session in every table, deleted inside the caller's transaction: its messages (the
 * delete trigger takes them out of both search indexes), inner tool calls, the API's stored
 * responses of its runs (with the conversation they carry), continuation and idempotency records,
 * gateway routes pointing at it, the delivery ledger's outbound messages of it (a pending one is
 * never sent with a deleted session's text) and the text of its inbound updates (their platform and
 * update id stay, so a redelivery is still known as a duplicate; one not finished is skipped), then
 * the session row (children keep theirs, unlinked). Returns whether the session row existed.
 */
export function deleteSessionRows(st: Statements, sessionId: string, now: number): boolean {
  st("DELETE FROM messages WHERE session_id = ?").run(sessionId);
  st("DELETE FROM inner_tool_calls WHERE session_id = ?").run(sessionId);
  st("DELETE FROM api_responses WHERE session_id = ?").run(sessionId);
  st("DELETE FROM api_continuations WHERE session_id = ?").run(sessionId);
  st("DELETE FROM api_idempotency WHERE session_id = ?").run(sessionId);
  st("DELETE FROM gateway_routing WHERE session_id = ?").run(sessionId);
  st("DELETE FROM gateway_outbound WHERE session_id = ?").run(sessionId);
  st(
    `UPDATE gateway_inbound SET payload = NULL,
       status = CASE WHEN status IN ('received', 'processing') THEN 'skipped' ELSE status END,
       finished_at = coalesce(finished_at, ?)
     WHERE session_id = ?`,
  ).run(now, sessionId);
  return Number(st("DELETE FROM sessions WHERE id = ?").run(sessionId).changes) > 0;
}
