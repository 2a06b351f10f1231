import type { ToolMessage } from "../llm/types.js";
import type { ToolContext } from "../tools/context.js";
import { redactSecrets } from "../tools/redact.js";
import type { ToolRegistry } from "../tools/registry.js";
import {
  errorResult,
  type ImageBlock,
  resultImages,
  resultText,
  type ToolResult,
  type ToolResultDetails,
  withText,
} from "../tools/result.js";
import { TOOL_CALL } from "../tools/tool-search/bridge.js";
import type { AgentEvent } from "./events.js";
import { countsAsFailure, type GuardrailDecision } from "./guardrails.js";
import type { HookBus, HookPayload } from "./hooks.js";
import { toolHookPayload, transformsResult, transformToolResult } from "./hooks-tools.js";
import { MAX_TOOL_WORKERS, mapConcurrent, shouldParallelize } from "./parallel.js";
import type { PreparedCall } from "./tool-calls.js";

export interface ToolRunResult {
  callId: string;
  name: string;
  /** The text the model reads (a loop guard's guidance included). */
  content: string;
  isError: boolean;
  /** Images for the model, sent where the provider's tool results can carry them. */
  images?: ImageBlock[];
  /** The tool's structured details, for front ends; never sent to the model. */
  details?: ToolResultDetails;
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
  hooks?: HookBus | undefined;
}

const INTERRUPTED = "Interrupted by the user before this tool finished.";
const INTERRUPTED_RESULT = JSON.stringify({ error: INTERRUPTED });

/**
 * Runs one tool through the registry (schema check, handler, cap): a throw becomes an error
 * result, and secrets are redacted from its text (security.redact_secrets) so keys and tokens
 * never reach the model or a script.
 */
export async function dispatchTool(
  registry: ToolRegistry<ToolContext>,
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  /** The transform hooks to run on the result, before redaction. */
  transform?: { hooks: HookBus; payload: HookPayload },
): Promise<ToolResult> {
  let result: ToolResult;
  try {
    result = await registry.dispatchResult(name, args, ctx);
  } catch (err) {
    return errorResult(`Error executing ${name}: ${(err as Error)?.message ?? String(err)}`);
  }
  if (transform) result = await transformToolResult(transform.hooks, registry, transform.payload, result);
  if (ctx.config.security?.redact_secrets === false) return result;
  const text = resultText(result);
  const clean = redactSecrets(text, ctx.home);
  return clean === text ? result : withText(result, clean);
}

/** How one call went, guard included. */
export interface CallOutcome {
  /** The model-facing text (redacted; no guidance appended yet). */
  text: string;
  result: ToolResult;
  isError: boolean;
  /** Set when the guard refused the call: it did not run. */
  refused?: GuardrailDecision;
  /** A warn decision after the call ran. */
  warning?: GuardrailDecision;
}

/**
 * One call on the shared path of the model's calls and a script's: the loop guard's verdict
 * before, the pre_tool_call hooks (which may block the call or rewrite its arguments), the
 * dispatch, post_tool_call, and the guard's record of the outcome after. Never throws.
 */
export async function runGuardedCall(
  name: string,
  args: Record<string, unknown>,
  opts: {
    registry: ToolRegistry<ToolContext>;
    ctx: ToolContext;
    guard?: ToolCallGuard | undefined;
    /** Called once the guard let the call through, just before it runs. */
    onRun?: () => void;
    hooks?: HookBus | undefined;
    /** The model's id for the call (hooks' tool_call_id). */
    callId?: string;
  },
): Promise<CallOutcome> {
  const before = opts.guard?.beforeCall(name, args);
  if (before && (before.action === "block" || before.action === "halt")) {
    const result = errorResult(before.message);
    return { text: resultText(result), result, isError: true, refused: before };
  }
  const { ctx } = opts;
  // A bridged call's hooks fire once, for the tool it runs (by that tool's own name), not for tool_call too.
  const hooks = name === TOOL_CALL ? undefined : opts.hooks;
  let runArgs = args;
  let result: ToolResult | undefined;
  if (hooks?.has("pre_tool_call")) {
    const decision = await hooks.beforeToolCall(toolHookPayload(name, args, ctx, opts.callId));
    if (decision.blocked !== undefined) result = errorResult(decision.blocked);
    else runArgs = decision.args;
  }
  const started = performance.now();
  if (!result) {
    opts.onRun?.();
    const transform = transformsResult(hooks, name)
      ? { hooks, payload: toolHookPayload(name, runArgs, ctx, opts.callId) }
      : undefined;
    result = await dispatchTool(opts.registry, name, runArgs, ctx, transform);
  }
  let text = resultText(result);
  if (ctx.signal.aborted && !text) {
    result = errorResult(INTERRUPTED);
    text = INTERRUPTED_RESULT;
  }
  if (hooks?.has("post_tool_call")) {
    await hooks.emit("post_tool_call", {
      ...toolHookPayload(name, runArgs, ctx, opts.callId),
      result: text,
      is_error: result.isError === true,
      duration_ms: Math.round(performance.now() - started),
    });
  }
  const after = opts.guard?.afterCall(name, runArgs, text, countsAsFailure(result));
  const outcome: CallOutcome = { text, result, isError: result.isError === true };
  if (after?.action === "warn") outcome.warning = after;
  return outcome;
}

/** The tool message for one result (`extra`: notes riding on it). The one place it is built. */
export function toolMessage(r: ToolRunResult, extra = ""): ToolMessage {
  const message: ToolMessage = {
    role: "tool",
    tool_call_id: r.callId,
    name: r.name,
    content: r.content + extra,
  };
  if (r.images && r.images.length > 0)
    message.images = r.images.map((img) => ({
      type: "image_url",
      image_url: { url: `data:${img.mimeType};base64,${img.data}` },
    }));
  return message;
}

/** A run result from an outcome: images and details only when there are some. */
function runResult(callId: string, name: string, content: string, outcome: CallOutcome): ToolRunResult {
  const out: ToolRunResult = { callId, name, content, isError: outcome.isError };
  const images = resultImages(outcome.result);
  if (images.length > 0) out.images = images;
  if (outcome.result.details) out.details = outcome.result.details;
  return out;
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
      const content = after?.action === "warn" ? warned(prepared.error, after, opts.emit) : prepared.error;
      opts.emit({ type: "tool_start", callId, name, args: prepared.args, emoji: "⚠️" });
      opts.emit({ type: "tool_end", callId, name, result: content, isError: true, durationMs: 0 });
      return { callId, name, content, isError: true };
    }
    if (ctx.signal.aborted) return { callId, name, content: INTERRUPTED_RESULT, isError: true };
    const emoji = registry.get(name)?.emoji ?? "🔧";
    opts.emit({ type: "tool_start", callId, name, args: prepared.args, emoji });
    const started = performance.now();
    const outcome = await runGuardedCall(name, prepared.args, {
      registry,
      ctx,
      guard: opts.guard,
      onRun: () => opts.onToolActivity?.(name),
      hooks: opts.hooks,
      callId,
    });
    if (outcome.refused) {
      const { refused } = outcome;
      opts.emit({ type: "status", kind: "warning", message: `Loop guard stopped ${name} (${refused.code})` });
      opts.emit({ type: "tool_end", callId, name, result: outcome.text, isError: true, durationMs: 0 });
      return { callId, name, content: outcome.text, isError: true, halted: refused.action === "halt" };
    }
    const content = outcome.warning ? warned(outcome.text, outcome.warning, opts.emit) : outcome.text;
    opts.emit({
      type: "tool_end",
      callId,
      name,
      result: content,
      isError: outcome.isError,
      durationMs: performance.now() - started,
    });
    opts.onToolActivity?.(undefined);
    return runResult(callId, name, content, outcome);
  };
  if (parallel) return mapConcurrent(calls, MAX_TOOL_WORKERS, runOne);
  const results: ToolRunResult[] = [];
  for (const c of calls) results.push(await runOne(c));
  return results;
}

/** A warn decision's guidance appended to a result; the front end is told. */
function warned(content: string, decision: GuardrailDecision, emit: (event: AgentEvent) => void): string {
  emit({ type: "status", kind: "warning", message: `Loop guard (${decision.code}, ${decision.count}×)` });
  return `${content}\n\n${decision.message}`;
}
