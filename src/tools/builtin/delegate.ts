import type { HermesConfig } from "../../core/config.js";
import type { DelegateTaskSpec, HermesToolRegistry, ToolContext } from "../context.js";
import type { ToolSchema } from "../registry.js";
import { argBool, argString, toolError, toolResult } from "./util.js";

const TASK_PROPERTIES = {
  goal: { type: "string", description: "What the subagent must achieve, stated so it can work alone." },
  context: {
    type: "string",
    description:
      "Everything it needs to know: paths, findings so far, constraints. It sees nothing else of this conversation.",
  },
  toolsets: {
    type: "array",
    items: { type: "string" },
    description:
      "Toolsets it gets (e.g. terminal, file, web); default: your own tools minus the blocked ones.",
  },
  role: {
    type: "string",
    enum: ["leaf", "orchestrator"],
    description: "leaf (default) works alone; orchestrator may delegate further when the depth limit allows.",
  },
};

interface Limits {
  maxConcurrent: number;
  maxSpawnDepth: number;
  maxIterations: number;
}

export function delegateSchema(limits: Limits): ToolSchema {
  return {
    description:
      "Hand work to subagents with a fresh, separate context. Give one `goal`, or `tasks` (a list of goals) " +
      `that run in parallel, at most ${limits.maxConcurrent} at once. Each subagent has its own conversation ` +
      `and a budget of ${limits.maxIterations} iterations, shares your working directory, cannot ask the user ` +
      "anything, and cannot use clarify, memory or send messages. You get back only each subagent's summary " +
      "(what it did, files it changed, problems), not its intermediate steps. Use it for independent pieces of " +
      "work or for tasks whose intermediate output would flood your context; do quick one-step work yourself. " +
      `The delegation tree is limited to depth ${limits.maxSpawnDepth}` +
      (limits.maxSpawnDepth > 1
        ? ' (role "orchestrator" lets a subagent delegate again within it). '
        : " (subagents cannot delegate). ") +
      "By default this waits for every subagent; `background: true` returns an id at once and the results arrive " +
      "later as a message.",
    parameters: {
      type: "object",
      properties: {
        ...TASK_PROPERTIES,
        tasks: {
          type: "array",
          description: "Several independent tasks to run in parallel (instead of goal).",
          items: { type: "object", properties: TASK_PROPERTIES, required: ["goal"] },
        },
        background: {
          type: "boolean",
          description: "Return at once with an id; the summaries are delivered on a later turn.",
        },
      },
    },
  };
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : undefined;

function readTask(raw: Record<string, unknown>): DelegateTaskSpec | string {
  const goal = argString(raw, "goal")?.trim();
  if (!goal) return "every task needs a non-empty goal";
  const role = raw.role === "orchestrator" ? "orchestrator" : "leaf";
  const context = argString(raw, "context");
  const toolsets = strings(raw.toolsets);
  return { goal, role, ...(context ? { context } : {}), ...(toolsets?.length ? { toolsets } : {}) };
}

export async function delegateTool(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  if (!ctx.delegate) return toolError("Delegation is not available in this session. Do the work yourself.");
  const tasks: DelegateTaskSpec[] = [];
  if (Array.isArray(args.tasks) && args.tasks.length > 0) {
    for (const t of args.tasks) {
      if (typeof t !== "object" || t === null) return toolError("tasks must be objects with a goal");
      const spec = readTask(t as Record<string, unknown>);
      if (typeof spec === "string") return toolError(spec);
      tasks.push(spec);
    }
  } else {
    const spec = readTask(args);
    if (typeof spec === "string") return toolError("goal is required (or tasks: [{goal, context?}, ...])");
    tasks.push(spec);
  }
  const outcome = await ctx.delegate.run(tasks, { background: argBool(args, "background") });
  if (!outcome.ok) return toolError(outcome.error);
  if ("background" in outcome) {
    return toolResult({
      id: outcome.background.id,
      status: "started",
      tasks: outcome.background.tasks,
      note: "Running in the background; the summaries arrive as a message when all subagents finish.",
    });
  }
  return toolResult({ results: outcome.results, ...(outcome.note ? { note: outcome.note } : {}) });
}

export function registerDelegateTool(registry: HermesToolRegistry, config?: HermesConfig): void {
  const d = config?.delegation;
  const limits = (): Limits => ({
    maxConcurrent: Math.max(1, d?.max_concurrent_children ?? 3),
    maxSpawnDepth: Math.min(3, Math.max(1, d?.max_spawn_depth ?? 1)),
    maxIterations: Math.max(1, d?.max_iterations ?? 50),
  });
  registry.register({
    name: "delegate_task",
    toolset: "delegation",
    schema: delegateSchema(limits()),
    // The description states the limits of the config in force.
    dynamicSchemaOverrides: () => delegateSchema(limits()),
    handler: delegateTool,
    emoji: "🔀",
    // Children run in parallel inside one call; separate calls run one after another so that
    // max_concurrent_children holds for the whole batch.
    parallelSafe: false,
  });
}
