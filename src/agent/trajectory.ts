import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ChatMessage } from "../llm/types.js";

export interface ShareGptTurn {
  from: "system" | "human" | "gpt" | "tool";
  value: string;
}

const textOf = (content: ChatMessage["content"]): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n")
      : "";

/** Converts a conversation to ShareGPT turns; tool calls and results are wrapped in tags as training data expects. */
export function toShareGpt(messages: readonly ChatMessage[]): ShareGptTurn[] {
  return messages.map(toShareGptTurn);
}

function toShareGptTurn(m: ChatMessage): ShareGptTurn {
  switch (m.role) {
    case "system":
      return { from: "system", value: m.content };
    case "user":
      return { from: "human", value: textOf(m.content) };
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((tc) => {
        let args: unknown = tc.function.arguments;
        try {
          args = JSON.parse(tc.function.arguments);
        } catch {
          // keep the raw string
        }
        return `<tool_call>\n${JSON.stringify({ name: tc.function.name, arguments: args })}\n</tool_call>`;
      });
      return { from: "gpt", value: [m.content ?? "", ...calls].filter(Boolean).join("\n") };
    }
    case "tool":
      return {
        from: "tool",
        value: `<tool_response>\n${JSON.stringify({ tool_call_id: m.tool_call_id, name: m.name, content: m.content })}\n</tool_response>`,
      };
  }
}

/**
 * Appends one conversation as a JSONL line to trajectories/trajectory_samples.jsonl (completed) or
 * failed_trajectories.jsonl. Best effort: a write failure never affects the session.
 */
export function saveTrajectory(
  home: string,
  messages: readonly ChatMessage[],
  model: string,
  completed: boolean,
): void {
  const dir = join(home, "trajectories");
  const file = join(dir, completed ? "trajectory_samples.jsonl" : "failed_trajectories.jsonl");
  const entry = {
    conversations: toShareGpt(messages),
    timestamp: new Date().toISOString(),
    model,
    completed,
  };
  try {
    mkdirSync(dir, { recursive: true });
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // Trajectories are optional research output.
  }
}
