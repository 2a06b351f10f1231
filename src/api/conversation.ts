/**
 * What a request asks of the agent, in the agent's own terms: the earlier turns (its history), the
 * caller's instructions and the user text of the turn to run. Both OpenAI protocols parse into this.
 *
 * The caller's system messages (chat) or `instructions` (Responses) are not merged into Hermes's
 * system prompt, which stays byte-identical across conversations so the provider's prompt cache
 * keeps it. They are prepended to the FIRST user message of the conversation instead: a client
 * that resends its conversation with the same instructions sends the same prefix every time.
 */
import type { ChatMessage, ContentPart, RequestParams } from "../llm/types.js";

export interface ConversationRequest {
  /** Earlier messages, oldest first (no system messages), as the caller sent them. */
  history: ChatMessage[];
  /** The caller's instructions (system/developer messages, `instructions`), or undefined. */
  instructions: string | undefined;
  /** The user text of the turn to run. */
  turn: string;
  /** Sampling and output settings for the run's model calls (`{}`: the configured defaults). */
  params: RequestParams;
}

/** The messages and turn text the agent gets: the instructions placed on the first user message. */
export function applyInstructions(request: ConversationRequest): { history: ChatMessage[]; turn: string } {
  const { instructions } = request;
  if (!instructions) return { history: request.history, turn: request.turn };
  const firstUser = request.history.findIndex((m) => m.role === "user");
  if (firstUser < 0) return { history: request.history, turn: withInstructions(request.turn, instructions) };
  const history = [...request.history];
  const m = history[firstUser]!;
  if (m.role === "user") {
    history[firstUser] = {
      role: "user",
      content:
        typeof m.content === "string"
          ? withInstructions(m.content, instructions)
          : [{ type: "text", text: withInstructions("", instructions) } satisfies ContentPart, ...m.content],
    };
  }
  return { history, turn: request.turn };
}

/** The caller's instructions, marked as such, ahead of the user's text. */
export function withInstructions(text: string, instructions: string): string {
  const block = `<api_caller_instructions>\n${instructions.trim()}\n</api_caller_instructions>`;
  return text ? `${block}\n\n${text}` : block;
}

/**
 * Assistant tool calls without results (a client that cut its history short) get a result saying
 * so: providers refuse a call without one.
 */
export function answerOpenToolCalls(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let open: Map<string, string> | undefined;
  const closeOpen = (): void => {
    for (const [id, name] of open ?? [])
      out.push({
        role: "tool",
        tool_call_id: id,
        name,
        content: JSON.stringify({ error: "No result: the conversation sent to the API had none." }),
      });
    open = undefined;
  };
  for (const m of messages) {
    if (m.role === "tool") {
      open?.delete(m.tool_call_id);
      out.push(m);
      continue;
    }
    closeOpen();
    out.push(m);
    if (m.role === "assistant" && m.tool_calls?.length)
      open = new Map(m.tool_calls.map((c) => [c.id, c.function.name]));
  }
  closeOpen();
  return out;
}
