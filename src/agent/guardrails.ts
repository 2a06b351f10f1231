import { createHash } from "node:crypto";
import type { GuardrailThresholds } from "../core/config-defaults.js";
import type { ToolResult } from "../tools/result.js";

/** Which loop pattern a decision is about. */
export type LoopPattern = "exact_failure" | "same_tool_failure" | "idempotent_no_progress";

/**
 * allow: run the call as is. warn: run it, then append `message` to its result. block: do not run
 * it; `message` becomes its error result. halt: do not run it and end the turn.
 */
export interface GuardrailDecision {
  action: "allow" | "warn" | "block" | "halt";
  /** e.g. `exact_failure_warning`, `same_tool_failure_halt`; "" for allow. */
  code: string;
  message: string;
  /** How many times the pattern has been seen (0 for allow). */
  count: number;
}

export interface GuardrailSettings {
  warnings_enabled: boolean;
  hard_stop_enabled: boolean;
  warn_after: GuardrailThresholds;
  hard_stop_after: GuardrailThresholds;
}

/**
 * What the guard counts as a failed call: an error result, or a command that exited non-zero
 * (its output is no tool error, but repeating it is the same loop).
 */
export function countsAsFailure(result: ToolResult): boolean {
  const code = result.details?.exitCode;
  return result.isError === true || (typeof code === "number" && code !== 0);
}

const ALLOW: GuardrailDecision = { action: "allow", code: "", message: "", count: 0 };

/** JSON with object keys sorted at every depth and no whitespace: equal arguments, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** Identity of one call: the tool plus a hash of its canonical arguments. */
export function callSignature(toolName: string, args: unknown): string {
  return `${toolName}:${sha256(canonicalJson(args))}`;
}

/** Guidance texts, addressed to the model. */
const GUIDANCE: Record<LoopPattern, (tool: string, count: number) => string> = {
  exact_failure: (tool, n) =>
    `[Loop guard: this exact ${tool} call has now failed ${n} times with the same arguments. ` +
    "Repeating it will not change the outcome. Read the error, change the arguments or the approach, " +
    "or tell the user what is blocking you.]",
  same_tool_failure: (tool, n) =>
    `[Loop guard: ${tool} has failed ${n} times in a row. Step back: check your assumptions ` +
    "(paths, names, syntax), try a different tool, or explain the problem to the user.]",
  idempotent_no_progress: (tool, n) =>
    `[Loop guard: this read-only ${tool} call returned the same result ${n} times. ` +
    "Calling it again will not reveal anything new; use what you already have or do something different.]",
};

const BLOCKED: Record<LoopPattern, (tool: string, count: number) => string> = {
  exact_failure: (tool, n) =>
    `Not run: this exact ${tool} call already failed ${n} times with the same arguments (loop guard). ` +
    "Change the arguments or the approach.",
  same_tool_failure: (tool, n) =>
    `Not run: ${tool} failed ${n} times in a row (loop guard). The turn was stopped to save the budget.`,
  idempotent_no_progress: (tool, n) =>
    `Not run: this read-only ${tool} call already returned the same result ${n} times (loop guard). ` +
    "Use the result you have.",
};

/**
 * Watches one user request's tool calls for three loop patterns (a call failing again with the same
 * arguments, one tool failing in a row, a read-only call returning the same result again) and
 * decides per call: allow, warn (guidance appended to the result), and only when hard stops are
 * on, block (not run) or halt (the turn ends).
 */
export class ToolLoopGuardrails {
  /** Failures per call signature. */
  private readonly exactFailures = new Map<string, number>();
  /** Consecutive failures per tool name. */
  private readonly toolFailures = new Map<string, number>();
  /** Per read-only signature: hash of the last result and how many times in a row it came back. */
  private readonly sameResults = new Map<string, { hash: string; count: number }>();

  constructor(
    private readonly settings: GuardrailSettings,
    private readonly isReadOnly: (toolName: string) => boolean,
  ) {}

  /** A new user request starts with a clean slate. */
  reset(): void {
    this.exactFailures.clear();
    this.toolFailures.clear();
    this.sameResults.clear();
  }

  /** Before running a call: block or halt only when hard stops are on and a limit was reached. */
  beforeCall(toolName: string, args: unknown): GuardrailDecision {
    if (!this.settings.hard_stop_enabled) return ALLOW;
    const limits = this.settings.hard_stop_after;
    const signature = callSignature(toolName, args);
    const toolCount = this.toolFailures.get(toolName) ?? 0;
    if (toolCount >= limits.same_tool_failure)
      return this.stop("halt", "same_tool_failure", toolName, toolCount);
    const exactCount = this.exactFailures.get(signature) ?? 0;
    if (exactCount >= limits.exact_failure) return this.stop("block", "exact_failure", toolName, exactCount);
    const same = this.sameResults.get(signature)?.count ?? 0;
    if (this.isReadOnly(toolName) && same >= limits.idempotent_no_progress)
      return this.stop("block", "idempotent_no_progress", toolName, same);
    return ALLOW;
  }

  /** After a call ran: records the outcome; warns when a pattern reached its warn threshold. */
  afterCall(toolName: string, args: unknown, result: string, failed: boolean): GuardrailDecision {
    const signature = callSignature(toolName, args);
    let pattern: LoopPattern | undefined;
    let count = 0;
    if (failed) {
      const exact = (this.exactFailures.get(signature) ?? 0) + 1;
      const streak = (this.toolFailures.get(toolName) ?? 0) + 1;
      this.exactFailures.set(signature, exact);
      this.toolFailures.set(toolName, streak);
      this.sameResults.delete(signature);
      const warn = this.settings.warn_after;
      // The more specific pattern speaks first: it names the exact repetition.
      if (exact >= warn.exact_failure) [pattern, count] = ["exact_failure", exact];
      else if (streak >= warn.same_tool_failure) [pattern, count] = ["same_tool_failure", streak];
    } else {
      this.exactFailures.delete(signature);
      this.toolFailures.delete(toolName);
      if (this.isReadOnly(toolName)) {
        const hash = sha256(result);
        const previous = this.sameResults.get(signature);
        const same = previous?.hash === hash ? previous.count + 1 : 1;
        this.sameResults.set(signature, { hash, count: same });
        if (same >= this.settings.warn_after.idempotent_no_progress)
          [pattern, count] = ["idempotent_no_progress", same];
      } else {
        // A successful change may alter what reads return: earlier repeats are no longer evidence.
        this.sameResults.clear();
      }
    }
    if (!pattern || !this.settings.warnings_enabled) return ALLOW;
    return { action: "warn", code: `${pattern}_warning`, message: GUIDANCE[pattern](toolName, count), count };
  }

  private stop(
    action: "block" | "halt",
    pattern: LoopPattern,
    toolName: string,
    count: number,
  ): GuardrailDecision {
    // A refused call is another failure of the tool: a model that keeps retrying it still ends
    // at the same-tool halt instead of spending the budget on refusals.
    this.toolFailures.set(toolName, (this.toolFailures.get(toolName) ?? 0) + 1);
    return { action, code: `${pattern}_${action}`, message: BLOCKED[pattern](toolName, count), count };
  }
}
