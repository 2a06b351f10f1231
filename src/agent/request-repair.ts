/**
 * Repairs of a request's shape that a provider refused: the model call applies each at most once
 * per call and sends the request again at once. They change only the copy sent to the provider;
 * the history is never rewritten (prompt-cache rule).
 */
import type { AssistantMessage, ChatMessage, ContentPart, FailoverReason } from "../llm/types.js";

/**
 * drop_reasoning: replayed reasoning the provider cannot verify (Anthropic thinking signatures,
 * Responses encrypted items). tool_images_to_text: images sent along with tool results.
 */
export const REQUEST_REPAIRS = ["drop_reasoning", "tool_images_to_text"] as const;
export type RequestRepair = (typeof REQUEST_REPAIRS)[number];

/** What an image sent with tool results becomes when the server takes text only there. */
export const TOOL_IMAGE_NOTE = "[image omitted: the model cannot read images in tool results]";

/** The repair that answers a failure, if any. */
export function repairFor(reason: FailoverReason): RequestRepair | undefined {
  switch (reason) {
    case "thinking_signature":
    case "invalid_encrypted_content":
      return "drop_reasoning";
    case "multimodal_tool_content_unsupported":
      return "tool_images_to_text";
    case "auth":
    case "auth_permanent":
    case "billing":
    case "rate_limit":
    case "overloaded":
    case "server_error":
    case "timeout":
    case "connection_refused":
    case "context_overflow":
    case "payload_too_large":
    case "image_too_large":
    case "model_not_found":
    case "provider_policy_blocked":
    case "content_policy_blocked":
    case "format_error":
    case "long_context_tier":
    case "oauth_long_context_beta_forbidden":
    case "llama_cpp_grammar_pattern":
    case "aborted":
    case "unknown":
      return undefined;
  }
}

/** The status line shown while the repaired request goes out. */
export function repairMessage(repair: RequestRepair): string {
  switch (repair) {
    case "drop_reasoning":
      return "the provider rejected the replayed reasoning; sending the request again without it";
    case "tool_images_to_text":
      return "the provider takes no images in tool results; sending them again as text notes";
  }
}

/** `messages` with `repair` applied, or undefined when it changes nothing (so resending cannot help). */
export function applyRepair(
  messages: readonly ChatMessage[],
  repair: RequestRepair,
): ChatMessage[] | undefined {
  const out = repair === "drop_reasoning" ? withoutReasoning(messages) : toolImagesToText(messages);
  return out.some((m, i) => m !== messages[i]) ? out : undefined;
}

/** Applies every repair in `repairs` (in a fixed order), returning `messages` itself when none changes it. */
export function applyRepairs(
  messages: readonly ChatMessage[],
  repairs: ReadonlySet<RequestRepair>,
): readonly ChatMessage[] {
  let out = messages;
  for (const repair of REQUEST_REPAIRS) {
    if (repairs.has(repair)) out = applyRepair(out, repair) ?? out;
  }
  return out;
}

function withoutReasoning(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role !== "assistant" || (!m.thinking_blocks?.length && !m.reasoning_items?.length)) return m;
    const { thinking_blocks: _thinking, reasoning_items: _items, ...rest } = m;
    return rest satisfies AssistantMessage;
  });
}

/**
 * The images that travel with tool results: a tool message's own images, and the image parts of
 * the user content that follows tool results before the next assistant turn (Anthropic puts both
 * in one turn). Images the user sent with a question of their own are kept.
 */
function toolImagesToText(messages: readonly ChatMessage[]): ChatMessage[] {
  let afterToolResults = false;
  return messages.map((m) => {
    if (m.role === "tool") {
      afterToolResults = true;
      if (!m.images?.length) return m;
      const { images, ...text } = m;
      return {
        ...text,
        content: [m.content, ...images.map(() => TOOL_IMAGE_NOTE)].filter(Boolean).join("\n\n"),
      };
    }
    if (m.role !== "user") afterToolResults = false;
    if (m.role !== "user" || !afterToolResults || typeof m.content === "string") return m;
    if (!m.content.some((p) => p.type === "image_url")) return m;
    const content = m.content.map(
      (p): ContentPart => (p.type === "image_url" ? { type: "text", text: TOOL_IMAGE_NOTE } : p),
    );
    return { ...m, content };
  });
}
