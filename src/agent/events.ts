import type { ChatMessage, ClassifiedError, FailoverReason, Usage } from "../llm/types.js";

/** Why a run ended. */
export type RunStatus = "completed" | "interrupted" | "budget_exhausted" | "failed";

/** retry: a backoff wait; rotate: another pooled key; fallback: another provider/model; compress: context shrunk. */
export type StatusKind =
  | "retry"
  | "rotate"
  | "fallback"
  | "compress"
  | "budget"
  | "interrupt"
  | "steer"
  | "warning"
  | "info";

/**
 * Everything the agent reports to its front end. The agent never prints; entry points render these.
 * Listeners must not throw (a throwing listener is caught and ignored).
 *
 * Streamed text is provisional. Every HTTP attempt of a run has its own `attempt` number (counting
 * from 1 across the run's model calls); an attempt that fails after streaming text or reasoning and
 * is then retried, rerouted or given up is withdrawn with one `attempt_discarded` event, and a
 * front end drops (or marks) everything that attempt streamed. The answer is the text of the
 * attempts never withdrawn, and `done.finalText` holds it whole.
 */
export type AgentEvent =
  | { type: "turn_start"; apiCall: number }
  | { type: "text_delta"; text: string; attempt: number }
  | { type: "reasoning_delta"; text: string; attempt: number }
  /** The text and reasoning deltas of `attempt` are not part of the answer (sent only if it streamed any). */
  | { type: "attempt_discarded"; attempt: number; reason: FailoverReason }
  | { type: "tool_start"; callId: string; name: string; args: Record<string, unknown>; emoji: string }
  | { type: "tool_end"; callId: string; name: string; result: string; isError: boolean; durationMs: number }
  | { type: "status"; kind: StatusKind; message: string }
  /** Tokens of one model call; `model`/`provider` are the ones that served it (a fallback may). */
  | { type: "usage"; call: Usage; total: Usage; model: string; provider: string }
  /** A message appended to the history (the hook for persistence). */
  | { type: "message"; message: ChatMessage }
  | { type: "done"; status: RunStatus; finalText: string; error?: ClassifiedError }
  /**
   * The history was compressed: the conversation continues as session `sessionId`, linked to
   * `parentSessionId`, with `messages` (system prompt first) as its whole history.
   */
  | {
      type: "compression";
      parentSessionId: string;
      sessionId: string;
      messages: ChatMessage[];
      tokensBefore: number;
      tokensAfter: number;
      mode: "pruned" | "summary" | "fallback";
    }
  /** Progress of a delegated child (delegate_task): started, ran a tool, finished (with its status). */
  | SubagentEvent
  /** A tool run by another tool (execute_code's script): logged and shown, never in the model's history. */
  | InnerToolEvent;

export type InnerToolEvent = {
  type: "inner_tool";
  /** The tool that made the call. */
  parent: string;
  name: string;
  args: Record<string, unknown>;
  /** The result the calling tool received (redacted); for the transcript, never the model. */
  result: string;
  isError: boolean;
  durationMs: number;
};

export type SubagentEvent = {
  type: "subagent";
  phase: "start" | "tool" | "end";
  /** The child's session id. */
  childId: string;
  depth: number;
  goal: string;
  tool?: string;
  status?: string;
};

export type AgentEventListener = (event: AgentEvent) => void;
