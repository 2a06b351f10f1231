import { randomUUID } from "node:crypto";
import type { HermesConfig } from "../core/config.js";
import { getStreamFn } from "../llm/registry.js";
import {
  type AssistantMessage,
  addUsage,
  type ChatMessage,
  type ClassifiedError,
  emptyUsage,
  type ModelTarget,
  type StreamFn,
  type ToolDefinition,
  type ToolMessage,
  type Usage,
} from "../llm/types.js";
import type { ToolContext } from "../tools/context.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import { IterationBudget } from "./budget.js";
import type { AgentEvent, AgentEventListener, RunStatus } from "./events.js";
import { callModel } from "./model-call.js";
import { buildSystemPrompt } from "./prompt/build.js";
import { BUDGET_EXHAUSTED_NOTE, FORCED_SUMMARY_REQUEST } from "./prompt/texts.js";
import { prepareToolCalls } from "./tool-calls.js";
import { runToolBatch } from "./tool-runner.js";
import { saveTrajectory } from "./trajectory.js";

export interface AgentOptions {
  target: ModelTarget;
  registry: ToolRegistry<ToolContext>;
  /** Tool names this session may expose (toolset selection); the registry filters availability. */
  toolNames: ReadonlySet<string>;
  config: HermesConfig;
  home: string;
  environments: EnvironmentProvider;
  platform?: string;
  taskId?: string;
  sessionId?: string;
  /** Injected stream function (tests); defaults to the target's wire protocol. */
  streamFn?: StreamFn;
  maxTurns?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  onEvent?: AgentEventListener;
  /** A stored system prompt (resumed session); otherwise built on first use. */
  systemPrompt?: string;
  /** Prior messages (resumed session), without the system message. */
  history?: ChatMessage[];
}

export interface RunResult {
  status: RunStatus;
  finalText: string;
  error?: ClassifiedError;
  /** Tokens used by this run. */
  usage: Usage;
  apiCalls: number;
}

export interface ActivitySnapshot {
  lastActivityAt: number;
  description: string;
  currentTool: string | undefined;
  apiCalls: number;
}

const NOT_EXECUTED = JSON.stringify({
  error: "Not executed: the iteration limit for this request was reached.",
});

/**
 * The agent loop. One instance is one session: the system prompt and tool definitions are fixed at
 * the first run and reused byte-for-byte; history only grows (prompt-cache rule).
 */
export class Agent {
  readonly sessionId: string;
  readonly taskId: string;
  readonly platform: string;
  readonly totalUsage: Usage = emptyUsage();
  private readonly opts: AgentOptions;
  private readonly streamFn: StreamFn;
  private readonly history: ChatMessage[];
  private systemPrompt: string | undefined;
  private tools: ToolDefinition[] | undefined;
  private abort: AbortController | undefined;
  private steerQueue: string[] = [];
  private activity: ActivitySnapshot = {
    lastActivityAt: Date.now(),
    description: "idle",
    currentTool: undefined,
    apiCalls: 0,
  };

  constructor(opts: AgentOptions) {
    this.opts = opts;
    this.sessionId = opts.sessionId ?? randomUUID();
    this.taskId = opts.taskId ?? this.sessionId;
    this.platform = opts.platform ?? "cli";
    this.streamFn = opts.streamFn ?? getStreamFn(opts.target.apiMode);
    this.systemPrompt = opts.systemPrompt;
    this.history = [...(opts.history ?? [])];
  }

  /** The conversation as sent to the model (system prompt first once built). */
  get messages(): readonly ChatMessage[] {
    return this.systemPrompt === undefined
      ? this.history
      : [{ role: "system", content: this.systemPrompt }, ...this.history];
  }

  get running(): boolean {
    return this.abort !== undefined;
  }

  get activitySnapshot(): ActivitySnapshot {
    return { ...this.activity };
  }

  /** Switches the model for the following calls (same provider and wire protocol). */
  setModel(model: string): void {
    this.opts.target = { ...this.opts.target, model };
  }

  /** Hard stop: aborts the in-flight model stream and running tools. */
  interrupt(): void {
    this.abort?.abort();
  }

  /** Soft guidance: rides on the next tool result (or the next user message) without interrupting. */
  steer(text: string): void {
    const t = text.trim();
    if (t) this.steerQueue.push(t);
  }

  /** Builds the system prompt and tool list once per session. */
  async prepareSession(): Promise<{ systemPrompt: string; tools: ToolDefinition[] }> {
    const env = this.opts.environments.get(this.taskId);
    if (this.tools === undefined)
      this.tools = (await this.opts.registry.getDefinitions(this.opts.toolNames)) as ToolDefinition[];
    if (this.systemPrompt === undefined) {
      this.systemPrompt = buildSystemPrompt({
        home: this.opts.home,
        platform: this.platform,
        model: this.opts.target.model,
        environment: await env.probe(),
        backend: env.backend,
        toolUseEnforcement: this.opts.config.agent.tool_use_enforcement,
        toolNames: this.tools.map((t) => t.function.name),
      });
    }
    return { systemPrompt: this.systemPrompt, tools: this.tools };
  }

  /** Runs one user request to completion. Never throws; failures come back in the result. */
  async runConversation(userText: string): Promise<RunResult> {
    const usage = emptyUsage();
    if (this.abort) {
      return {
        status: "failed",
        finalText: "",
        usage,
        apiCalls: 0,
        error: this.localError("A request is already running"),
      };
    }
    const controller = new AbortController();
    this.abort = controller;
    try {
      return await this.loop(userText, controller.signal, usage);
    } catch (err) {
      const error = this.localError(`Internal error: ${(err as Error)?.stack ?? String(err)}`);
      this.emit({ type: "done", status: "failed", finalText: "", error });
      return { status: "failed", finalText: "", usage, apiCalls: this.activity.apiCalls, error };
    } finally {
      this.abort = undefined;
      this.touch("idle");
    }
  }

  private async loop(userText: string, signal: AbortSignal, usage: Usage): Promise<RunResult> {
    const { tools } = await this.prepareSession();
    const pendingSteer = this.takeSteer();
    this.append({ role: "user", content: pendingSteer ? `${pendingSteer}\n\n${userText}` : userText });
    const budget = new IterationBudget(this.opts.maxTurns ?? this.opts.config.agent.max_turns);
    const ctx = this.toolContext(signal);
    let apiCalls = 0;
    const finish = (status: RunStatus, finalText: string, error?: ClassifiedError): RunResult => {
      this.emit({ type: "done", status, finalText, error });
      if (this.opts.config.agent.save_trajectories)
        saveTrajectory(this.opts.home, this.messages, this.opts.target.model, status === "completed");
      return { status, finalText, error, usage, apiCalls };
    };
    const call = async (withTools: readonly ToolDefinition[]) => {
      apiCalls += 1;
      this.activity.apiCalls += 1;
      this.touch("waiting for the model");
      this.emit({ type: "turn_start", apiCall: apiCalls });
      const result = await callModel({
        streamFn: this.streamFn,
        request: { target: this.opts.target, messages: this.messages, tools: withTools, signal },
        maxRetries: this.opts.maxRetries ?? this.opts.config.agent.api_max_retries,
        retryBaseDelayMs: this.opts.retryBaseDelayMs ?? 5_000,
        retryMaxDelayMs: this.opts.retryMaxDelayMs ?? 120_000,
        emit: (e) => this.emit(e),
        signal,
        onActivity: () => this.touch("receiving the model's reply"),
      });
      const callUsage = result.usage;
      if (callUsage) {
        addUsage(usage, callUsage);
        addUsage(this.totalUsage, callUsage);
        this.emit({ type: "usage", call: callUsage, total: { ...this.totalUsage } });
      }
      return result;
    };

    let inGrace = false;
    for (;;) {
      if (signal.aborted) return finish("interrupted", "");
      if (!budget.consume()) {
        inGrace = true;
        this.emit({
          type: "status",
          kind: "budget",
          message: `Iteration limit (${budget.max}) reached; asking the model to wrap up`,
        });
      }
      const result = await call(tools);
      if (!result.ok) {
        if (result.error.reason === "aborted" || signal.aborted) {
          const partial = result.partial?.content?.trim();
          if (partial) this.append({ role: "assistant", content: partial });
          return finish("interrupted", partial ?? "");
        }
        return finish("failed", "", result.error);
      }
      const message = result.message;
      const toolCalls = message.tool_calls ?? [];
      if (toolCalls.length === 0) {
        this.append(message);
        return finish(inGrace ? "budget_exhausted" : "completed", message.content ?? "");
      }
      const prepared = prepareToolCalls(
        toolCalls,
        (n) => this.opts.registry.resolveName(n),
        this.opts.toolNames,
      );
      this.append(message);
      if (inGrace) return this.forceSummary(message, finish, call);
      const results = await runToolBatch(prepared, {
        registry: this.opts.registry,
        ctx,
        emit: (e) => this.emit(e),
        onToolActivity: (name) => {
          this.activity.currentTool = name;
          this.touch(name ? `running ${name}` : "tools finished");
        },
      });
      const notes: string[] = [];
      const steer = this.takeSteer();
      if (steer) {
        notes.push(`[Message from the user while you were working: ${steer}]`);
        this.emit({ type: "status", kind: "steer", message: "Guidance delivered with the tool results" });
      }
      if (budget.remaining === 0) notes.push(BUDGET_EXHAUSTED_NOTE);
      results.forEach((r, i) => {
        const extra = i === results.length - 1 && notes.length > 0 ? `\n\n${notes.join("\n\n")}` : "";
        const toolMessage: ToolMessage = {
          role: "tool",
          tool_call_id: r.callId,
          name: r.name,
          content: r.content + extra,
        };
        this.append(toolMessage);
      });
      if (signal.aborted) return finish("interrupted", "");
    }
  }

  /** The grace call still asked for tools: answer them unrun, then ask plainly for a summary without tools. */
  private async forceSummary(
    message: AssistantMessage,
    finish: (status: RunStatus, text: string, error?: ClassifiedError) => RunResult,
    call: (tools: readonly ToolDefinition[]) => ReturnType<typeof callModel>,
  ): Promise<RunResult> {
    for (const tc of message.tool_calls ?? []) {
      this.append({ role: "tool", tool_call_id: tc.id, name: tc.function.name, content: NOT_EXECUTED });
    }
    this.append({ role: "user", content: FORCED_SUMMARY_REQUEST });
    const result = await call(this.tools ?? []);
    if (!result.ok) return finish("budget_exhausted", message.content ?? "", result.error);
    const text = result.message.content ?? "";
    // Any tool calls in this last reply are dropped: nothing will answer them.
    this.append({ role: "assistant", content: text });
    return finish("budget_exhausted", text || (message.content ?? ""));
  }

  private toolContext(signal: AbortSignal): ToolContext {
    return {
      taskId: this.taskId,
      sessionId: this.sessionId,
      signal,
      config: this.opts.config,
      home: this.opts.home,
      env: this.opts.environments.get(this.taskId),
      platform: this.platform,
    };
  }

  private takeSteer(): string {
    const text = this.steerQueue.join("\n");
    this.steerQueue = [];
    return text;
  }

  private append(message: ChatMessage): void {
    this.history.push(message);
    this.emit({ type: "message", message });
  }

  private touch(description: string): void {
    this.activity.lastActivityAt = Date.now();
    this.activity.description = description;
  }

  private emit(event: AgentEvent): void {
    try {
      this.opts.onEvent?.(event);
    } catch {
      // A front end's rendering bug must never break the agent's work.
    }
  }

  private localError(message: string): ClassifiedError {
    return {
      reason: "unknown",
      message,
      retryable: false,
      shouldCompress: false,
      shouldRotateCredential: false,
      shouldFallback: false,
    };
  }
}
