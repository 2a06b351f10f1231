import type { AgentEvent } from "../agent/events.js";
import type { Logger } from "../core/log.js";

/** Writes the events worth keeping (tools, retries, outcomes) to the agent log. Text deltas are not logged. */
export function logAgentEvent(logger: Logger, sessionId: string, event: AgentEvent): void {
  switch (event.type) {
    case "tool_start":
      logger.info("tool start", { session: sessionId, call: event.callId, tool: event.name });
      return;
    case "tool_end":
      logger.info("tool end", {
        session: sessionId,
        call: event.callId,
        tool: event.name,
        error: event.isError,
        ms: Math.round(event.durationMs),
      });
      return;
    case "status":
      logger.warn(`status ${event.kind}`, { session: sessionId, message: event.message });
      return;
    case "done":
      logger.info("run done", { session: sessionId, status: event.status, error: event.error?.message });
      return;
    case "turn_start":
      logger.debug("model call", { session: sessionId, n: event.apiCall });
      return;
    case "subagent":
      if (event.phase !== "tool")
        logger.info(`subagent ${event.phase}`, {
          session: sessionId,
          child: event.childId,
          status: event.status,
        });
      return;
    case "inner_tool":
      logger.info("inner tool", {
        session: sessionId,
        parent: event.parent,
        tool: event.name,
        error: event.isError,
        ms: Math.round(event.durationMs),
      });
      return;
    case "compression":
      logger.info("context compressed", {
        session: sessionId,
        parent: event.parentSessionId,
        next: event.sessionId,
        mode: event.mode,
        before: event.tokensBefore,
        after: event.tokensAfter,
      });
      return;
    case "usage":
    case "text_delta":
    case "reasoning_delta":
    case "message":
      return;
  }
}
