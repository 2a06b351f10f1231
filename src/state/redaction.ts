import type { AssistantMessage, ChatMessage, ContentPart } from "../llm/types.js";

/**
 * Redaction at the persistence boundary: every backend passes what it stores through these, with
 * the redactor the store was opened with. They return copies (the caller's objects, the live
 * conversation, are never changed) and the very same object when nothing changed.
 */

export type Redact = (text: string) => string;

export const noRedaction: Redact = (text) => text;

/**
 * Redacts text that may be JSON (tool-call arguments, tool results) without breaking it: JSON stays
 * valid JSON with its strings redacted; anything else is redacted as text.
 */
export function redactJsonText(text: string, redact: Redact): string {
  const out = redact(text);
  if (out === text) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return out;
  }
  if (isJson(out)) return out;
  // The redactor treated it as text and broke it: redact the compact form, then string by string.
  const compact = JSON.stringify(parsed);
  const again = redact(compact);
  if (again === compact || isJson(again)) return again;
  return JSON.stringify(redactStrings(parsed, redact));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A JSON-like value with its secrets redacted, as its JSON text would be (strings, and values under
 * keys that name a secret); the same value when nothing changed.
 */
export function redactValue<T>(value: T, redact: Redact): T {
  if (redact === noRedaction) return value;
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const out = redactJsonText(text, redact);
  return out === text ? value : (JSON.parse(out) as T);
}

/** Every string inside a parsed JSON value (keys too), redacted one by one. */
function redactStrings(value: unknown, redact: Redact): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redact(k)] = redactStrings(v, redact);
  return out;
}

function redactParts(parts: ContentPart[], redact: Redact): ContentPart[] {
  const out = parts.map((p) => (p.type === "text" ? { ...p, text: redact(p.text) } : p));
  return out.some((p, i) => p.type === "text" && p.text !== (parts[i] as { text: string }).text)
    ? out
    : parts;
}

function redactAssistant(m: AssistantMessage, redact: Redact): AssistantMessage {
  const out: AssistantMessage = { ...m, content: m.content === null ? null : redact(m.content) };
  if (m.tool_calls) {
    out.tool_calls = m.tool_calls.map((tc) => {
      const args = redactJsonText(tc.function.arguments, redact);
      return args === tc.function.arguments ? tc : { ...tc, function: { ...tc.function, arguments: args } };
    });
  }
  if (m.reasoning !== undefined) out.reasoning = redact(m.reasoning);
  if (m.thinking_blocks) {
    out.thinking_blocks = m.thinking_blocks.map((b) => {
      if (b.thinking === undefined) return b;
      const thinking = redact(b.thinking);
      if (thinking === b.thinking) return b;
      // A changed block no longer matches its signature: unsigned, it is kept but never replayed.
      const { signature: _dropped, ...rest } = b;
      return { ...rest, thinking };
    });
  }
  if (m.reasoning_items) {
    out.reasoning_items = m.reasoning_items.map((r) => {
      const summary = r.summary.map(redact);
      return summary.some((s, i) => s !== r.summary[i]) ? { ...r, summary } : r;
    });
  }
  const same =
    out.content === m.content &&
    out.reasoning === m.reasoning &&
    (out.tool_calls ?? []).every((tc, i) => tc === m.tool_calls?.[i]) &&
    (out.thinking_blocks ?? []).every((b, i) => b === m.thinking_blocks?.[i]) &&
    (out.reasoning_items ?? []).every((r, i) => r === m.reasoning_items?.[i]);
  return same ? m : out;
}

/** A message as it is persisted: the text of every role, tool-call arguments and reasoning redacted. */
export function redactMessage(m: ChatMessage, redact: Redact): ChatMessage {
  if (redact === noRedaction) return m;
  switch (m.role) {
    case "system": {
      const content = redact(m.content);
      return content === m.content ? m : { ...m, content };
    }
    case "user": {
      const content = typeof m.content === "string" ? redact(m.content) : redactParts(m.content, redact);
      return content === m.content ? m : { ...m, content };
    }
    case "assistant":
      return redactAssistant(m, redact);
    case "tool": {
      const content = redactJsonText(m.content, redact);
      return content === m.content ? m : { ...m, content };
    }
  }
}

/** Messages as persisted; the same array when none changed. */
export function redactMessages(messages: readonly ChatMessage[], redact: Redact): readonly ChatMessage[] {
  if (redact === noRedaction) return messages;
  const out = messages.map((m) => redactMessage(m, redact));
  return out.some((m, i) => m !== messages[i]) ? out : messages;
}
