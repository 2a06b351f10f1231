import type { ToolCallService, ToolContext } from "../tools/context.js";
import type { ToolRegistry } from "../tools/registry.js";
import { looksLikeError } from "../tools/result.js";
import type { InnerToolEvent } from "./events.js";
import { runGuardedCall, type ToolCallGuard } from "./tool-runner.js";
import { CallScheduler, slotFor } from "./tool-scheduler.js";

export interface InnerToolOptions {
  registry: ToolRegistry<ToolContext>;
  /** The session's exposed tool names (read on each call: the list is built lazily). */
  available: () => string[];
  /** The context of the calling tool; inner calls share its task id, environment and approvals. */
  ctx: () => ToolContext;
  emit: (event: InnerToolEvent) => void;
  /** The loop guardrails of the model's own calls: a script's calls count and are stopped alike. */
  guard?: ToolCallGuard;
}

const GONE = JSON.stringify({ error: "Not run: the script that made this call has ended." });

/**
 * Tool calls made by a tool on the model's behalf (execute_code): the model's own path (schema
 * check, approvals, redaction, loop guardrails), reported as `inner_tool` events only. Calls
 * fired together run together only where a model's batch would: tools that are not parallel-safe
 * run one at a time.
 */
export function createToolCallService(opts: InnerToolOptions): ToolCallService {
  const scheduler = new CallScheduler();
  return {
    available: () => opts.available(),
    async call(name, args, { parent, signal }) {
      const base = opts.ctx();
      const ctx: ToolContext = signal ? { ...base, signal: AbortSignal.any([base.signal, signal]) } : base;
      const entry = opts.registry.get(name);
      const traits = entry ? { parallelSafe: entry.parallelSafe, pathScoped: entry.pathScoped } : undefined;
      return scheduler.run(slotFor(name, args, traits, ctx.env.getCwd()), async () => {
        if (ctx.signal.aborted) return GONE;
        const started = performance.now();
        const outcome = await runGuardedCall(name, args, { registry: opts.registry, ctx, guard: opts.guard });
        // A script reads failures as {"error": ...}; a structured error result says it in its text.
        const text =
          outcome.isError && !looksLikeError(outcome.text)
            ? JSON.stringify({ error: outcome.text })
            : outcome.text;
        opts.emit({
          type: "inner_tool",
          parent,
          name,
          args,
          result: text,
          isError: outcome.isError,
          durationMs: performance.now() - started,
        });
        return text;
      });
    },
  };
}
