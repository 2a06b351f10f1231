import type { Statements } from "./connection.js";

/**
 * Every row of a session in every table, deleted inside the caller's transaction: its messages (the
 * delete trigger takes them out of both search indexes), inner tool calls, the API's stored
 * responses of its runs (with the conversation they carry), continuation and idempotency records,
 * gateway routes pointing at it, then the session row (children keep theirs, unlinked). Returns
 * whether the session row existed.
 */
export function deleteSessionRows(st: Statements, sessionId: string): boolean {
  st("DELETE FROM messages WHERE session_id = ?").run(sessionId);
  st("DELETE FROM inner_tool_calls WHERE session_id = ?").run(sessionId);
  st("DELETE FROM api_responses WHERE session_id = ?").run(sessionId);
  st("DELETE FROM api_continuations WHERE session_id = ?").run(sessionId);
  st("DELETE FROM api_idempotency WHERE session_id = ?").run(sessionId);
  st("DELETE FROM gateway_routing WHERE session_id = ?").run(sessionId);
  return Number(st("DELETE FROM sessions WHERE id = ?").run(sessionId).changes) > 0;
}
