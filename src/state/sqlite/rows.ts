/** Row mapping between the `sessions` / `messages` tables and the store's types. */
import type { SQLInputValue } from "node:sqlite";
import type { ChatMessage } from "../../llm/types.js";
import {
  type NewSession,
  type SessionRecord,
  StateStoreError,
  type StoredInnerToolCall,
  type StoredMessage,
} from "../store.js";

export type Row = Record<string, SQLInputValue>;

export const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

/** Turns user text into an FTS5 query: each word quoted (no syntax errors), prefix match on the last. */
export function toFtsQuery(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(" ");
}

export const trigramQuery = (text: string): string => `"${text.trim().replace(/"/g, '""')}"`;

export function describeOpenError(path: string, err: unknown): StateStoreError {
  const e = err as { message?: string; errcode?: number; errstr?: string };
  const msg = e.message ?? String(err);
  const code = (e.errcode ?? 0) & 0xff;
  if (code === 5 || code === 6 || /locked|busy/i.test(msg)) {
    return new StateStoreError(
      `The session database ${path} is locked by another process (${msg}). Close other hermes instances and try again.`,
      "locked",
    );
  }
  if (code === 11 || code === 26 || /malformed|not a database|corrupt/i.test(msg)) {
    return new StateStoreError(
      `The session database ${path} is damaged (${msg}). It was left untouched; move it aside (e.g. 'mv state.db state.db.bad') to start a fresh one, or repair it with the sqlite3 '.recover' command.`,
      "corrupt",
    );
  }
  return new StateStoreError(`Cannot use the session database ${path}: ${msg}`, "other");
}

export function toSession(r: Row): SessionRecord {
  return {
    id: String(r.id),
    source: String(r.source),
    model: (r.model as string | null) ?? null,
    provider: (r.provider as string | null) ?? null,
    title: (r.title as string | null) ?? null,
    parentSessionId: (r.parent_session_id as string | null) ?? null,
    cwd: (r.cwd as string | null) ?? null,
    systemPrompt: (r.system_prompt as string | null) ?? null,
    startedAt: Number(r.started_at),
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
    endReason: (r.end_reason as string | null) ?? null,
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    cacheReadTokens: Number(r.cache_read_tokens),
    cacheWriteTokens: Number(r.cache_write_tokens),
    reasoningTokens: Number(r.reasoning_tokens),
    costUsd: Number(r.cost_usd),
    messageCount: Number(r.message_count),
    ...(typeof r.user_id === "string" ? { userId: r.user_id } : {}),
    ...(typeof r.chat_id === "string" ? { chatId: r.chat_id } : {}),
    ...(typeof r.session_key === "string" ? { sessionKey: r.session_key } : {}),
  };
}

/** The row a new session gets (what `createSession` returns while its insert waits in the queue). */
export function newSessionRecord(s: NewSession): SessionRecord {
  return {
    id: s.id,
    source: s.source,
    model: s.model ?? null,
    provider: s.provider ?? null,
    title: s.title ?? null,
    parentSessionId: s.parentSessionId ?? null,
    cwd: s.cwd ?? null,
    systemPrompt: s.systemPrompt ?? null,
    startedAt: s.startedAt ?? Date.now(),
    endedAt: null,
    endReason: null,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
    messageCount: 0,
    ...(s.userId !== undefined ? { userId: s.userId } : {}),
    ...(s.chatId !== undefined ? { chatId: s.chatId } : {}),
    ...(s.sessionKey !== undefined ? { sessionKey: s.sessionKey } : {}),
  };
}

export function toInnerToolCall(r: Row): StoredInnerToolCall {
  return {
    afterSeq: Number(r.after_seq),
    createdAt: Number(r.created_at),
    parentTool: String(r.parent_tool),
    toolName: String(r.tool_name),
    args: JSON.parse(String(r.args)) as Record<string, unknown>,
    result: String(r.result),
    isError: Number(r.is_error) === 1,
    durationMs: Number(r.duration_ms),
  };
}

export function toMessage(r: Row): StoredMessage {
  const extra = r.extra ? (JSON.parse(String(r.extra)) as Record<string, unknown>) : {};
  const role = String(r.role);
  const content = r.content === null ? null : String(r.content);
  let message: ChatMessage;
  if (role === "assistant") {
    message = { role, content };
    if (r.tool_calls) message.tool_calls = JSON.parse(String(r.tool_calls));
    if (r.reasoning !== null) message.reasoning = String(r.reasoning);
    if (extra.thinking_blocks) message.thinking_blocks = extra.thinking_blocks as never;
    if (extra.reasoning_items) message.reasoning_items = extra.reasoning_items as never;
  } else if (role === "tool") {
    message = { role, tool_call_id: String(r.tool_call_id ?? ""), content: content ?? "" };
    if (r.tool_name !== null) message.name = String(r.tool_name);
  } else if (role === "user") {
    message = { role, content: extra.content_parts ? (extra.content_parts as never) : (content ?? "") };
  } else {
    message = { role: "system", content: content ?? "" };
  }
  return {
    id: Number(r.id),
    sessionId: String(r.session_id),
    seq: Number(r.seq),
    createdAt: Number(r.created_at),
    message,
  };
}

export interface MessageColumns {
  content: string | null;
  toolCalls: string | null;
  toolCallId: string | null;
  toolName: string | null;
  reasoning: string | null;
  /** JSON of what has no column of its own (thinking blocks, content parts); null when empty. */
  extra: string | null;
}

/** A message spread over the `messages` columns (the inverse of toMessage). */
export function toColumns(m: ChatMessage): MessageColumns {
  const extra: Record<string, unknown> = {};
  let content: string | null;
  let toolCalls: string | null = null;
  let toolCallId: string | null = null;
  let toolName: string | null = null;
  let reasoning: string | null = null;
  if (m.role === "assistant") {
    content = m.content;
    if (m.tool_calls?.length) toolCalls = JSON.stringify(m.tool_calls);
    reasoning = m.reasoning ?? null;
    if (m.thinking_blocks?.length) extra.thinking_blocks = m.thinking_blocks;
    if (m.reasoning_items?.length) extra.reasoning_items = m.reasoning_items;
  } else if (m.role === "tool") {
    content = m.content;
    toolCallId = m.tool_call_id;
    toolName = m.name ?? null;
  } else if (m.role === "user" && typeof m.content !== "string") {
    content = m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
    extra.content_parts = m.content;
  } else {
    content = m.content as string;
  }
  return {
    content,
    toolCalls,
    toolCallId,
    toolName,
    reasoning,
    extra: Object.keys(extra).length ? JSON.stringify(extra) : null,
  };
}
