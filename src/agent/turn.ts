/**
 * One user turn: the iteration budget, the model calls (with recovery), the tool batches, the grace
 * call and the forced summary, and the `done` event. It holds no state beyond this request: what it
 * needs of its agent (history, services, queues) comes in through `TurnHost`, so the stateful
 * `Agent` stays apart from the loop.
 */
import type { ProviderRouter } from "../llm/provider-router.js";
import { withRequestParams } from "../llm/request-params.js";
import {
  type AssistantMessage,
  addUsage,
  type ChatMessage,
  type ClassifiedError,
  type FinishReason,
  type ModelTarget,
  type RequestParams,
  type StreamFn,
  type ToolChoice,
  type ToolDefinition,
  type Usage,
  type UserMessage,
} from "../llm/types.js";
import type { ToolContext } from "../tools/context.js";
import type { ToolRegistry } from "../tools/registry.js";
import { IterationBudget } from "./budget.js";
import type { ContextCompressorHook } from "./compressor-hook.js";
import type { ContextKeeper } from "./context-keeper.js";
import type { AgentEvent, RunStatus } from "./events.js";
import type { ToolLoopGuardrails } from "./guardrails.js";
import type { HookBus } from "./hooks.js";
import type { SessionHookFields } from "./hooks-session.js";
import { withMemoryContext } from "./memory/index.js";
import { callModel, type ModelCallResult } from "./model-call.js";
import { BUDGET_EXHAUSTED_NOTE, FORCED_SUMMARY_REQUEST } from "./prompt/texts.js";
import { withTextToolCalls } from "./text-tool-calls.js";
import { type PreparedCall, prepareToolCalls } from "./tool-calls.js";
import { runToolBatch, type ToolRunResult, toolMessage } from "./tool-runner.js";
import { localError, type RunResult } from "./types.js";

/** Limits and policies of a turn, resolved from the agent's options and config. */
export interface TurnLimits {
  /** Model calls allowed before the grace call (agent.max_turns). */
  maxTurns: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** The run ends with its answer: wait for background delegations and let the model use them first. */
  awaitBackground: boolean;
}

/** What a turn needs from its agent. The agent owns every piece; the turn only uses them. */
export interface TurnHost {
  readonly streamFn: StreamFn;
  readonly router: ProviderRouter;
  readonly registry: ToolRegistry<ToolContext>;
  /** Tool names this session may expose; a call to another is answered with `whyDisabled`. */
  readonly toolNames: ReadonlySet<string>;
  readonly guardrails: ToolLoopGuardrails;
  /** The session's hooks (tool, model-call and answer hooks fire from the turn). */
  readonly hooks?: HookBus | undefined;
  /** The session fields hooks carry. */
  hookFields?(): SessionHookFields;
  /** Compresses before a call that would not fit (undefined when compression is off). */
  readonly keeper: ContextKeeper | undefined;
  /** Shrinks the conversation after a provider's overflow error. */
  readonly compressor: ContextCompressorHook | undefined;
  /** Read once at the start of each turn. */
  readonly limits: TurnLimits;
  /** A caller's sampling and output settings for every model call (API server requests). */
  readonly requestParams?: RequestParams | undefined;
  /** The session's tokens; each call adds to it. */
  readonly totalUsage: Usage;
  /** The conversation as sent (system prompt first). */
  messages(): readonly ChatMessage[];
  /** Appends to the history; the only way a turn writes it. */
  append(message: ChatMessage): void;
  emit(event: AgentEvent): void;
  /** Marks activity for watchers (heartbeat, stale detection). */
  touch(description: string): void;
  /** The tool running now (undefined when a batch ends). */
  toolActivity(name: string | undefined): void;
  /** Counts one model call in the agent's activity. */
  countApiCall(): void;
  /** The provider/model in use; a fallback changes it through `useTarget`. */
  target(): ModelTarget;
  useTarget(target: ModelTarget): void;
  whyDisabled(name: string): string;
  takeNotices(): string;
  takeSteer(): string;
  /** The task-list reminder after a batch ("" for none). */
  todoNote(results: readonly ToolRunResult[]): string;
  /** Background delegations whose results are not queued yet. */
  backgroundPending(): number;
  /** Waits for them; false when interrupted first. */
  waitForBackground(signal: AbortSignal): Promise<boolean>;
  /** Called once with the outcome, after the `done` event. */
  finished(status: RunStatus): void;
}

export interface TurnInput {
  /** Already in the history. */
  userMessage: UserMessage;
  /** Recalled memory, fenced: it joins only the requests' copy of the user message ("" for none). */
  recalled: string;
  tools: readonly ToolDefinition[];
  ctx: ToolContext;
  signal: AbortSignal;
  /** This run's tokens; the turn adds each call's. */
  usage: Usage;
}

const NOT_EXECUTED = JSON.stringify({
  error: "Not executed: the iteration limit for this request was reached.",
});

/** Runs one turn to its end. Never throws for provider or tool failures; they end the turn as data. */
export function runTurn(host: TurnHost, input: TurnInput): Promise<RunResult> {
  return new Turn(host, input).run();
}

class Turn {
  private apiCalls = 0;
  /** Attempts across this run's model calls: their numbers tag the streamed deltas. */
  private attempts = 0;
  private readonly budget: IterationBudget;
  private readonly limits: TurnLimits;
  /** The budget is spent: this is the grace call, and the turn ends after it. */
  private inGrace = false;
  /** Why the latest model call stopped (a `length` answer was cut by the output cap). */
  private lastFinish: FinishReason | undefined;

  constructor(
    private readonly host: TurnHost,
    private readonly input: TurnInput,
  ) {
    this.limits = host.limits;
    this.budget = new IterationBudget(this.limits.maxTurns);
  }

  async run(): Promise<RunResult> {
    const { host, input } = this;
    const { signal, tools } = input;
    host.guardrails.reset();
    for (;;) {
      if (signal.aborted) return this.finish("interrupted", "");
      if (!this.budget.consume()) {
        this.inGrace = true;
        host.emit({
          type: "status",
          kind: "budget",
          message: `Iteration limit (${this.budget.max}) reached; asking the model to wrap up`,
        });
      }
      const result = await this.call(tools);
      if (!result.ok) return this.failed(result);
      this.lastFinish = result.finishReason;
      const message = withTextToolCalls(
        result.message,
        tools,
        (n) => host.registry.resolveName(n),
        (e) => host.emit(e),
      );
      const toolCalls = message.tool_calls ?? [];
      if (toolCalls.length === 0) {
        host.append(message);
        if (!this.inGrace && this.limits.awaitBackground && host.backgroundPending() > 0) {
          // Answering now would drop the background results: wait, then let the model use them.
          if (!(await host.waitForBackground(signal)))
            return this.finish("interrupted", message.content ?? "");
          host.append({ role: "user", content: host.takeNotices() });
          continue;
        }
        return this.answered(this.inGrace ? "budget_exhausted" : "completed", message.content ?? "");
      }
      const prepared = prepareToolCalls(
        toolCalls,
        (n) => host.registry.resolveName(n),
        host.toolNames,
        (name) => host.whyDisabled(name),
        tools.map((t) => t.function.name),
      );
      host.append(message);
      if (this.inGrace) return this.forceSummary(message);
      const halted = await this.runTools(prepared);
      if (halted) {
        const error = localError(
          `Stopped by the tool-loop guardrail: ${halted.name} kept failing (tool_loop_guardrails.hard_stop_enabled)`,
        );
        return this.finish("failed", "", error);
      }
      if (signal.aborted) return this.finish("interrupted", "");
    }
  }

  /** One model call with recovery; its tokens go to the run's and the session's usage. */
  private async call(tools: readonly ToolDefinition[], toolChoice?: ToolChoice): Promise<ModelCallResult> {
    const { host, input } = this;
    this.apiCalls += 1;
    host.countApiCall();
    host.touch("waiting for the model");
    host.emit({ type: "turn_start", apiCall: this.apiCalls });
    await host.keeper?.beforeCall(tools);
    const result = await callModel({
      streamFn: host.streamFn,
      buildRequest: (target) =>
        withRequestParams(
          {
            target,
            messages: withMemoryContext(host.messages(), input.userMessage, input.recalled),
            tools,
            ...(toolChoice ? { toolChoice } : {}),
            signal: input.signal,
          },
          host.requestParams,
        ),
      router: host.router,
      ...(host.compressor ? { compressor: host.compressor } : {}),
      onModelSwitch: (target) => host.useTarget(target),
      maxRetries: this.limits.maxRetries,
      retryBaseDelayMs: this.limits.retryBaseDelayMs,
      retryMaxDelayMs: this.limits.retryMaxDelayMs,
      emit: (e) => host.emit(e),
      signal: input.signal,
      onActivity: () => host.touch("receiving the model's reply"),
      nextAttempt: () => ++this.attempts,
      hooks: host.hooks,
      hookFields: () => ({ ...host.hookFields?.() }),
    });
    const callUsage = result.usage;
    if (callUsage) {
      // The provider's own count corrects the estimator (only for the request it was made for).
      host.keeper?.observePromptTokens(callUsage.inputTokens);
      addUsage(input.usage, callUsage);
      addUsage(host.totalUsage, callUsage);
      const { model, provider } = host.target();
      host.emit({ type: "usage", call: callUsage, total: { ...host.totalUsage }, model, provider });
    }
    return result;
  }

  /** An interrupt keeps the partial answer (it is what the user saw); anything else fails the turn. */
  private failed(result: Extract<ModelCallResult, { ok: false }>): RunResult {
    if (result.error.reason === "aborted" || this.input.signal.aborted) {
      const partial = result.partial?.content?.trim();
      if (partial) this.host.append({ role: "assistant", content: partial });
      return this.finish("interrupted", partial ?? "");
    }
    return this.finish("failed", "", result.error);
  }

  /** Runs one batch and appends its results, notes riding on the last; returns a call that halted the turn. */
  private async runTools(prepared: PreparedCall[]): Promise<ToolRunResult | undefined> {
    const { host, input } = this;
    const results = await runToolBatch(prepared, {
      registry: host.registry,
      ctx: input.ctx,
      emit: (e) => host.emit(e),
      guard: host.guardrails,
      onToolActivity: (name) => host.toolActivity(name),
      hooks: host.hooks,
    });
    // Programmatic tool calling does not eat the iteration budget.
    if (results.some((r) => r.name === "execute_code")) this.budget.refund();
    const notes = this.notesAfter(results);
    results.forEach((r, i) => {
      const extra = i === results.length - 1 && notes.length > 0 ? `\n\n${notes.join("\n\n")}` : "";
      host.append(toolMessage(r, extra));
    });
    return results.find((r) => r.halted);
  }

  /** What rides on a batch's last result: the todo reminder, notices, the user's guidance, the budget. */
  private notesAfter(results: readonly ToolRunResult[]): string[] {
    const { host, input } = this;
    const notes: string[] = [];
    if (input.tools.some((t) => t.function.name === "todo")) {
      const todo = host.todoNote(results);
      if (todo) notes.push(todo);
    }
    const notices = host.takeNotices();
    if (notices) notes.push(notices);
    const steer = host.takeSteer();
    if (steer) {
      notes.push(`[Message from the user while you were working: ${steer}]`);
      host.emit({ type: "status", kind: "steer", message: "Guidance delivered with the tool results" });
    }
    if (this.budget.remaining === 0) notes.push(BUDGET_EXHAUSTED_NOTE);
    return notes;
  }

  /**
   * The grace call still asked for tools: answer them unrun, then ask plainly for a summary. The
   * tools stay in the request (the cached prefix holds) but tool_choice "none" forbids calling them.
   */
  private async forceSummary(grace: AssistantMessage): Promise<RunResult> {
    const { host } = this;
    for (const tc of grace.tool_calls ?? []) {
      host.append({ role: "tool", tool_call_id: tc.id, name: tc.function.name, content: NOT_EXECUTED });
    }
    host.append({ role: "user", content: FORCED_SUMMARY_REQUEST });
    const result = await this.call(this.input.tools, "none");
    const earlier = grace.content ?? "";
    if (!result.ok) {
      if (result.error.reason === "aborted" || this.input.signal.aborted) return this.failed(result);
      return this.finish("budget_exhausted", earlier, result.error);
    }
    const text = result.message.content ?? "";
    // Any tool calls in this last reply are dropped: nothing will answer them.
    host.append({ role: "assistant", content: text });
    return this.answered("budget_exhausted", text.trim() ? text : earlier);
  }

  /**
   * Ends the turn with an answer. transform_llm_output may rewrite the text the user receives; the
   * history keeps what the model wrote (the next request's prefix must stay as sent).
   */
  private answered(status: RunStatus, text: string): RunResult | Promise<RunResult> {
    const hooks = this.host.hooks;
    if (!text.trim() || !hooks?.has("transform_llm_output")) return this.finish(status, text);
    const payload = { ...this.host.hookFields?.(), response_text: text };
    return hooks
      .transform("transform_llm_output", payload, "response_text")
      .then((delivered) => this.finish(status, delivered));
  }

  /** Ends the turn: one `done` event, the agent told, the result returned. */
  private finish(status: RunStatus, finalText: string, error?: ClassifiedError): RunResult {
    const err = error ?? this.noAnswer(status, finalText);
    this.host.emit({ type: "done", status, finalText, error: err });
    this.host.finished(status);
    return {
      status,
      finalText,
      error: err,
      usage: this.input.usage,
      apiCalls: this.apiCalls,
      ...(this.lastFinish ? { finishReason: this.lastFinish } : {}),
    };
  }

  /** A turn that ends "successfully" without a word must say so: an empty answer is never a success. */
  private noAnswer(status: RunStatus, finalText: string): ClassifiedError | undefined {
    if (finalText.trim()) return undefined;
    if (status === "budget_exhausted")
      return localError(
        `The iteration limit (${this.budget.max} model calls) was reached and the model gave no summary of its work`,
      );
    if (status === "completed") return localError("The model ended its turn without an answer");
    return undefined;
  }
}
