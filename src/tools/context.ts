import type { HermesConfig } from "../core/config.js";
import type { ApprovalSession } from "./approval/session.js";
import type { ApproveFn } from "./approval/types.js";
import type { ExecutionEnvironment } from "./environments/types.js";
import type { ToolRegistry } from "./registry.js";

/**
 * What a tool handler receives. Tools never import `agent/`: anything they need from agent state
 * arrives here as a narrow interface implemented by the agent.
 */
export interface ToolContext {
  /** Key of the terminal/file environment state (cwd, env). Subagents share their parent's. */
  readonly taskId: string;
  readonly sessionId: string;
  /** Aborted when the user interrupts the turn. Long-running tools must honour it. */
  readonly signal: AbortSignal;
  readonly config: HermesConfig;
  /** HERMES_HOME of this run. */
  readonly home: string;
  /** The task's execution environment. */
  readonly env: ExecutionEnvironment;
  /** cli, telegram, cron, ... */
  readonly platform: string;
  /**
   * Messages for the model that arrive later (a background process finished, a watched pattern
   * appeared): delivered with the next tool result, or before the next user message when idle.
   */
  readonly notices?: ToolNotices;
  /** Dangerous-command policy of this run: mode, yolo (live), session and permanent approvals. */
  readonly approvals?: ApprovalSession;
  /** Asks the user to approve a flagged command; absent when nobody can answer. */
  readonly approve?: ApproveFn;
  /** A person can answer approval prompts now (false for -z, pipes, cron, subagents). */
  readonly interactive?: boolean;
}

/** Queue of later messages for the model, implemented by the agent. */
export interface ToolNotices {
  push(text: string): void;
}

export type HermesToolRegistry = ToolRegistry<ToolContext>;
