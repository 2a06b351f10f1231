import type { ToolCallService, ToolContext } from "../tools/context.js";
import type { ToolRegistry } from "../tools/registry.js";
import { looksLikeError } from "../tools/result.js";
import { TOOL_CALL } from "../tools/tool-search/bridge.js";
import type { InnerToolEvent } from "./events.js";
import type { HookBus } from "./hooks.js";
import { type CallOutcome, runGuardedCall, type ToolCallGuard } from "./tool-runner.js";
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
  /** The session's hooks: a script's calls are seen (and may be blocked) like the model's. */
  hooks?: HookBus | undefined;
}

const GONE = JSON.stringify({ error: "Not run: the script that made this call has ended." });

/**
 * One call a tool makes on the model's behalf (a script's, a `tool_call`'s), on the model's path,
 * reported as an `inner_tool` event of `parent`. `text` is the result as a script reads it.
 * Never throws.
 */
export async function runInnerCall(
  name: string,
  args: Record<string, unknown>,
  o: Pick<InnerToolOptions, "registry" | "emit" | "guard" | "hooks"> & { ctx: ToolContext; parent: string },
): Promise<{ outcome: CallOutcome; text: string }> {
  const started = performance.now();
  const outcome = await runGuardedCall(name, args, {
    registry: o.registry,
    ctx: o.ctx,
    guard: o.guard,
    hooks: o.hooks,
  });
  // A script reads failures as {"error": ...}; a structured error result says it in its text.
  const text =
    outcome.isError && !looksLikeError(outcome.text) ? JSON.stringify({ error: outcome.text }) : outcome.text;
  o.emit({
    type: "inner_tool",
    parent: o.parent,
    name,
    args,
    result: text,
    isError: outcome.isError,
    durationMs: performance.now() - started,
  });
  return { outcome, text };
}

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
    async call(requested, requestedArgs, { parent, signal }) {
      const base = opts.ctx();
      const ctx: ToolContext = signal ? { ...base, signal: AbortSignal.any([base.signal, signal]) } : base;
      let name = requested;
      let args = requestedArgs;
      // A script's tool_call runs the deferred tool itself: scheduled, guarded and reported by its name.
      if (requested === TOOL_CALL && ctx.toolSearch) {
        const target = ctx.toolSearch.resolve(requestedArgs);
        if ("error" in target) return JSON.stringify({ error: target.error });
        ({ name, args } = target);
      }
      const entry = opts.registry.get(name);
      const traits = entry ? { parallelSafe: entry.parallelSafe, pathScoped: entry.pathScoped } : undefined;
      return scheduler.run(slotFor(name, args, traits, ctx.env.getCwd()), async () => {
        if (ctx.signal.aborted) return GONE;
        return (await runInnerCall(name, args, { ...opts, ctx, parent })).text;
      });
    },
  };
}
