/**
 * POST /v1/responses bodies: `input` (a string, or message / function_call / function_call_output
 * items), `instructions`, `previous_response_id`, `store`, `stream`. The last input item must be
 * the user's message: it is the turn to run.
 */

import { isRecord } from "../core/is-record.js";
import type { ChatMessage, ContentPart } from "../llm/types.js";
import { turnText } from "./chat-request.js";
import { oneOf, optionalBoolean, optionalString, typeName } from "./checks.js";
import type { ConversationRequest } from "./conversation.js";
import { invalidField } from "./http.js";
import { responsesParams } from "./model-params.js";

export interface ResponsesRequest extends ConversationRequest {
  stream: boolean;
  store: boolean;
  previousResponseId: string | undefined;
  /** `instructions` as sent, echoed in the response object. */
  instructionsField: string | null;
  /** Where each history message came from (`input[3]`), for errors about it. */
  historyPaths: string[];
}

const ROLES = ["user", "assistant", "system", "developer"] as const;

function contentOf(v: unknown, path: string): string | ContentPart[] {
  if (typeof v === "string") return v;
  if (!Array.isArray(v))
    throw invalidField(path, `must be a string or an array of parts, not ${typeName(v)}`);
  return v.map((part, i): ContentPart => {
    const p = `${path}[${i}]`;
    if (!isRecord(part)) throw invalidField(p, `must be an object, not ${typeName(part)}`);
    const type = oneOf(part.type, ["input_text", "output_text", "text", "input_image"] as const, `${p}.type`);
    if (type === "input_image") {
      const url = part.image_url;
      if (typeof url !== "string" || !url)
        throw invalidField(`${p}.image_url`, "must be a URL or data URL (file_id is not supported)");
      return { type: "image_url", image_url: { url } };
    }
    if (typeof part.text !== "string") throw invalidField(`${p}.text`, "must be a string");
    return { type: "text", text: part.text };
  });
}

const plain = (c: string | ContentPart[]): string =>
  typeof c === "string" ? c : c.map((p) => (p.type === "text" ? p.text : "")).join("");

interface Parsed {
  messages: ChatMessage[];
  /** The input item of each message. */
  paths: string[];
  instructions: string[];
}

/** One input item into `out`: function calls join the assistant message before them. */
function addItem(item: unknown, path: string, out: Parsed): void {
  if (!isRecord(item)) throw invalidField(path, `must be an object, not ${typeName(item)}`);
  const type = item.type ?? "message";
  if (type === "reasoning") return; // opaque to other providers; the answer stands without it
  if (type === "function_call") {
    const callId = item.call_id;
    if (typeof callId !== "string" || !callId)
      throw invalidField(`${path}.call_id`, "must be a non-empty string");
    if (typeof item.name !== "string" || !item.name)
      throw invalidField(`${path}.name`, "must be a non-empty string");
    const args = item.arguments ?? "{}";
    if (typeof args !== "string") throw invalidField(`${path}.arguments`, "must be a JSON string");
    const call = { id: callId, type: "function" as const, function: { name: item.name, arguments: args } };
    const prev = out.messages.at(-1);
    if (prev?.role === "assistant") prev.tool_calls = [...(prev.tool_calls ?? []), call];
    else {
      out.messages.push({ role: "assistant", content: null, tool_calls: [call] });
      out.paths.push(path);
    }
    return;
  }
  if (type === "function_call_output") {
    const callId = item.call_id;
    if (typeof callId !== "string" || !callId)
      throw invalidField(`${path}.call_id`, "must be a non-empty string");
    const output = typeof item.output === "string" ? item.output : undefined;
    if (output === undefined) throw invalidField(`${path}.output`, "must be a string");
    out.messages.push({ role: "tool", tool_call_id: callId, content: output });
    out.paths.push(`${path}.call_id`);
    return;
  }
  if (type !== "message")
    throw invalidField(
      `${path}.type`,
      `must be one of message, function_call, function_call_output, reasoning, not ${JSON.stringify(type)}`,
    );
  const role = oneOf(item.role, ROLES, `${path}.role`);
  const content = contentOf(item.content, `${path}.content`);
  if (role === "system" || role === "developer") {
    const text = plain(content).trim();
    if (text) out.instructions.push(text);
    return;
  }
  out.messages.push(
    role === "user" ? { role: "user", content } : { role: "assistant", content: plain(content) },
  );
  out.paths.push(path);
}

/** Throws ApiError (400) naming the field at fault. */
export function parseResponsesRequest(body: Record<string, unknown>): ResponsesRequest {
  optionalString(body, "model");
  const stream = optionalBoolean(body, "stream") ?? false;
  const store = optionalBoolean(body, "store") ?? true;
  const previousResponseId = optionalString(body, "previous_response_id");
  const instructionsField = optionalString(body, "instructions") ?? null;
  const input = body.input;
  const parsed: Parsed = {
    messages: [],
    paths: [],
    instructions: instructionsField?.trim() ? [instructionsField.trim()] : [],
  };
  let last = "input";
  if (typeof input === "string") {
    parsed.messages.push({ role: "user", content: input });
    parsed.paths.push("input");
  } else if (Array.isArray(input)) {
    if (input.length === 0) throw invalidField("input", "must hold at least one user message");
    for (const [i, item] of input.entries()) addItem(item, `input[${i}]`, parsed);
    last = `input[${input.length - 1}]`;
  } else throw invalidField("input", `must be a string or an array of items, not ${typeName(input)}`);
  const final = parsed.messages.at(-1);
  if (final?.role !== "user") throw invalidField(last, "must be a user message (the turn to answer)");
  return {
    stream,
    store,
    params: responsesParams(body),
    previousResponseId,
    instructionsField,
    instructions: parsed.instructions.join("\n\n") || undefined,
    history: parsed.messages.slice(0, -1),
    historyPaths: parsed.paths.slice(0, -1),
    turn: turnText(final.content, typeof input === "string" ? "input" : `${last}.content`),
  };
}
