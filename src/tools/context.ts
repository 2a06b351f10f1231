import type { HermesConfig } from "../core/config.js";
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
}

export type HermesToolRegistry = ToolRegistry<ToolContext>;
