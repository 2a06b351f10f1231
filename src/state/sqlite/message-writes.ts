import type { ChatMessage } from "../../llm/types.js";
import {
  INNER_RESULT_MAX_CHARS,
  type InnerToolCall,
  type MessageMeta,
  type StoredMessage,
} from "../store.js";
import type { Statements } from "./connection.js";
import { type Row, toColumns } from "./rows.js";

/**
 * The SQL of message writes. Each runs inside the caller's BEGIN IMMEDIATE transaction: positions
 * (`seq`, `after_seq`) are read from the table in the same write, so writers in other processes
 * never take the same one.
 */

/** Inserts one message at the session's next seq. */
export function insertMessage(
  st: Statements,
  sessionId: string,
  m: ChatMessage,
  meta: MessageMeta,
  createdAt: number,
): StoredMessage {
  const { content, toolCalls, toolCallId, toolName, reasoning, extra } = toColumns(m);
  const r = st(
    `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, reasoning,
       extra, created_at, token_count, finish_reason)
     VALUES (?, (SELECT COALESCE(MAX(seq), -1) + 1 FROM messages WHERE session_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     RETURNING id, seq`,
  ).get(
    sessionId,
    sessionId,
    m.role,
    content,
    toolCalls,
    toolCallId,
    toolName,
    reasoning,
    extra,
    createdAt,
    meta.tokenCount ?? null,
    meta.finishReason ?? null,
  ) as Row;
  return { id: Number(r.id), sessionId, seq: Number(r.seq), createdAt, message: m };
}

/** Records a tool's own tool call after the session's latest message, its result cut to size. */
export function insertInnerToolCall(
  st: Statements,
  sessionId: string,
  call: InnerToolCall,
  at: number,
): void {
  const result =
    call.result.length > INNER_RESULT_MAX_CHARS
      ? `${call.result.slice(0, INNER_RESULT_MAX_CHARS)}… [${call.result.length - INNER_RESULT_MAX_CHARS} more chars]`
      : call.result;
  st(
    `INSERT INTO inner_tool_calls
       (session_id, after_seq, parent_tool, tool_name, args, result, is_error, duration_ms, created_at)
     VALUES (?, COALESCE((SELECT MAX(seq) FROM messages WHERE session_id = ?), -1), ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    sessionId,
    sessionId,
    call.parentTool,
    call.toolName,
    JSON.stringify(call.args),
    result,
    call.isError ? 1 : 0,
    call.durationMs,
    at,
  );
}

/** Drops messages from `fromSeq` on, with their inner calls; the indexes follow through the delete trigger. */
export function deleteMessagesFrom(st: Statements, sessionId: string, fromSeq: number): number {
  const n = st("DELETE FROM messages WHERE session_id = ? AND seq >= ?").run(sessionId, fromSeq).changes;
  st("DELETE FROM inner_tool_calls WHERE session_id = ? AND after_seq >= ?").run(sessionId, fromSeq);
  const last = st("SELECT MAX(created_at) AS t FROM messages WHERE session_id = ?").get(sessionId) as Row;
  st(
    "UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?), last_active_at = COALESCE(?, started_at) WHERE id = ?",
  ).run(sessionId, last.t ?? null, sessionId);
  return Number(n);
}
