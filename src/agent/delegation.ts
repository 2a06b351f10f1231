/**
 * Subagent delegation (seed 004 §11): delegate_task starts fresh agents with their own conversation,
 * a focused system prompt and a restricted toolset, runs them in parallel up to a limit, watches them
 * (timeout, stale heartbeat, the parent's interrupt) and hands back one capped summary per child.
 */
import { randomUUID } from "node:crypto";
import { newSessionId } from "../core/session-id.js";
import { ProviderRouter } from "../llm/provider-router.js";
import type {
  ChildReport,
  ChildStatus,
  DelegateTaskSpec,
  DelegationLimits,
  DelegationOutcome,
  DelegationService,
  ToolNotices,
} from "../tools/context.js";
import { resolveToolset } from "../tools/toolsets.js";
import type { AgentEvent } from "./events.js";
import { notify } from "./hooks-session.js";
import { buildSubagentPrompt } from "./prompt/subagent.js";
import type { RunnableAgent as Agent, AgentOptions } from "./types.js";

/** Tools a child never gets (§11.2); delegate_task comes back only for orchestrators within the depth limit. */
export const DELEGATE_BLOCKED_TOOLS: ReadonlySet<string> = new Set([
  "delegate_task",
  "clarify",
  "memory",
  "send_message",
  "execute_code",
]);

/** Hard ceiling of max_spawn_depth whatever the config says. */
export const MAX_SPAWN_DEPTH_CEILING = 3;

/** Builds a child agent; the runtime supplies one that also records the child's session in state.db. */
export type ChildAgentFactory = (
  options: AgentOptions,
  meta: { parentSessionId: string; depth: number },
) => Agent;

/** What an agent needs to know about its place in a delegation tree. */
export interface DelegationSettings {
  /** This agent's depth (0 = top level). */
  depth?: number;
  factory?: ChildAgentFactory;
  /**
   * This agent ends after its answer (a subagent): no later turn would receive a background
   * result, so `background: true` runs in the foreground instead.
   */
  foregroundOnly?: boolean;
}

/** The delegating agent as the service sees it. */
export interface DelegationParent {
  options: AgentOptions;
  /** The parent's row id now (read when a child starts: compression may have moved it). */
  sessionId: string;
  taskId: string;
  /** The tools of the parent's session: what a child's tools are chosen from. */
  toolNames: ReadonlySet<string>;
  /** The running turn's signal: aborting it cancels every synchronous child. */
  signal: AbortSignal;
  notices: ToolNotices;
  emit(event: AgentEvent): void;
  /** Marks the parent alive while its children make progress (its own watchers see activity). */
  touch?(description: string): void;
  /** Default child construction when no factory is configured. */
  create(options: AgentOptions): Agent;
  /**
   * Told about each background delegation; the job settles when its result notice has been queued,
   * and `controller` stops it (the parent closing).
   */
  trackBackground?(job: Promise<void>, controller: AbortController): void;
}

/** One live child, for observers (§11.5): every delegate_task call in the process registers here. */
export interface ActiveSubagent {
  id: string;
  parentSessionId: string;
  depth: number;
  goal: string;
  startedAt: number;
  agent: Agent;
}

const active = new Map<string, ActiveSubagent>();

/** The children running right now, across all delegations of this process. */
export function activeSubagents(): ActiveSubagent[] {
  return [...active.values()];
}

export function delegationLimits(options: AgentOptions): DelegationLimits {
  const d = options.config.delegation;
  return {
    depth: options.delegation?.depth ?? 0,
    maxSpawnDepth: Math.min(MAX_SPAWN_DEPTH_CEILING, Math.max(1, d.max_spawn_depth)),
    maxConcurrent: Math.max(1, d.max_concurrent_children),
    maxIterations: Math.max(1, d.max_iterations),
  };
}

/** The role a child really gets: orchestrator only when enabled and its own children stay within the limit. */
export function effectiveRole(
  requested: DelegateTaskSpec["role"],
  childDepth: number,
  maxSpawnDepth: number,
  orchestratorEnabled: boolean,
): "leaf" | "orchestrator" {
  return requested === "orchestrator" && orchestratorEnabled && childDepth < maxSpawnDepth
    ? "orchestrator"
    : "leaf";
}

/**
 * The child's tool names: the parent's (or the requested toolsets' tools the parent has), minus the
 * blocked ones; an orchestrator keeps delegate_task.
 */
export function childToolNames(
  parentTools: ReadonlySet<string>,
  role: "leaf" | "orchestrator",
  toolsets: readonly string[] | undefined,
  resolve: (toolset: string) => string[] = (t) => resolveToolset(t),
): Set<string> {
  let base: Iterable<string> = parentTools;
  if (toolsets && toolsets.length > 0) {
    const wanted = new Set(toolsets.flatMap((t) => resolve(t)));
    base = [...parentTools].filter((n) => wanted.has(n));
  }
  const out = new Set<string>();
  for (const name of base) if (!DELEGATE_BLOCKED_TOOLS.has(name)) out.add(name);
  if (role === "orchestrator" && parentTools.has("delegate_task")) out.add("delegate_task");
  return out;
}

/** Cuts a summary to `max` characters, keeping the start (the findings) and saying how much went. */
export function capSummary(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n[... summary cut: ${text.length - max} more characters not shown ...]`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

/** Runs `jobs` with at most `limit` in flight; results keep their order. */
async function pool<T>(count: number, limit: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

const FILE_TOOLS = new Set(["write_file", "patch"]);

export function createDelegationService(parent: DelegationParent): DelegationService {
  const limits = (): DelegationLimits => delegationLimits(parent.options);

  const runChild = async (
    spec: DelegateTaskSpec,
    index: number,
    signal: AbortSignal,
  ): Promise<ChildReport> => {
    const cfg = parent.options.config.delegation;
    const lim = limits();
    const depth = lim.depth + 1;
    const role = effectiveRole(spec.role, depth, lim.maxSpawnDepth, cfg.orchestrator_enabled);
    const target = cfg.model ? { ...parent.options.target, model: cfg.model } : parent.options.target;
    const sessionId = newSessionId();
    // Its own cwd and variables, starting from the parent's: concurrent children cannot undo
    // each other's `cd`/`export`, nor the parent's.
    const taskId = `${parent.taskId}/${sessionId}`;
    const env = parent.options.environments.fork(parent.taskId, taskId);
    const toolsUsed = new Set<string>();
    const filesTouched = new Set<string>();
    const started = Date.now();
    const base = { index, goal: spec.goal, role, depth, sessionId };
    const options: AgentOptions = {
      target,
      router: new ProviderRouter({ target }),
      registry: parent.options.registry,
      toolNames: childToolNames(parent.toolNames, role, spec.toolsets),
      config: parent.options.config,
      home: parent.options.home,
      environments: parent.options.environments,
      ...(parent.options.scope ? { scope: parent.options.scope } : {}),
      platform: parent.options.platform ?? "cli",
      taskId,
      sessionId,
      systemPrompt: buildSubagentPrompt({
        goal: spec.goal,
        ...(spec.context ? { context: spec.context } : {}),
        workspace: env.getCwd(),
        role,
        depth,
        maxSpawnDepth: lim.maxSpawnDepth,
      }),
      maxTurns: lim.maxIterations,
      // A child's calls pass the same hooks as its parent's (a pre_tool_call policy binds both).
      ...(parent.options.hooks ? { hooks: parent.options.hooks } : {}),
      // No `approve`: a child cannot ask anybody, so flagged commands are denied (§11.4).
      ...(parent.options.approvals ? { approvals: parent.options.approvals } : {}),
      delegation: {
        depth,
        foregroundOnly: true,
        ...(parent.options.delegation?.factory ? { factory: parent.options.delegation.factory } : {}),
      },
      onEvent: (e) => {
        if (e.type === "tool_start") {
          toolsUsed.add(e.name);
          const path = e.args.path;
          if (FILE_TOOLS.has(e.name) && typeof path === "string") filesTouched.add(path);
          parent.emit({
            type: "subagent",
            phase: "tool",
            childId: sessionId,
            depth,
            goal: spec.goal,
            tool: e.name,
          });
        } else if (e.type === "subagent") {
          parent.emit(e); // grandchildren's progress goes up the tree
        }
      },
    };
    const factory = parent.options.delegation?.factory;
    let child: Agent;
    try {
      child = factory
        ? factory(options, { parentSessionId: parent.sessionId, depth })
        : parent.create(options);
    } catch (err) {
      await parent.options.environments.release(taskId);
      return {
        ...base,
        status: "failed",
        summary: "",
        apiCalls: 0,
        durationSeconds: 0,
        toolsUsed: [],
        filesTouched: [],
        error: (err as Error).message,
      };
    }
    active.set(sessionId, {
      id: sessionId,
      parentSessionId: parent.sessionId,
      depth,
      goal: spec.goal,
      startedAt: started,
      agent: child,
    });
    parent.emit({ type: "subagent", phase: "start", childId: sessionId, depth, goal: spec.goal });
    const hooks = parent.options.hooks;
    const family = {
      parent_session_id: parent.sessionId,
      child_session_id: sessionId,
      child_role: role,
      child_goal: spec.goal,
      depth,
    };
    await notify(hooks, "subagent_start", () => family);

    let stopReason: "timeout" | "stale" | undefined;
    let staleSeconds = 0;
    const stop = (why: "timeout" | "stale"): void => {
      stopReason ??= why;
      child.interrupt();
    };
    const onAbort = (): void => child.interrupt();
    signal.addEventListener("abort", onAbort, { once: true });
    const timeout =
      cfg.child_timeout_seconds > 0
        ? setTimeout(() => stop("timeout"), cfg.child_timeout_seconds * 1000)
        : undefined;
    // Heartbeat (§11.6): no progress for N checks → stale. Inside a tool the allowance is larger.
    let last = "";
    let still = 0;
    const heartbeat = setInterval(() => {
      const a = child.activitySnapshot;
      const mark = `${a.lastActivityAt}|${a.apiCalls}|${a.currentTool ?? ""}|${a.description}`;
      if (mark === last) still += 1;
      else {
        still = 0;
        parent.touch?.("running delegate_task (subagents at work)");
      }
      last = mark;
      const inTool = a.description.startsWith("running ");
      const allowed = inTool ? cfg.heartbeat_stale_cycles_in_tool : cfg.heartbeat_stale_cycles_idle;
      if (still >= allowed) {
        staleSeconds = Math.round(allowed * cfg.heartbeat_interval);
        stop("stale");
      }
    }, cfg.heartbeat_interval * 1000);
    let endStatus: ChildStatus = "failed";
    let summary = "";
    try {
      const result = await child.runConversation(spec.goal);
      const seconds = (Date.now() - started) / 1000;
      let status: ChildStatus = result.status;
      let error = result.error?.message;
      if (stopReason === "timeout") {
        status = "timeout";
        error = `Stopped after the ${cfg.child_timeout_seconds} s limit (delegation.child_timeout_seconds).`;
      } else if (stopReason === "stale") {
        status = "stale";
        error = `Stopped: no progress for about ${staleSeconds} s (${child.activitySnapshot.description}).`;
      } else if (status === "interrupted") {
        error = "Cancelled: the delegating agent was interrupted.";
      }
      endStatus = status;
      summary = capSummary(result.finalText.trim(), cfg.max_summary_chars);
      return {
        ...base,
        status,
        summary,
        apiCalls: result.apiCalls,
        durationSeconds: Math.round(seconds * 10) / 10,
        toolsUsed: [...toolsUsed],
        filesTouched: [...filesTouched],
        ...(error ? { error } : {}),
      };
    } finally {
      clearInterval(heartbeat);
      if (timeout) clearTimeout(timeout);
      signal.removeEventListener("abort", onAbort);
      active.delete(sessionId);
      // Ends the child's stored session too; the release covers a child without close().
      await child.close?.();
      await parent.options.environments.release(taskId);
      parent.emit({
        type: "subagent",
        phase: "end",
        childId: sessionId,
        depth,
        goal: spec.goal,
        status: endStatus,
      });
      await notify(hooks, "subagent_stop", () => ({
        ...family,
        child_status: endStatus,
        child_summary: summary,
        duration_ms: Date.now() - started,
        tools_used: [...toolsUsed],
      }));
    }
  };

  const runAll = async (tasks: readonly DelegateTaskSpec[], signal: AbortSignal): Promise<ChildReport[]> => {
    const reports = await pool(tasks.length, limits().maxConcurrent, async (i) => {
      if (signal.aborted) {
        const t = tasks[i]!;
        return {
          index: i,
          goal: t.goal,
          status: "interrupted" as const,
          summary: "",
          role: "leaf" as const,
          depth: limits().depth + 1,
          sessionId: "",
          apiCalls: 0,
          durationSeconds: 0,
          toolsUsed: [],
          filesTouched: [],
          error: "Not started: the delegating agent was interrupted.",
        };
      }
      return runChild(tasks[i]!, i, signal);
    });
    return reports;
  };

  return {
    limits,
    run: async (tasks, { background }): Promise<DelegationOutcome> => {
      const lim = limits();
      if (lim.depth >= lim.maxSpawnDepth) {
        return {
          ok: false,
          error: `Delegation refused: this agent is at depth ${lim.depth} and delegation.max_spawn_depth is ${lim.maxSpawnDepth}. Do the work yourself.`,
        };
      }
      if (tasks.length === 0) return { ok: false, error: "Give a goal, or tasks with a goal each." };
      if (!background) return { ok: true, results: await runAll(tasks, parent.signal) };
      if (parent.options.delegation?.foregroundOnly) {
        const note =
          "Ran in the foreground: this agent ends after its answer, so a background result would be lost.";
        return { ok: true, results: await runAll(tasks, parent.signal), note };
      }
      // Background: outlives this turn, so it gets its own controller rather than the turn's signal.
      const id = `deleg_${randomUUID().slice(0, 8)}`;
      const controller = new AbortController();
      const job = runAll(tasks, controller.signal).then(
        (results) =>
          parent.notices.push(`[Background delegation ${id} finished]\n${JSON.stringify({ id, results })}`),
        (err: unknown) => parent.notices.push(`[Background delegation ${id} failed: ${String(err)}]`),
      );
      parent.trackBackground?.(job, controller);
      return { ok: true, background: { id, tasks: tasks.length } };
    },
  };
}
