import type { ToolContext } from "../tools/context.js";
import { redactSecrets } from "../tools/redact.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AgentEvent } from "./events.js";
import { MAX_TOOL_WORKERS, mapConcurrent, shouldParallelize } from "./parallel.js";
import type { PreparedCall } from "./tool-calls.js";

export interface ToolRunResult {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
}

export interface ToolRunnerOptions {
  registry: ToolRegistry<ToolContext>;
  ctx: ToolContext;
  emit: (event: AgentEvent) => void;
  onToolActivity?: (name: string | undefined) => void;
}

const INTERRUPTED_RESULT = JSON.stringify({ error: "Interrupted by the user before this tool finished." });

const looksLikeError = (content: string): boolean => content.startsWith('{"error"');

/**
 * Runs one batch of tool calls, in parallel when the batch is safe for it, and returns results in
 * the model's order. Never throws: every failure becomes an `{"error": ...}` result.
 */
export async function runToolBatch(
  calls: readonly PreparedCall[],
  opts: ToolRunnerOptions,
): Promise<ToolRunResult[]> {
  const { registry, ctx } = opts;
  const runnable = calls.map((c) => ({ name: c.toolName ?? c.call.function.name, args: c.args }));
  const parallel = shouldParallelize(
    runnable,
    (name) => {
      const entry = registry.get(name);
      return entry ? { parallelSafe: entry.parallelSafe, pathScoped: entry.pathScoped } : undefined;
    },
    ctx.env.getCwd(),
  );
  const runOne = async (prepared: PreparedCall): Promise<ToolRunResult> => {
    const callId = prepared.call.id;
    const name = prepared.toolName ?? prepared.call.function.name;
    if (prepared.error !== undefined) {
      opts.emit({ type: "tool_start", callId, name, args: prepared.args, emoji: "⚠️" });
      opts.emit({ type: "tool_end", callId, name, result: prepared.error, isError: true, durationMs: 0 });
      return { callId, name, content: prepared.error, isError: true };
    }
    if (ctx.signal.aborted) return { callId, name, content: INTERRUPTED_RESULT, isError: true };
    const emoji = registry.get(name)?.emoji ?? "🔧";
    opts.emit({ type: "tool_start", callId, name, args: prepared.args, emoji });
    opts.onToolActivity?.(name);
    const started = performance.now();
    let content: string;
    try {
      content = await registry.dispatch(name, prepared.args, ctx);
    } catch (err) {
      content = JSON.stringify({
        error: `Error executing ${name}: ${(err as Error)?.message ?? String(err)}`,
      });
    }
    if (ctx.signal.aborted && !content) content = INTERRUPTED_RESULT;
    // One place for every tool: keys and tokens never enter the history (security.redact_secrets).
    if (ctx.config.security?.redact_secrets !== false) content = redactSecrets(content, ctx.home);
    const isError = looksLikeError(content);
    opts.emit({
      type: "tool_end",
      callId,
      name,
      result: content,
      isError,
      durationMs: performance.now() - started,
    });
    opts.onToolActivity?.(undefined);
    return { callId, name, content, isError };
  };
  if (parallel) return mapConcurrent(calls, MAX_TOOL_WORKERS, runOne);
  const results: ToolRunResult[] = [];
  for (const c of calls) results.push(await runOne(c));
  return results;
}
