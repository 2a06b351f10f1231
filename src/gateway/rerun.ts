import type { Agent } from "../agent/agent.js";
import type { ChatMessage } from "../llm/types.js";

/**
 * The user message of a re-run whose earlier turn had made progress (tool calls, part of an
 * answer) before the gateway stopped: the platform message is already in the conversation, once.
 */
export const CONTINUE_PROMPT =
  "[The gateway restarted before your answer to the message above reached the user. Finish answering it; tools that already ran have run, so do not repeat them.]";

/** Where the user message of `text` sits in `messages` (the last one), when it is there. */
function lastUserIndexOf(messages: readonly ChatMessage[], text: string): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    // Notices and steering that rode on the message go in front of its text.
    const content = typeof m.content === "string" ? m.content : undefined;
    return content === text || content?.endsWith(`\n\n${text}`) ? i : undefined;
  }
  return undefined;
}

/**
 * What a turn run again after a restart sends to the model, so the platform message reaches it as
 * one user message however far the cut-short turn got:
 * - the conversation does not hold the message yet (the turn never started): `text`;
 * - it ends with the message and nothing after it: the message is taken out of the agent and the
 *   stored session (`dropStored`), and `text` runs as it would have;
 * - work followed the message: that work stays (tools are not run twice) and a note asks the
 *   model to finish.
 */
export function rerunPrompt(
  agent: Agent,
  text: string,
  dropStored: (sessionId: string, count: number) => void,
): string {
  const messages = agent.messages;
  const index = lastUserIndexOf(messages, text);
  if (index === undefined) return text;
  if (index < messages.length - 1) return CONTINUE_PROMPT;
  const rewound = agent.rewindToLastUser();
  if (rewound) dropStored(agent.sessionId, rewound.removed);
  return text;
}
