/**
 * Phase 4 (seed 004 §7.5): head + summary + tail. The summary takes whichever role keeps user and
 * assistant turns alternating; when neither fits it is merged into the first message after it. A
 * user-role summary ends with a marker so the quoted request is not mistaken for a new one.
 */
import type { ChatMessage } from "../../llm/types.js";
import { SUMMARY_END_MARKER } from "./summary.js";

type Side = "user" | "assistant" | "none";

/** Tool results travel as user-side content on some protocols: treat them as user for adjacency. */
function side(m: ChatMessage | undefined): Side {
  if (!m || m.role === "system") return "none";
  return m.role === "assistant" ? "assistant" : "user";
}

export interface Assembled {
  messages: ChatMessage[];
  summaryRole: "user" | "assistant" | "merged";
}

/**
 * `after` is what follows the summary in order (the kept latest user message, when it had to be
 * lifted out of the compressed region, then the tail).
 */
export function assemble(
  head: readonly ChatMessage[],
  summary: string,
  after: readonly ChatMessage[],
): Assembled {
  const prev = side(head[head.length - 1]);
  const next = side(after[0]);
  for (const role of ["user", "assistant"] as const) {
    if (role === prev || role === next) continue;
    // After the system prompt a conversation must open with a user turn on strict providers.
    if (prev === "none" && role === "assistant") continue;
    const content = role === "user" ? `${summary}\n\n${SUMMARY_END_MARKER}` : summary;
    return { messages: [...head, { role, content }, ...after], summaryRole: role };
  }
  const first = after[0];
  if (!first) {
    // Nothing after the summary: a user turn is always a valid end of history here.
    return {
      messages: [...head, { role: "user", content: `${summary}\n\n${SUMMARY_END_MARKER}` }],
      summaryRole: "user",
    };
  }
  return { messages: [...head, mergeInto(first, summary), ...after.slice(1)], summaryRole: "merged" };
}

function mergeInto(m: ChatMessage, summary: string): ChatMessage {
  const lead = `${summary}\n\n${SUMMARY_END_MARKER}\n\n`;
  if (m.role === "user") {
    if (typeof m.content === "string") return { ...m, content: `${lead}${m.content}` };
    return { ...m, content: [{ type: "text", text: lead }, ...m.content] };
  }
  if (m.role === "assistant") return { ...m, content: `${lead}${m.content ?? ""}` };
  return m;
}
