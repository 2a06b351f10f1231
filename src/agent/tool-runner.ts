import type { ToolContext } from "../tools/context.js";
import { redactSecrets } from "../tools/redact.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AgentEvent } from "./events.js";
import type { GuardrailDecision } from "./guardrails.js";
import { MAX_TOOL_WORKERS, mapConcurrent, shouldParallelize } from "./parallel.js";
import type { PreparedCall } from "./tool-calls.js";

export interface ToolRunResult {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
  /** A loop guardrail ended the turn at this call (it did not run). */
  halted?: boolean;
}

/** The loop guardrails as the runner sees them (ToolLoopGuardrails). */
export interface ToolCallGuard {
  beforeCall(toolName: string, args: unknown): GuardrailDecision;
  afterCall(toolName: string, args: unknown, result: string, failed: boolean): GuardrailDecision;
}

export interface ToolRunnerOptions {
  registry: ToolRegistry<ToolContext>;
  ctx: ToolContext;
  emit: (event: AgentEvent) => void;
  onToolActivity?: (name: string | undefined) => void;
  guard?: ToolCallGuard;
}

const INTERRUPTED_RESULT = JSON.stringify({ error: "Interrupted by the user before this tool finished." });

export const looksLikeError = (content: string): boolean => content.startsWith('{"error"');

/**
 * Runs one tool through the registry: a throw becomes an `{"error": ...}` result, and secrets are
 * redacted (security.redact_secrets) so keys and tokens never reach the model or a script.
 */
export async function dispatchTool(
  registry: ToolRegistry<ToolContext>,
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  let content: string;
  try {
    content = await registry.dispatch(name, args, ctx);
  } catch (err) {
    content = JSON.stringify({ error: `Error executing ${name}: ${(err as Error)?.message ?? String(err)}` });
  }
  return ctx.config.security?.redact_secrets !== false ? redactSecrets(content, ctx.home) : content;
}

/** For loop detection a command that exits non-zero failed too, though its output is no tool error. */
const failedForGuard = (content: string, isError: boolean): boolean =>
  isError || /"exit_code":\s*-?[1-9]/.test(content.slice(-400));

/** Appends a warn decision's guidance to a result and tells the front end. */
function applyWarning(
  decision: GuardrailDecision | undefined,
  content: string,
  emit: (event: AgentEvent) => void,
): string {
  if (decision?.action !== "warn") return content;
  emit({ type: "status", kind: "warning", message: `Loop guard (${decision.code}, ${decision.count}×)` });
  return `${content}\n\n${decision.message}`;
}

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
      const after = opts.guard?.afterCall(name, prepared.args, prepared.error, true);
      const content = applyWarning(after, prepared.error, opts.emit);
      opts.emit({ type: "tool_start", callId, name, args: prepared.args, emoji: "⚠️" });
      opts.emit({ type: "tool_end", callId, name, result: content, isError: true, durationMs: 0 });
      return { callId, name, content, isError: true };
    }
    if (ctx.signal.aborted) return { callId, name, content: INTERRUPTED_RESULT, isError: true };
    const emoji = registry.get(name)?.emoji ?? "🔧";
    opts.emit({ type: "tool_start", callId, name, args: prepared.args, emoji });
    const before = opts.guard?.beforeCall(name, prepared.args);
    if (before && (before.action === "block" || before.action === "halt")) {
      const refused = JSON.stringify({ error: before.message });
      opts.emit({ type: "status", kind: "warning", message: `Loop guard stopped ${name} (${before.code})` });
      opts.emit({ type: "tool_end", callId, name, result: refused, isError: true, durationMs: 0 });
      return { callId, name, content: refused, isError: true, halted: before.action === "halt" };
    }
    opts.onToolActivity?.(name);
    const started = performance.now();
    let content = await dispatchTool(registry, name, prepared.args, ctx);
    if (ctx.signal.aborted && !content) content = INTERRUPTED_RESULT;
    const isError = looksLikeError(content);
    const after = opts.guard?.afterCall(name, prepared.args, content, failedForGuard(content, isError));
    content = applyWarning(after, content, opts.emit);
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
