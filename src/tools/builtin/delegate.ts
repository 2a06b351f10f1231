import type { HermesConfig } from "../../core/config.js";
import type { DelegateTaskSpec, HermesToolRegistry, ToolContext } from "../context.js";
import type { ToolSchema } from "../registry.js";
import { argBool, argString, toolError, toolResult } from "./util.js";

/** One subagent task; the items of `tasks` repeat it without the descriptions (said once is enough). */
const TASK_PROPERTIES = {
  goal: { type: "string" },
  context: { type: "string", description: "All it needs to know; it sees nothing else." },
  toolsets: { type: "array", items: { type: "string" } },
  role: { type: "string", enum: ["leaf", "orchestrator"] },
};

const bare = (props: Record<string, Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(props).map(([k, { description: _, ...rest }]) => [k, rest]));

interface Limits {
  maxConcurrent: number;
  maxSpawnDepth: number;
  maxIterations: number;
}

export function delegateSchema(limits: Limits): ToolSchema {
  const depth =
    limits.maxSpawnDepth > 1
      ? `role orchestrator may delegate again, to depth ${limits.maxSpawnDepth}`
      : "cannot delegate";
  return {
    description:
      `Subagents in fresh contexts: a goal, or tasks in parallel (${limits.maxConcurrent} at once). Each ` +
      `works alone (${limits.maxIterations} iterations, your cwd, no clarify/memory/messaging; ${depth}) ` +
      "and returns only a summary: for independent or output-heavy work. background=true: results " +
      "come later.",
    parameters: {
      type: "object",
      properties: {
        ...TASK_PROPERTIES,
        tasks: {
          type: "array",
          items: { type: "object", properties: bare(TASK_PROPERTIES), required: ["goal"] },
        },
        background: { type: "boolean" },
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
