/**
 * Phase 5 (seed 004 §7.6): tool-call pairing after history was rewritten. A tool result whose call
 * is gone is dropped; an assistant tool call whose result is gone loses that call (and the whole
 * message when nothing else is left), because providers reject unmatched pairs.
 */
import type { AssistantMessage, ChatMessage } from "../../llm/types.js";

export function sanitizeToolPairs(messages: readonly ChatMessage[]): {
  messages: ChatMessage[];
  removed: number;
} {
  const callIds = new Set<string>();
  const resultIds = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const tc of m.tool_calls ?? []) callIds.add(tc.id);
    else if (m.role === "tool") resultIds.add(m.tool_call_id);
  }
  const out: ChatMessage[] = [];
  let removed = 0;
  for (const m of messages) {
    if (m.role === "tool") {
      if (!callIds.has(m.tool_call_id)) {
        removed += 1;
        continue;
      }
      out.push(m);
    } else if (m.role === "assistant" && m.tool_calls?.length) {
      const kept = m.tool_calls.filter((tc) => resultIds.has(tc.id));
      if (kept.length === m.tool_calls.length) {
        out.push(m);
        continue;
      }
      removed += m.tool_calls.length - kept.length;
      const { tool_calls: _drop, ...rest } = m;
      const next: AssistantMessage = kept.length > 0 ? { ...rest, tool_calls: kept } : { ...rest };
      if (kept.length === 0 && !next.content?.trim()) continue;
      out.push(next);
    } else {
      out.push(m);
    }
  }
  return { messages: out, removed };
}

/** True when every tool result follows its call and every call is answered (tests and checks). */
export function toolPairsValid(messages: readonly ChatMessage[]): boolean {
  const open = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const tc of m.tool_calls ?? []) open.add(tc.id);
    else if (m.role === "tool") {
      if (!open.has(m.tool_call_id)) return false;
      answered.add(m.tool_call_id);
    }
  }
  for (const id of open) if (!answered.has(id)) return false;
  return true;
}
