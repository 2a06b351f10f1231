/**
 * POST /v1/chat/completions bodies: checked field by field and turned into a conversation request.
 * The messages are the whole conversation; the last one must be the user's turn. Client-side
 * `tools` are ignored: Hermes runs its own tools on the server.
 */
import { isRecord } from "../core/is-record.js";
import type { ChatMessage, ContentPart } from "../llm/types.js";
import {
  checkToolResults,
  oneOf,
  optionalBoolean,
  optionalString,
  parseToolCall,
  typeName,
} from "./checks.js";
import type { ConversationRequest } from "./conversation.js";
import { invalidField } from "./http.js";
import { chatParams } from "./model-params.js";

export interface ChatRequest extends ConversationRequest {
  stream: boolean;
  /** stream_options.include_usage: a last chunk carries the run's usage. */
  includeUsage: boolean;
}

const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;

/** Text of string-or-parts content where only text parts make sense (system, assistant, tool). */
function textContent(v: unknown, path: string, allowNull = false): string | null {
  if (typeof v === "string") return v;
  if ((v === null || v === undefined) && allowNull) return null;
  if (!Array.isArray(v))
    throw invalidField(path, `must be a string or an array of text parts, not ${typeName(v)}`);
  return v
    .map((part, i) => {
      if (!isRecord(part) || typeof part.text !== "string")
        throw invalidField(`${path}[${i}]`, 'must be a text part ({"type": "text", "text": "..."})');
      return part.text;
    })
    .join("");
}

function userContent(v: unknown, path: string): string | ContentPart[] {
  if (typeof v === "string") return v;
  if (!Array.isArray(v))
    throw invalidField(path, `must be a string or an array of parts, not ${typeName(v)}`);
  return v.map((part, i): ContentPart => {
    const p = `${path}[${i}]`;
    if (!isRecord(part)) throw invalidField(p, `must be an object, not ${typeName(part)}`);
    const type = oneOf(part.type, ["text", "image_url"] as const, `${p}.type`);
    if (type === "text") {
      if (typeof part.text !== "string") throw invalidField(`${p}.text`, "must be a string");
      return { type: "text", text: part.text };
    }
    const image = part.image_url;
    const url = typeof image === "string" ? image : isRecord(image) ? image.url : undefined;
    if (typeof url !== "string" || !url)
      throw invalidField(`${p}.image_url.url`, "must be a non-empty string");
    return { type: "image_url", image_url: { url } };
  });
}

function parseMessage(v: unknown, path: string): ChatMessage {
  if (!isRecord(v)) throw invalidField(path, `must be an object, not ${typeName(v)}`);
  const role = oneOf(v.role, ROLES, `${path}.role`);
  switch (role) {
    case "system":
    case "developer":
      return { role: "system", content: textContent(v.content, `${path}.content`) ?? "" };
    case "user":
      return { role: "user", content: userContent(v.content, `${path}.content`) };
    case "assistant": {
      const content = textContent(v.content, `${path}.content`, true);
      const calls = v.tool_calls;
      if (calls !== undefined && calls !== null && !Array.isArray(calls))
        throw invalidField(`${path}.tool_calls`, "must be an array");
      const toolCalls = (calls ?? []).map((c, i) => parseToolCall(c, `${path}.tool_calls[${i}]`));
      if (content === null && toolCalls.length === 0)
        throw invalidField(`${path}.content`, "is required when the message has no tool_calls");
      return { role: "assistant", content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    }
    case "tool": {
      const id = v.tool_call_id;
      if (typeof id !== "string" || !id)
        throw invalidField(`${path}.tool_call_id`, "must be a non-empty string");
      return { role: "tool", tool_call_id: id, content: textContent(v.content, `${path}.content`) ?? "" };
    }
  }
}

/** The text of the user turn: text parts only (an image is read in an earlier message). */
export function turnText(content: string | ContentPart[], path: string): string {
  const parts = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  if (parts.some((p) => p.type === "image_url"))
    throw invalidField(
      path,
      "has an image part: images are not supported in the message being answered; send them in an earlier message",
    );
  const text = parts.map((p) => (p.type === "text" ? p.text : "")).join("");
  if (!text.trim()) throw invalidField(path, "is empty");
  return text;
}

/** Throws ApiError (400) naming the field at fault. */
export function parseChatRequest(body: Record<string, unknown>): ChatRequest {
  optionalString(body, "model");
  const stream = optionalBoolean(body, "stream") ?? false;
  const options = body.stream_options;
  if (options !== undefined && options !== null && !isRecord(options))
    throw invalidField("stream_options", "must be an object");
  const includeUsage =
    (isRecord(options) && optionalBoolean(options, "include_usage", "stream_options.include_usage")) || false;
  const raw = body.messages;
  if (!Array.isArray(raw))
    throw invalidField("messages", `must be an array of messages, not ${typeName(raw)}`);
  if (raw.length === 0) throw invalidField("messages", "must hold at least one user message");
  const messages = raw.map((m, i) => parseMessage(m, `messages[${i}]`));
  const last = messages.length - 1;
  const final = messages[last]!;
  if (final.role !== "user")
    throw invalidField(`messages[${last}].role`, `must be user (the turn to answer), not ${final.role}`);
  const instructions = messages
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content.trim() : ""))
    .filter(Boolean)
    .join("\n\n");
  // Indexes into `raw` survive the system filter so errors name the caller's positions.
  const kept = messages.map((m, i) => ({ m, i })).filter(({ m, i }) => m.role !== "system" && i !== last);
  checkToolResults(
    kept.map(({ m }) => m),
    (k) => `messages[${kept[k]!.i}].tool_call_id`,
  );
  return {
    stream,
    includeUsage,
    params: chatParams(body),
    instructions: instructions || undefined,
    history: kept.map(({ m }) => m),
    turn: turnText(final.content, `messages[${last}].content`),
  };
}
