/**
 * The agent's shared vocabulary: its options, the result of a run and what watchers see of it.
 * Kept apart from `agent.ts` so the turn, the context keeper and delegation depend on these
 * shapes, not on the class.
 */
import type { HermesConfig } from "../core/config.js";
import type { ProviderRouter } from "../llm/provider-router.js";
import type {
  ChatMessage,
  ClassifiedError,
  FinishReason,
  ModelTarget,
  StreamFn,
  Usage,
} from "../llm/types.js";
import type { ApprovalSession } from "../tools/approval/session.js";
import type { ApproveFn } from "../tools/approval/types.js";
import type { ClarifyFn, SessionSearchService, ToolContext, UserScope } from "../tools/context.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ContextCompressorHook, ModelSwitchHook } from "./compressor-hook.js";
import type { DelegationSettings } from "./delegation.js";
import type { AgentEventListener, RunStatus } from "./events.js";
import type { HookBus } from "./hooks.js";
import type { MemoryProvider } from "./memory/index.js";

export interface AgentOptions {
  target: ModelTarget;
  registry: ToolRegistry<ToolContext>;
  /**
   * Tool names this session may expose (toolset selection); the registry filters availability. A
   * function is asked at the session's first request (and on `reloadTools()`), so tools registered
   * after the agent was built still reach it.
   */
  toolNames: ReadonlySet<string> | (() => ReadonlySet<string>);
  config: HermesConfig;
  home: string;
  environments: EnvironmentProvider;
  /** Whose conversation this is (memory folder, process ownership); default: the profile's owner. Subagents share it. */
  scope?: UserScope;
  platform?: string;
  taskId?: string;
  sessionId?: string;
  /** A resumed conversation's stable id (the first row of its compression lineage); default `sessionId`. */
  conversationId?: string;
  /** A resumed conversation's stored rows before `sessionId`, oldest first (its compression lineage). */
  earlierSessionIds?: readonly string[];
  /** The directory the front end works in: context files of a remote backend come from it (default: the process's). */
  cwd?: string;
  /** Injected stream function (tests); defaults to each request's wire protocol. */
  streamFn?: StreamFn;
  /** Provider, key pool and fallback chain; defaults to `target` alone. */
  router?: ProviderRouter;
  /** Shrinks the conversation on a context overflow; without one an overflow ends the request. */
  compressor?: ContextCompressorHook;
  /** Told when a fallback switches provider/model (context budgets follow the new model). */
  onModelSwitch?: ModelSwitchHook;
  maxTurns?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  onEvent?: AgentEventListener;
  /** A stored system prompt (resumed session); otherwise built on first use. */
  systemPrompt?: string;
  /** Prior messages (resumed session), without the system message. */
  history?: ChatMessage[];
  /** This conversation's approval state (mode, yolo, "for this session" answers); subagents share their parent's. */
  approvals?: ApprovalSession;
  /** Asks the user about a flagged command. Leave unset for subagents and non-interactive runs: they auto-deny. */
  approve?: ApproveFn;
  /** One external memory provider whose block joins the memory layer (the built-in store is always on). */
  memoryProvider?: MemoryProvider;
  /**
   * The run ends with its answer (hermes -z, chat -q): before answering, wait for background
   * delegations and hand their results to the model, since no later turn would receive them.
   */
  awaitBackground?: boolean;
  /** Asks the user a question (clarify tool). Without it the clarify tool is hidden. */
  clarify?: ClarifyFn;
  /** The session store, read-only, for session_search. */
  sessions?: SessionSearchService;
  /** This agent's place in a delegation tree and how its children are built (delegate_task). */
  delegation?: DelegationSettings;
  /** Told once by `close()`, after background work stopped: ends what the front end keeps for the session. */
  onClose?: (reason: string) => void | Promise<void>;
  /** Told when a tool queues a notice for the model (a background process or delegation finished). */
  onNotice?: () => void;
  /** The hooks this agent fires (plugins, shell commands); subagents share their parent's. */
  hooks?: HookBus;
  /** Text plugins add to the system prompt, asked once when it is built ("" for none). */
  promptSections?: () => Promise<string>;
}

export interface RunResult {
  status: RunStatus;
  finalText: string;
  /**
   * Why the run failed; also set when it ended (completed or budget_exhausted) without any answer
   * text, so no front end passes an empty answer off as a success.
   */
  error?: ClassifiedError;
  /** Tokens used by this run. */
  usage: Usage;
  apiCalls: number;
  /** Why the run's last model call stopped (`length`: its answer was cut by the output cap). */
  finishReason?: FinishReason;
}

export interface ActivitySnapshot {
  lastActivityAt: number;
  description: string;
  currentTool: string | undefined;
  apiCalls: number;
}

/** An agent as delegation and its watchers drive it: run, stop, and observe its activity. */
export interface RunnableAgent {
  readonly sessionId: string;
  readonly activitySnapshot: ActivitySnapshot;
  /** Never throws; failures come back in the result. */
  runConversation(userText: string): Promise<RunResult>;
  interrupt(): void;
  /** Ends the agent for good: its session, background work and environment. Never rejects. */
  close?(reason?: string): Promise<void>;
}

/** A failure made here rather than by a provider (nothing to retry or route around). */
export function localError(message: string): ClassifiedError {
  return {
    reason: "unknown",
    message,
    retryable: false,
    shouldCompress: false,
    shouldRotateCredential: false,
    shouldFallback: false,
  };
}
