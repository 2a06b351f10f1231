import type { HermesConfig } from "../core/config.js";
import type { ApprovalSession } from "./approval/session.js";
import type { ApproveFn } from "./approval/types.js";
import type { ExecutionEnvironment } from "./environments/types.js";
import type { ToolRegistry } from "./registry.js";
import type { SkillsService } from "./skills-service.js";
import type { ToolSearchService } from "./tool-search/bridge.js";

/**
 * What a tool handler receives. Tools never import `agent/`: anything they need from agent state
 * arrives here as a narrow interface implemented by the agent.
 */
export interface ToolContext {
  /** Key of the terminal/file environment state (cwd, env). A subagent gets its own, forked from its parent's. */
  readonly taskId: string;
  /**
   * The conversation's stored row now: compression continues a conversation under a new row id,
   * so read it when needed rather than keeping it.
   */
  readonly sessionId: string;
  /**
   * The conversation's stable id (the first row of its compression lineage): what "for this
   * session" approvals are kept under. Defaults to `sessionId`.
   */
  readonly conversationId?: string;
  /** Every stored row of this conversation, oldest first (read live): session_search leaves them out. */
  readonly conversationSessionIds?: readonly string[];
  /** Aborted when the user interrupts the turn. Long-running tools must honour it. */
  readonly signal: AbortSignal;
  readonly config: HermesConfig;
  /** HERMES_HOME of this run. */
  readonly home: string;
  /** The task's execution environment. */
  readonly env: ExecutionEnvironment;
  /** cli, telegram, cron, ... */
  readonly platform: string;
  /** Whose conversation this is: their background processes, folder and memory. Absent: the profile's owner. */
  readonly scope?: UserScope;
  /**
   * Messages for the model that arrive later (a background process finished, a watched pattern
   * appeared): delivered with the next tool result, or before the next user message when idle.
   */
  readonly notices?: ToolNotices;
  /** This conversation's approval state (mode, yolo: live) on the process's shared policy (allowlist, judge). */
  readonly approvals?: ApprovalSession;
  /** Asks the user to approve a flagged command; absent when nobody can answer. */
  readonly approve?: ApproveFn;
  /** A person can answer approval prompts now (false for -z, pipes, cron, subagents). */
  readonly interactive?: boolean;
  /** Past sessions (state.db) for session_search; absent when there is no store. */
  readonly sessions?: SessionSearchService;
  /** The persistent memory store (MEMORY.md / USER.md); absent when memory is off. */
  readonly memory?: MemoryService;
  /** This session's task list (the `todo` tool). */
  readonly todos?: TodoService;
  /** Asks the user a question (the `clarify` tool); absent where nobody can answer. */
  readonly clarify?: ClarifyFn;
  /** Starts subagents (the `delegate_task` tool); absent where delegation is unavailable. */
  readonly delegate?: DelegationService;
  /** Runs other tools on the model's behalf (the `execute_code` tool); absent where that is unavailable. */
  readonly toolCalls?: ToolCallService;
  /** The session's deferred tools, for the tool search bridge; absent while nothing is deferred. */
  readonly toolSearch?: ToolSearchService;
  /** The skills store as this session sees it (skills tools; loaded skills' variables for commands). */
  readonly skills?: SkillsService;
}

/**
 * Who a conversation works for and what on this machine is theirs. Made once per user by the
 * runtime and handed down unchanged (agent options, tool context), so no tool decides on its own
 * whose folder, memory or processes it touches.
 */
export interface UserScope {
  /**
   * `platform:user id` of a chat user: owns the background processes started in their sessions and
   * sees only those. Undefined for the profile's owner (the CLI, cron, admin users, the API server).
   */
  readonly userKey?: string;
  /** The folder their sessions start in (terminal, file tools, execute_code, context files). */
  readonly workdir: string;
  /** The folder of their MEMORY.md and USER.md. */
  readonly memoryDir: string;
  /**
   * A chat user's own places; absent for the profile's owner. The approval gate lets their commands
   * change their own working folder (and nothing else in HERMES_HOME); their file tools refuse
   * other users' folders and Hermes's own files.
   */
  readonly own?: OwnFolders;
}

/** What belongs to one chat user on this machine. */
export interface OwnFolders {
  /** Their working folder when it is theirs alone (gateway.user_workdirs): theirs to change. */
  readonly work?: string;
  /** `HERMES_HOME/users/<platform>/<user id>`: their memory and, by default, their working folder. */
  readonly dir: string;
  /** The folder holding every user's working folder: gateway.workdir_root, or HERMES_HOME/users. */
  readonly workRoot: string;
}

/**
 * Tool calls made by a tool (execute_code's scripts): dispatched like the model's own calls, with
 * this context and redaction, reported as inner calls but never added to the model's history.
 */
export interface ToolCallService {
  /** Names of the tools the model can call in this session (selection and availability applied). */
  available(): string[];
  /** Runs one tool and returns its result string. Never throws. `signal` stops it early. */
  call(
    name: string,
    args: Record<string, unknown>,
    opts: { parent: string; signal?: AbortSignal },
  ): Promise<string>;
}

/** One delegated task: a goal, what the child needs to know, and optionally which toolsets it gets. */
export interface DelegateTaskSpec {
  goal: string;
  context?: string;
  toolsets?: string[];
  role?: "leaf" | "orchestrator";
}

/** How a child ended: completed/budget_exhausted carry its summary; the rest say why not. */
export type ChildStatus = "completed" | "budget_exhausted" | "failed" | "interrupted" | "timeout" | "stale";

export interface ChildReport {
  index: number;
  goal: string;
  status: ChildStatus;
  /** The child's final answer, capped at delegation.max_summary_chars. */
  summary: string;
  role: "leaf" | "orchestrator";
  depth: number;
  sessionId: string;
  apiCalls: number;
  durationSeconds: number;
  toolsUsed: string[];
  filesTouched: string[];
  error?: string;
}

export type DelegationOutcome =
  | { ok: true; results: ChildReport[]; note?: string }
  | { ok: true; background: { id: string; tasks: number } }
  | { ok: false; error: string };

/** Delegation limits in force (the tool's description reflects them). */
export interface DelegationLimits {
  depth: number;
  maxSpawnDepth: number;
  maxConcurrent: number;
  maxIterations: number;
}

/** Narrow view of subagent spawning for the `delegate_task` tool. */
export interface DelegationService {
  limits(): DelegationLimits;
  /** Runs the tasks (in parallel up to the limit); background ones return an id and report via notices. */
  run(tasks: readonly DelegateTaskSpec[], options: { background: boolean }): Promise<DelegationOutcome>;
}

export interface ClarifyRequest {
  question: string;
  /** Up to four suggested answers; the user may always type their own. */
  choices: string[];
  /** Aborted on interrupt or when the clarify timeout runs out. */
  signal: AbortSignal;
}

/** Resolves with the user's answer, or undefined when no answer came (timeout, interrupt, input closed). */
export type ClarifyFn = (request: ClarifyRequest) => Promise<string | undefined>;

export type MemoryTarget = "memory" | "user";

export interface MemoryOperation {
  action: "add" | "replace" | "remove";
  content?: string;
  old_text?: string;
}

export interface MemoryWriteResult {
  ok: boolean;
  error?: string;
  entries?: string[];
  usage?: { used: number; limit: number };
}

/** Narrow view of the memory store for the `memory` tool. Writes are durable when this returns. */
export interface MemoryService {
  enabled(target: MemoryTarget): boolean;
  read(target: MemoryTarget): string[];
  limit(target: MemoryTarget): number;
  /** All operations or none; resolves once written (never waits on the event loop for a lock). */
  apply(target: MemoryTarget, operations: readonly MemoryOperation[]): Promise<MemoryWriteResult>;
}

export type TodoStatus = "pending" | "in_progress" | "completed" | "cancelled";

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

/** A session's task list, kept by the agent (never in the system prompt). */
export interface TodoService {
  list(): TodoItem[];
  /** Replaces the list (merge=false) or updates/appends by id (merge=true). Throws on invalid input. */
  write(items: readonly Partial<TodoItem>[], merge: boolean): TodoItem[];
}

/** What session_search may do with the session store: read only. */
export interface SessionSearchService {
  search(opts: {
    query: string;
    limit?: number;
    sort?: "relevance" | "recency";
    role?: string;
    excludeSessionIds?: string[];
  }): Array<{
    messageId: number;
    sessionId: string;
    sessionTitle: string | null;
    role: string;
    seq: number;
    createdAt: number;
    snippet: string;
  }>;
  around(
    sessionId: string,
    messageId: number,
    window: number,
  ): Array<{ id: number; seq: number; createdAt: number; message: { role: string; content: unknown } }>;
  getSession(id: string): { id: string; title: string | null; startedAt: number } | undefined;
}

/** Queue of later messages for the model, implemented by the agent. */
export interface ToolNotices {
  push(text: string): void;
}

export type HermesToolRegistry = ToolRegistry<ToolContext>;
