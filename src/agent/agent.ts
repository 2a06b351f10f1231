import { randomUUID } from "node:crypto";
import type { HermesConfig } from "../core/config.js";
import { DEFAULT_CONFIG } from "../core/config-defaults.js";
import { getModelInfo } from "../llm/models/index.js";
import { ProviderRouter } from "../llm/provider-router.js";
import { streamLlm } from "../llm/registry.js";
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
import type { ApprovalSession } from "../tools/approval/session.js";
import type { ApproveFn } from "../tools/approval/types.js";
import type { ClarifyFn, SessionSearchService, ToolContext, ToolNotices } from "../tools/context.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import { BackgroundJobs } from "./background-jobs.js";
import { IterationBudget } from "./budget.js";
import type { ContextEngine } from "./compression/index.js";
import type { ContextCompressorHook, ModelSwitchHook } from "./compressor-hook.js";
import {
  type CompressionOutcome,
  type ContextHost,
  ContextKeeper,
  createCompressor,
} from "./context-keeper.js";
import { createDelegationService, DELEGATE_BLOCKED_TOOLS, type DelegationSettings } from "./delegation.js";
import type { AgentEvent, AgentEventListener, RunStatus } from "./events.js";
import { ToolLoopGuardrails } from "./guardrails.js";
import { createToolCallService } from "./inner-tools.js";
import {
  createMemoryStore,
  type MemoryProvider,
  type MemoryStore,
  withMemoryContext,
} from "./memory/index.js";
import { recallMemory, syncMemoryTurn } from "./memory/provider-calls.js";
import { callModel } from "./model-call.js";
import { buildPromptLayers, joinLayers, type PromptLayer } from "./prompt/build.js";
import { BUDGET_EXHAUSTED_NOTE, FORCED_SUMMARY_REQUEST } from "./prompt/texts.js";
import { withTextToolCalls } from "./text-tool-calls.js";
import { preservedTodoBlock, TodoList } from "./todo.js";
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
  /** Injected stream function (tests); defaults to each request's wire protocol. */
  streamFn?: StreamFn;
  /** Provider, key pool and fallback chain; defaults to `target` alone. */
  router?: ProviderRouter;
  /** Shrinks the conversation on a context overflow; without one an overflow ends the request. */
  compressor?: ContextCompressorHook;
  /** Told when a fallback switches provider/model (context budgets follow the new model). */
  onModelSwitch?: ModelSwitchHook;
  maxTurns?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  onEvent?: AgentEventListener;
  /** A stored system prompt (resumed session); otherwise built on first use. */
  systemPrompt?: string;
  /** Prior messages (resumed session), without the system message. */
  history?: ChatMessage[];
  /** Dangerous-command approval state shared by the run (mode, yolo, remembered approvals). */
  approvals?: ApprovalSession;
  /** Asks the user about a flagged command. Leave unset for subagents and non-interactive runs: they auto-deny. */
  approve?: ApproveFn;
  /** One external memory provider whose block joins the memory layer (the built-in store is always on). */
  memoryProvider?: MemoryProvider;
  /**
   * The run ends with its answer (hermes -z, chat -q): before answering, wait for background
   * delegations and hand their results to the model, since no later turn would receive them.
   */
  awaitBackground?: boolean;
  /** Asks the user a question (clarify tool). Without it the clarify tool is hidden. */
  clarify?: ClarifyFn;
  /** The session store, read-only, for session_search. */
  sessions?: SessionSearchService;
  /** This agent's place in a delegation tree and how its children are built (delegate_task). */
  delegation?: DelegationSettings;
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

/** Tools whose repeated identical result means no progress (besides the registry's parallel-safe ones). */
const READ_ONLY_TOOLS = new Set(["read_file", "search_files", "session_search", "web_search", "web_extract"]);

const NOT_EXECUTED = JSON.stringify({
  error: "Not executed: the iteration limit for this request was reached.",
});

/**
 * The agent loop. One instance is one session: the system prompt and tool definitions are fixed at
 * the first run and reused byte-for-byte; history only grows (prompt-cache rule).
 */
export class Agent {
  /** Changes when compression continues the conversation as a new, linked session. */
  private currentSessionId: string;
  readonly taskId: string;
  readonly platform: string;
  readonly totalUsage: Usage = emptyUsage();
  private readonly opts: AgentOptions;
  private readonly streamFn: StreamFn;
  private readonly router: ProviderRouter;
  private readonly history: ChatMessage[];
  private systemPrompt: string | undefined;
  private tools: ToolDefinition[] | undefined;
  /** The prompt's layers when built this session (unset for a resumed, stored prompt). */
  private promptLayers: PromptLayer[] | undefined;
  /** Built-in MEMORY.md / USER.md store; undefined when both stores are disabled. */
  readonly memory: MemoryStore | undefined;
  /** This session's task list (todo tool); never part of the system prompt. */
  readonly todos = new TodoList();
  /** The context engine (compression.enabled); undefined when compression is off. */
  readonly context: ContextEngine | undefined;
  /** Loop detection over one request's tool calls (tool_loop_guardrails). */
  private readonly guardrails: ToolLoopGuardrails;
  /** Compresses this conversation when it nears the window (undefined when compression is off). */
  private readonly keeper: ContextKeeper | undefined;
  private abort: AbortController | undefined;
  /** Background delegations whose results have not been queued yet. */
  private readonly backgroundJobs = new BackgroundJobs();
  private steerQueue: string[] = [];
  /** Tool notices (background process finished, watched output) waiting for the next delivery. */
  private noticeQueue: string[] = [];
  private readonly notices: ToolNotices = {
    push: (text) => {
      const t = text.trim();
      if (t) this.noticeQueue.push(t);
    },
  };
  private activity: ActivitySnapshot = {
    lastActivityAt: Date.now(),
    description: "idle",
    currentTool: undefined,
    apiCalls: 0,
  };

  constructor(opts: AgentOptions) {
    this.opts = opts;
    this.currentSessionId = opts.sessionId ?? randomUUID();
    this.taskId = opts.taskId ?? this.sessionId;
    this.platform = opts.platform ?? "cli";
    // Dispatch per request: a fallback may speak another wire protocol than the primary.
    this.streamFn = opts.streamFn ?? streamLlm;
    this.router = opts.router ?? new ProviderRouter({ target: opts.target });
    this.systemPrompt = opts.systemPrompt;
    this.history = [...(opts.history ?? [])];
    const m = opts.config.memory;
    this.memory =
      m && (m.memory_enabled || m.user_profile_enabled)
        ? createMemoryStore(opts.home, opts.config)
        : undefined;
    this.guardrails = new ToolLoopGuardrails(
      opts.config.tool_loop_guardrails ?? DEFAULT_CONFIG.tool_loop_guardrails,
      (name) => READ_ONLY_TOOLS.has(name) || opts.registry.get(name)?.parallelSafe === true,
    );
    const engine = createCompressor(opts, () => this.opts.target, this.contextLengthOf(opts.target));
    this.context = engine;
    this.keeper = engine ? new ContextKeeper(engine, this.contextHost()) : undefined;
  }

  get sessionId(): string {
    return this.currentSessionId;
  }

  private contextLengthOf(target: ModelTarget): number | undefined {
    return getModelInfo(target, { home: this.opts.home }).contextLength;
  }

  /**
   * Compresses the history now (`/compress [focus]`). On success the conversation continues as a
   * new session linked to the old one. Never throws.
   */
  async compressContext(reason: string, focus?: string): Promise<CompressionOutcome> {
    if (!this.keeper)
      return { ok: false, message: "Compression is disabled", tokensBefore: 0, tokensAfter: 0 };
    return this.keeper.compress(reason, focus);
  }

  /** The compressor's view of this agent. */
  private contextHost(): ContextHost {
    return {
      messages: () => this.messages,
      historyLength: () => this.history.length,
      systemPrompt: () => this.systemPrompt ?? "",
      tools: () => this.tools ?? [],
      preservedContext: () => preservedTodoBlock(this.todos.snapshot()) ?? "",
      continueWith: (rest) => {
        this.history.splice(0, this.history.length, ...rest);
        const parent = this.currentSessionId;
        this.currentSessionId = randomUUID();
        return [parent, this.currentSessionId];
      },
      emit: (e) => this.emit(e),
    };
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

  /** The provider/model in use: the primary, or a fallback while a request runs on one. */
  get target(): ModelTarget {
    return this.opts.target;
  }

  /** Switches the primary provider's model for the following calls (and leaves any fallback). */
  setModel(model: string): void {
    this.router.setPrimaryModel(model);
    this.router.reset();
    this.useTarget(this.router.current());
  }

  /** Hard stop: aborts the in-flight model stream and running tools. */
  interrupt(): void {
    this.abort?.abort();
  }

  /**
   * Drops the last user message and everything after it (/undo, /retry): the earlier history is
   * untouched, so the cached prompt prefix still holds. Returns that message's text and how many
   * messages went; undefined while a request runs or when there is no user message.
   */
  rewindToLastUser(): { text: string; removed: number } | undefined {
    if (this.abort) return undefined;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const m = this.history[i]!;
      if (m.role !== "user") continue;
      const text =
        typeof m.content === "string"
          ? m.content
          : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
      const removed = this.history.length - i;
      this.history.splice(i);
      return { text, removed };
    }
    return undefined;
  }

  /** Soft guidance: rides on the next tool result (or the next user message) without interrupting. */
  steer(text: string): void {
    const t = text.trim();
    if (t) this.steerQueue.push(t);
  }

  /** Why a registered tool is missing from this session: a subagent's restriction or the toolsets. */
  private whyDisabled(name: string): string {
    if ((this.opts.delegation?.depth ?? 0) > 0 && DELEGATE_BLOCKED_TOOLS.has(name))
      return "subagents cannot use it. Do the work with your own tools and report back in your final answer.";
    return "it is not in this session's toolsets.";
  }

  /** The selected tools minus those that need a surface this session lacks (clarify without a person). */
  private exposedToolNames(): ReadonlySet<string> {
    const hidden = new Set<string>();
    if (!this.opts.clarify) hidden.add("clarify");
    if (!this.memory) hidden.add("memory");
    if (![...hidden].some((n) => this.opts.toolNames.has(n))) return this.opts.toolNames;
    return new Set([...this.opts.toolNames].filter((n) => !hidden.has(n)));
  }

  /** Builds the system prompt and tool list once per session. */
  async prepareSession(): Promise<{ systemPrompt: string; tools: ToolDefinition[]; layers?: PromptLayer[] }> {
    const env = this.opts.environments.get(this.taskId);
    if (this.tools === undefined)
      this.tools = (await this.opts.registry.getDefinitions(this.exposedToolNames())) as ToolDefinition[];
    if (this.systemPrompt === undefined) {
      const environment = await env.probe();
      // Memory is snapshotted here, once: writes during the session show up from the next one.
      const memoryBlock = [this.memory?.systemPromptBlock(), this.opts.memoryProvider?.systemPromptBlock()]
        .filter((b) => b?.trim())
        .join("\n\n");
      this.promptLayers = buildPromptLayers({
        home: this.opts.home,
        platform: this.platform,
        model: this.opts.target.model,
        environment,
        backend: env.backend,
        toolUseEnforcement: this.opts.config.agent.tool_use_enforcement,
        toolNames: this.tools.map((t) => t.function.name),
        contextCwd: env.backend === "local" ? environment.cwd : process.cwd(),
        memoryBlock,
      });
      this.systemPrompt = joinLayers(this.promptLayers);
    }
    return { systemPrompt: this.systemPrompt, tools: this.tools, layers: this.promptLayers };
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
      const result = await this.loop(userText, controller.signal, usage);
      if (result.status === "completed")
        await syncMemoryTurn(this.opts.memoryProvider, userText, result.finalText, (e) => this.emit(e));
      return result;
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
    let tools: ToolDefinition[];
    try {
      ({ tools } = await this.prepareSession());
    } catch (err) {
      // The environment probe failed (an unreachable ssh host, a docker daemon that is down):
      // its message says what to fix; a stack trace would not.
      const error = this.localError((err as Error)?.message ?? String(err));
      this.emit({ type: "done", status: "failed", finalText: "", error });
      return { status: "failed", finalText: "", usage, apiCalls: 0, error };
    }
    // Each request starts on the primary provider again (a fallback lasts one request).
    this.router.reset();
    this.useTarget(this.router.current());
    const pendingSteer = [this.takeNotices(), this.takeSteer()].filter(Boolean).join("\n\n");
    const userMessage = {
      role: "user" as const,
      content: pendingSteer ? `${pendingSteer}\n\n${userText}` : userText,
    };
    this.append(userMessage);
    // Recalled memory goes only into the requests' copy of this message: history stays clean.
    const recalled = await recallMemory(this.opts.memoryProvider, userText, signal, (e) => this.emit(e));
    const budget = new IterationBudget(this.opts.maxTurns ?? this.opts.config.agent.max_turns);
    this.guardrails.reset();
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
      await this.keeper?.beforeCall(withTools);
      const result = await callModel({
        streamFn: this.streamFn,
        buildRequest: (target) => ({
          target,
          messages: withMemoryContext(this.messages, userMessage, recalled),
          tools: withTools,
          signal,
        }),
        router: this.router,
        ...(this.opts.compressor ? { compressor: this.opts.compressor } : {}),
        ...(this.keeper
          ? { compressor: { compress: (reason: string) => this.keeper!.afterOverflow(reason) } }
          : {}),
        onModelSwitch: (target) => this.useTarget(target),
        maxRetries: this.opts.maxRetries ?? this.opts.config.agent.api_max_retries,
        retryBaseDelayMs: this.opts.retryBaseDelayMs ?? this.opts.config.agent.retry_base_delay * 1000,
        // Waits double from the base up to 24× it (5 s → 2 min by default), reset times included.
        retryMaxDelayMs: this.opts.retryMaxDelayMs ?? this.opts.config.agent.retry_base_delay * 24_000,
        emit: (e) => this.emit(e),
        signal,
        onActivity: () => this.touch("receiving the model's reply"),
      });
      const callUsage = result.usage;
      if (callUsage) {
        // The provider's own count corrects the estimator (only for the request it was made for).
        this.keeper?.observePromptTokens(callUsage.inputTokens);
        addUsage(usage, callUsage);
        addUsage(this.totalUsage, callUsage);
        const { model, provider } = this.opts.target;
        this.emit({ type: "usage", call: callUsage, total: { ...this.totalUsage }, model, provider });
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
      const message = withTextToolCalls(
        result.message,
        tools,
        (n) => this.opts.registry.resolveName(n),
        (e) => this.emit(e),
      );
      const toolCalls = message.tool_calls ?? [];
      if (toolCalls.length === 0 && this.opts.awaitBackground && this.backgroundJobs.size > 0 && !inGrace) {
        // Answering now would drop the background results: wait, then let the model use them.
        this.append(message);
        if (!(await this.waitForBackground(signal))) return finish("interrupted", message.content ?? "");
        this.append({ role: "user", content: this.takeNotices() });
        continue;
      }
      if (toolCalls.length === 0) {
        this.append(message);
        return finish(inGrace ? "budget_exhausted" : "completed", message.content ?? "");
      }
      const prepared = prepareToolCalls(
        toolCalls,
        (n) => this.opts.registry.resolveName(n),
        this.opts.toolNames,
        (name) => this.whyDisabled(name),
        tools.map((t) => t.function.name),
      );
      this.append(message);
      if (inGrace) return this.forceSummary(message, finish, call);
      const results = await runToolBatch(prepared, {
        registry: this.opts.registry,
        ctx,
        emit: (e) => this.emit(e),
        guard: this.guardrails,
        onToolActivity: (name) => {
          this.activity.currentTool = name;
          this.touch(name ? `running ${name}` : "tools finished");
        },
      });
      // Programmatic tool calling does not eat the iteration budget.
      if (results.some((r) => r.name === "execute_code")) budget.refund();
      const notes: string[] = [];
      const todoNote = this.tools?.some((t) => t.function.name === "todo") && this.todos.noteAfter(results);
      if (todoNote) notes.push(todoNote);
      const notices = this.takeNotices();
      if (notices) notes.push(notices);
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
      const halted = results.find((r) => r.halted);
      if (halted) {
        const error = this.localError(
          `Stopped by the tool-loop guardrail: ${halted.name} kept failing (tool_loop_guardrails.hard_stop_enabled)`,
        );
        return finish("failed", "", error);
      }
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
    const ctx: ToolContext = {
      taskId: this.taskId,
      sessionId: this.sessionId,
      signal,
      config: this.opts.config,
      home: this.opts.home,
      env: this.opts.environments.get(this.taskId),
      platform: this.platform,
      notices: this.notices,
      approvals: this.opts.approvals,
      approve: this.opts.approve,
      interactive: this.opts.approve !== undefined,
      memory: this.memory,
      todos: this.todos,
      ...(this.opts.clarify ? { clarify: this.opts.clarify } : {}),
      ...(this.opts.sessions ? { sessions: this.opts.sessions } : {}),
      delegate: createDelegationService({
        options: this.opts,
        sessionId: this.sessionId,
        taskId: this.taskId,
        signal,
        notices: this.notices,
        emit: (e) => this.emit(e),
        touch: (d) => this.touch(d),
        create: (o) => new Agent(o),
        trackBackground: (job) => this.backgroundJobs.add(job),
      }),
      toolCalls: createToolCallService({
        registry: this.opts.registry,
        available: () => (this.tools ?? []).map((t) => t.function.name),
        ctx: () => ctx,
        emit: (e) => this.emit(e),
      }),
    };
    return ctx;
  }

  /** Makes `target` the one in use; a change of provider or model is reported to onModelSwitch. */
  private useTarget(target: ModelTarget): void {
    const before = this.opts.target;
    this.opts.target = target;
    const same = before.provider === target.provider && before.model === target.model;
    if (!same || before.baseUrl !== target.baseUrl) {
      this.context?.updateModel(this.contextLengthOf(target));
      this.opts.onModelSwitch?.(target);
    }
  }

  /** Waits for every background delegation; false when interrupted first. */
  private async waitForBackground(signal: AbortSignal): Promise<boolean> {
    const n = this.backgroundJobs.size;
    this.emit({
      type: "status",
      kind: "info",
      message: `Waiting for ${n} background delegation${n === 1 ? "" : "s"} before answering`,
    });
    this.touch("waiting for background subagents");
    return this.backgroundJobs.waitAll(signal);
  }

  private takeNotices(): string {
    const text = this.noticeQueue.join("\n\n");
    this.noticeQueue = [];
    return text;
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
