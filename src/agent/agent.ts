import { once } from "node:events";
import { DEFAULT_CONFIG } from "../core/config-defaults.js";
import { newSessionId } from "../core/session-id.js";
import { getModelInfo } from "../llm/models/index.js";
import { ProviderRouter } from "../llm/provider-router.js";
import { streamLlm } from "../llm/registry.js";
import {
  type ChatMessage,
  emptyUsage,
  type ModelTarget,
  type RequestParams,
  type StreamFn,
  type ToolDefinition,
  type Usage,
} from "../llm/types.js";
import type { SkillSession } from "../skills/service.js";
import type { ApprovalSession } from "../tools/approval/session.js";
import type { ToolContext, ToolNotices } from "../tools/context.js";
import { BackgroundJobs } from "./background-jobs.js";
import type { ContextEngine } from "./compression/index.js";
import {
  type CompressionOutcome,
  type ContextHost,
  ContextKeeper,
  createCompressor,
} from "./context-keeper.js";
import { DELEGATE_BLOCKED_TOOLS } from "./delegation.js";
import type { AgentEvent } from "./events.js";
import { ToolLoopGuardrails } from "./guardrails.js";
import { SessionHooks } from "./hooks-session.js";
import { createMemoryStore, type MemoryStore } from "./memory/index.js";
import { recallMemory, syncMemoryTurn } from "./memory/provider-calls.js";
import { buildPromptLayers, joinLayers, type PromptLayer } from "./prompt/build.js";
import { createAgentSkills, replaceSkillsLayer, skillsIndexLayer } from "./prompt/skills.js";
import { type DeferralDecision, SessionTools } from "./session-tools.js";
import { preservedTodoBlock, TodoList } from "./todo.js";
import { buildToolContext } from "./tool-context.js";
import { saveTrajectory } from "./trajectory.js";
import { runTurn, type TurnHost } from "./turn.js";
import { type ActivitySnapshot, type AgentOptions, localError, type RunResult } from "./types.js";

export type { ActivitySnapshot, AgentOptions, RunnableAgent, RunResult } from "./types.js";

/** Tools whose repeated identical result means no progress (besides the registry's parallel-safe ones). */
const READ_ONLY_TOOLS = new Set(["read_file", "search_files", "session_search", "web_search", "web_extract"]);

/** How long close() waits for a running request and background delegations to stop. */
const CLOSE_WAIT_MS = 10_000;

/**
 * One conversation. One instance is one session: the system prompt and tool definitions are fixed
 * at the first run and reused byte-for-byte; history only grows (prompt-cache rule). Each request
 * runs as one turn (`turn.ts`), the history's only writer while it runs.
 */
export class Agent {
  /** Changes when compression continues the conversation as a new, linked session. */
  private currentSessionId: string;
  /** The conversation's stable id (its first row): compression moves `sessionId`, never this. */
  readonly conversationId: string;
  /** Every stored row of this conversation, oldest first: compression appends one. */
  private readonly rowIds: string[];
  /** The selection fixed at the session's first request, and the tool list built from it. */
  private readonly sessionTools: SessionTools;
  /** Settles when the request in flight has finished (close waits for it). */
  private runSettled: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** The hooks of this session's start, turns, approvals and end. */
  private readonly sessionHooks: SessionHooks;
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
  /** The skills store as this session sees it (skills tools, `/<skill>` commands). */
  readonly skills: SkillSession;
  /** The context engine (compression.enabled); undefined when compression is off. */
  readonly context: ContextEngine | undefined;
  /** Loop detection over one request's tool calls (tool_loop_guardrails). */
  private readonly guardrails: ToolLoopGuardrails;
  /** Compresses this conversation when it nears the window (undefined when compression is off). */
  private readonly keeper: ContextKeeper | undefined;
  private abort: AbortController | undefined;
  /** A manual compression in flight: a request waits for it (one writer per conversation). */
  private compressing: Promise<CompressionOutcome> | undefined;
  /** Bumped by every change to the history: a compression built from an older one is not applied. */
  private historyVersion = 0;
  /** What the turn loop sees of this agent (built once). */
  private readonly turnHost: TurnHost;
  /** Background delegations whose results have not been queued yet. */
  private readonly backgroundJobs = new BackgroundJobs();
  private steerQueue: string[] = [];
  /** Tool notices (background process finished, watched output) waiting for the next delivery. */
  private noticeQueue: string[] = [];
  private readonly notices: ToolNotices = {
    push: (text) => {
      const t = text.trim();
      if (!t) return;
      this.noticeQueue.push(t);
      this.opts.onNotice?.();
    },
  };
  private requestParams: RequestParams | undefined;
  private activity: ActivitySnapshot = {
    lastActivityAt: Date.now(),
    description: "idle",
    currentTool: undefined,
    apiCalls: 0,
  };

  constructor(opts: AgentOptions) {
    this.opts = opts;
    this.currentSessionId = opts.sessionId ?? newSessionId();
    this.rowIds = [...(opts.earlierSessionIds ?? []), this.currentSessionId];
    this.conversationId = opts.conversationId ?? this.rowIds[0]!;
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
        ? createMemoryStore(opts.home, opts.config, opts.scope?.memoryDir)
        : undefined;
    this.sessionTools = new SessionTools({
      registry: opts.registry,
      source: opts.toolNames,
      hidden: [...(opts.clarify ? [] : ["clarify"]), ...(this.memory ? [] : ["memory"])],
      config: opts.config,
      contextLength: () => this.contextLengthOf(this.opts.target),
      emit: (e) => this.emit(e),
      hooks: opts.hooks,
    });
    this.skills = createAgentSkills(
      opts,
      this.platform,
      () => this.sessionId,
      () => this.tools,
    );
    this.guardrails = new ToolLoopGuardrails(
      opts.config.tool_loop_guardrails ?? DEFAULT_CONFIG.tool_loop_guardrails,
      (name) => READ_ONLY_TOOLS.has(name) || opts.registry.get(name)?.parallelSafe === true,
    );
    const engine = createCompressor(opts, () => this.opts.target, this.contextLengthOf(opts.target));
    this.context = engine;
    this.keeper = engine ? new ContextKeeper(engine, this.contextHost()) : undefined;
    this.sessionHooks = new SessionHooks(opts.hooks, this);
    this.turnHost = this.createTurnHost();
  }

  get sessionId(): string {
    return this.currentSessionId;
  }

  /** Every stored row of this conversation, oldest first (its compression lineage). */
  get sessionIds(): readonly string[] {
    return [...this.rowIds];
  }

  /** This conversation's approval state: front ends switch its yolo (/yolo) or mode. */
  get approvals(): ApprovalSession | undefined {
    return this.opts.approvals;
  }

  /** Sampling and output settings (an API caller's) for the requests that follow; undefined: defaults. */
  setRequestParams(params: RequestParams | undefined): void {
    this.requestParams = params;
  }

  private contextLengthOf(target: ModelTarget): number | undefined {
    return getModelInfo(target, { home: this.opts.home }).contextLength;
  }

  /**
   * Compresses the history now (`/compress [focus]`). On success the conversation continues as a
   * new session linked to the old one. Refused while a request runs: its turn is the history's one
   * writer, and a summary of an older snapshot would lose what the turn appends meanwhile (ask
   * again once it finishes). A request started meanwhile waits for the compression. Never throws.
   */
  async compressContext(reason: string, focus?: string): Promise<CompressionOutcome> {
    if (!this.keeper)
      return { ok: false, message: "Compression is disabled", tokensBefore: 0, tokensAfter: 0 };
    const busy = this.abort
      ? "A request is running; /compress after it finishes"
      : this.compressing && "A compression is already running";
    if (busy) return { ok: false, message: busy, tokensBefore: 0, tokensAfter: 0 };
    const run = this.keeper.compress(reason, focus);
    this.compressing = run;
    try {
      return await run;
    } finally {
      this.compressing = undefined;
    }
  }

  /** The compressor's view of this agent. */
  private contextHost(): ContextHost {
    return {
      messages: () => this.messages,
      historyLength: () => this.history.length,
      systemPrompt: () => this.systemPrompt ?? "",
      tools: () => this.tools ?? [],
      preservedContext: () => preservedTodoBlock(this.todos.snapshot()) ?? "",
      version: () => this.historyVersion,
      continueWith: (rest, basedOn) => {
        if (basedOn !== this.historyVersion) return undefined;
        this.history.splice(0, this.history.length, ...rest);
        this.historyVersion += 1;
        const parent = this.currentSessionId;
        this.currentSessionId = newSessionId();
        this.rowIds.push(this.currentSessionId);
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

  /** Background delegations still running: whoever keeps agents alive must not close this one yet. */
  get backgroundWork(): number {
    return this.backgroundJobs.size;
  }

  /** Notices waiting for the next request (front ends that are idle may start one to deliver them). */
  get pendingNotices(): number {
    return this.noticeQueue.length;
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
   * Ends this agent for good (/new, exit, a chat dropped by a gateway): interrupts the request in
   * flight, stops background delegations and waits for both (bounded), tells `onClose` (the runtime
   * ends the stored session) and releases the task's environment. Later requests fail. Idempotent;
   * never rejects.
   */
  close(reason = "closed"): Promise<void> {
    this.closing ??= (async () => {
      this.interrupt();
      this.backgroundJobs.abortAll();
      // A timer cleared once the wait is over: a closed agent is not held in memory until it fires.
      const limiter = new AbortController();
      const timer = setTimeout(() => limiter.abort(), CLOSE_WAIT_MS);
      const expired = once(limiter.signal, "abort");
      try {
        await Promise.race([this.runSettled, expired]);
        await this.backgroundJobs.waitAll(limiter.signal);
      } finally {
        clearTimeout(timer);
        limiter.abort();
      }
      await this.sessionHooks.closing(reason);
      try {
        await this.opts.onClose?.(reason);
      } catch {
        // The front end's bookkeeping must not keep the environment alive.
      }
      await this.sessionHooks.closed(reason);
      await this.opts.environments.release(this.taskId).catch(() => undefined);
    })();
    return this.closing;
  }

  /**
   * Asks the toolset policy again (tools registered since the session fixed its list: an MCP server
   * that connected, a plugin enabled). The next request sees the new list; the system prompt stays
   * as built. A changed tool list costs the prompt cache once. Returns what changed; nothing when
   * the session had not fixed its list yet (its first request takes the current one anyway).
   */
  async reloadTools(): Promise<{ added: string[]; removed: string[] }> {
    this.sessionTools.reset();
    if (this.tools === undefined) return { added: [], removed: [] };
    const before = new Set(this.tools.map((t) => t.function.name));
    this.tools = await this.sessionTools.build();
    const after = new Set(this.tools.map((t) => t.function.name));
    return {
      added: [...after].filter((n) => !before.has(n)),
      removed: [...before].filter((n) => !after.has(n)),
    };
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
      this.historyVersion += 1;
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

  /** Whether this session's MCP and plugin tools sit behind the tool search bridge (set by its first request). */
  get toolSearch(): DeferralDecision | undefined {
    return this.sessionTools.plan?.decision;
  }

  private skillsIndex(): string {
    const backend = this.opts.environments.get(this.taskId).backend;
    return skillsIndexLayer({ ...this.opts, platform: this.platform, backend, scope: this.skills.scope() });
  }

  /** `/reload-skills --now`: rebuilds the skills index of this session's prompt (an explicit cache break). */
  async reloadSkills(): Promise<boolean> {
    if (this.abort) return false;
    const before = (await this.prepareSession()).systemPrompt;
    this.promptLayers = this.promptLayers && replaceSkillsLayer(this.promptLayers, this.skillsIndex());
    // A resumed session's stored prompt has no layers: it is rebuilt whole.
    this.systemPrompt = this.promptLayers && joinLayers(this.promptLayers);
    return (await this.prepareSession()).systemPrompt !== before;
  }

  /** Builds the system prompt and tool list once per session. */
  async prepareSession(): Promise<{ systemPrompt: string; tools: ToolDefinition[]; layers?: PromptLayer[] }> {
    const env = this.opts.environments.get(this.taskId);
    this.tools ??= await this.sessionTools.build();
    if (this.systemPrompt === undefined) {
      const environment = await env.probe();
      // Memory is snapshotted here, once: writes during the session show up from the next one.
      const memoryBlock = [this.memory?.systemPromptBlock(), this.opts.memoryProvider?.systemPromptBlock()]
        .filter((b) => b?.trim())
        .join("\n\n");
      const pluginSections = (await this.opts.promptSections?.()) ?? "";
      this.promptLayers = buildPromptLayers({
        home: this.opts.home,
        platform: this.platform,
        model: this.opts.target.model,
        environment,
        backend: env.backend,
        toolUseEnforcement: this.opts.config.agent.tool_use_enforcement,
        toolNames: this.tools.map((t) => t.function.name),
        contextCwd: env.backend === "local" ? environment.cwd : (this.opts.cwd ?? process.cwd()),
        memoryBlock,
        skillsIndex: this.skillsIndex(),
        pluginSections,
      });
      this.systemPrompt = joinLayers(this.promptLayers);
    }
    return { systemPrompt: this.systemPrompt, tools: this.tools, layers: this.promptLayers };
  }

  /** Runs one user request to completion. Never throws; failures come back in the result. */
  async runConversation(userText: string): Promise<RunResult> {
    const usage = emptyUsage();
    if (this.abort || this.closing) {
      return {
        status: "failed",
        finalText: "",
        usage,
        apiCalls: 0,
        error: localError(this.closing ? "This session is closed" : "A request is already running"),
      };
    }
    const controller = new AbortController();
    this.abort = controller;
    const settled = Promise.withResolvers<void>();
    this.runSettled = settled.promise;
    try {
      await this.compressing;
      const result = await this.startTurn(userText, controller.signal, usage);
      if (result.status === "completed") {
        await syncMemoryTurn(this.opts.memoryProvider, userText, result.finalText, (e) => this.emit(e));
        await this.sessionHooks.afterTurn(userText, result.finalText, () => this.messages);
      }
      return result;
    } catch (err) {
      const error = localError(`Internal error: ${(err as Error)?.stack ?? String(err)}`);
      this.emit({ type: "done", status: "failed", finalText: "", error });
      return { status: "failed", finalText: "", usage, apiCalls: this.activity.apiCalls, error };
    } finally {
      this.abort = undefined;
      this.touch("idle");
      settled.resolve();
    }
  }

  /** Prepares the session and the user message, then hands the request to the turn loop. */
  private async startTurn(userText: string, signal: AbortSignal, usage: Usage): Promise<RunResult> {
    let tools: ToolDefinition[];
    try {
      ({ tools } = await this.prepareSession());
    } catch (err) {
      // The environment probe failed (an unreachable ssh host, a docker daemon that is down):
      // its message says what to fix; a stack trace would not.
      const error = localError((err as Error)?.message ?? String(err));
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
    const memory = await recallMemory(this.opts.memoryProvider, userText, signal, (e) => this.emit(e));
    // So does the context pre_llm_call hooks add.
    const recalled = await this.sessionHooks.beforeTurn(memory, userText, () => this.messages);
    const ctx = this.toolContext(signal);
    return runTurn(this.turnHost, { userMessage, recalled, tools, ctx, signal, usage });
  }

  /** The turn loop's view of this agent. */
  private createTurnHost(): TurnHost {
    const { opts } = this;
    const keeper = this.keeper;
    const sessionTools = (): ReadonlySet<string> => this.sessionTools.callable();
    const requestParams = (): RequestParams | undefined => this.requestParams;
    return {
      streamFn: this.streamFn,
      router: this.router,
      registry: opts.registry,
      get toolNames() {
        return sessionTools();
      },
      guardrails: this.guardrails,
      hooks: opts.hooks,
      hookFields: this.sessionHooks.fields,
      keeper,
      compressor: keeper ? { compress: (reason) => keeper.afterOverflow(reason) } : opts.compressor,
      get requestParams() {
        return requestParams();
      },
      // Read per turn: the config may change between requests.
      get limits() {
        const agent = opts.config.agent;
        return {
          maxTurns: opts.maxTurns ?? agent.max_turns,
          maxRetries: opts.maxRetries ?? agent.api_max_retries,
          retryBaseDelayMs: opts.retryBaseDelayMs ?? agent.retry_base_delay * 1000,
          // Waits double from the base up to 24× it (5 s → 2 min by default), reset times included.
          retryMaxDelayMs: opts.retryMaxDelayMs ?? agent.retry_base_delay * 24_000,
          awaitBackground: opts.awaitBackground === true,
        };
      },
      totalUsage: this.totalUsage,
      messages: () => this.messages,
      append: (m) => this.append(m),
      emit: (e) => this.emit(e),
      touch: (d) => this.touch(d),
      toolActivity: (name) => {
        this.activity.currentTool = name;
        this.touch(name ? `running ${name}` : "tools finished");
      },
      countApiCall: () => {
        this.activity.apiCalls += 1;
      },
      target: () => this.opts.target,
      useTarget: (t) => this.useTarget(t),
      whyDisabled: (name) => this.whyDisabled(name),
      takeNotices: () => this.takeNotices(),
      takeSteer: () => this.takeSteer(),
      todoNote: (results) => this.todos.noteAfter(results) || "",
      backgroundPending: () => this.backgroundJobs.size,
      waitForBackground: (signal) => this.waitForBackground(signal),
      finished: (status) => {
        if (opts.config.agent.save_trajectories)
          saveTrajectory(opts.home, this.messages, opts.target.model, status === "completed");
      },
    };
  }

  /** What tools see of this request (see tool-context.ts). */
  private toolContext(signal: AbortSignal): ToolContext {
    return buildToolContext(
      {
        options: this.opts,
        taskId: this.taskId,
        conversationId: this.conversationId,
        platform: this.platform,
        notices: this.notices,
        memory: this.memory,
        todos: this.todos,
        skills: this.skills,
        guardrails: this.guardrails,
        sessionTools: this.sessionTools,
        sessionId: () => this.sessionId,
        sessionIds: () => this.sessionIds,
        offeredTools: () => (this.tools ?? []).map((t) => t.function.name),
        approve: (s) => this.sessionHooks.approve(this.opts.approve, s),
        emit: (e) => this.emit(e),
        touch: (d) => this.touch(d),
        createChild: (o) => new Agent(o),
        trackBackground: (job, controller) => this.backgroundJobs.add(job, controller),
      },
      signal,
    );
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
    this.historyVersion += 1;
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
}
