/**
 * The runs in flight: one agent per request, at most `maxConcurrentRuns` at once. A run never
 * outlives its request: the client leaving interrupts it, and its agent (and so its state.db
 * session) is closed when the request ends, whatever the outcome. No approval callback is given:
 * nobody can answer one over HTTP, so flagged commands are denied and the model reads the denial.
 */
import type { ServerResponse } from "node:http";
import type { Agent, RunResult } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import { newSessionId } from "../core/session-id.js";
import {
  addUsage,
  type ChatMessage,
  emptyUsage,
  type RequestParams,
  type ResponseFormat,
} from "../llm/types.js";
import type { Runtime } from "../runtime/runtime.js";
import type { SessionRecord, SessionStore } from "../state/store.js";
import { API_USER_PLATFORM } from "./caller.js";
import { answerOpenToolCalls, applyInstructions, type ConversationRequest } from "./conversation.js";
import { ApiError } from "./http.js";
import { checkAnswer, formatInstruction, repairRequest } from "./response-format.js";
import { type Release, RunQueue } from "./run-queue.js";
import { API_SOURCE } from "./sessions.js";

export type StopReason = "client_disconnected" | "server_stopping";

export interface RunOutcome {
  result: RunResult;
  /** Set when the run was interrupted from outside. */
  stopReason: StopReason | undefined;
  /** The conversation after the run, as the caller sent it (no instructions) plus what the agent added. */
  conversation: ChatMessage[];
  /** The agent's conversation after the run (no system prompt), as it held it: unredacted. */
  live: ChatMessage[];
  /** The answer failed the requested response format even after a repair turn: why. */
  formatProblem?: string;
}

/** Where a run's conversation is stored. */
export type SessionPlan =
  /** A new session holding the request's history (copied in batches) and this turn. */
  | { kind: "new" }
  /**
   * A stored session the request's history extends: `extra` messages first, then this turn. `live`
   * is the session's conversation as the last run held it (tool messages and all, unredacted),
   * while this process keeps it; without it the run starts from the request's own history.
   */
  | { kind: "continue"; session: SessionRecord; extra: ChatMessage[]; live?: readonly ChatMessage[] };

/** Messages (and bytes) written per transaction when a long history is copied into a session. */
const COPY_BATCH_MESSAGES = 32;
const COPY_BATCH_CHARS = 128 * 1024;

/** A message's size as a copy batch counts it. */
const charsOf = (m: ChatMessage): number =>
  typeof m.content === "string" ? m.content.length : JSON.stringify(m.content ?? "").length;

/** A history small enough to be written in one transaction with the session. */
function fitsOneBatch(messages: readonly ChatMessage[]): boolean {
  if (messages.length > COPY_BATCH_MESSAGES) return false;
  let chars = 0;
  for (const m of messages) chars += charsOf(m);
  return chars < COPY_BATCH_CHARS;
}

/**
 * Appends `messages` to a session in small transactions, giving the event loop a turn after each:
 * a client's first request may carry thousands of earlier messages.
 */
async function appendInBatches(
  store: SessionStore,
  sessionId: string,
  messages: ChatMessage[],
): Promise<void> {
  let batch: ChatMessage[] = [];
  let chars = 0;
  for (const m of messages) {
    batch.push(m);
    chars += charsOf(m);
    if (batch.length >= COPY_BATCH_MESSAGES || chars >= COPY_BATCH_CHARS) {
      store.appendMessages(sessionId, batch);
      batch = [];
      chars = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (batch.length > 0) store.appendMessages(sessionId, batch);
}

/** What a run needs besides its request. */
export interface RunSetup {
  runtime: Runtime;
  toolsets: readonly string[];
  plan: SessionPlan;
  /** The configured model's protocol cannot carry the response format: ask for it in words. */
  emulateFormat: boolean;
  /** The settings sent to the model (the format left out when emulated). */
  params: RequestParams;
  /** The named key the request came with: the run works as user `api:<name>`; undefined: the owner. */
  keyName: string | undefined;
}

/** One request's agent. */
export class ApiRun {
  private stopReason: StopReason | undefined;
  private readonly produced: ChatMessage[] = [];
  private readonly settled = Promise.withResolvers<void>();

  private constructor(
    readonly agent: Agent,
    private readonly request: ConversationRequest,
    private readonly setup: RunSetup,
    /** The stored row has no system prompt yet: it is written after the first request builds one. */
    private readonly promptUnstored: boolean,
  ) {
    agent.setRequestParams(Object.keys(setup.params).length > 0 ? setup.params : undefined);
  }

  /** Builds the run's agent on the session its plan names (copying a long history in batches). */
  static async open(
    request: ConversationRequest,
    setup: RunSetup,
    onEvent: (e: AgentEvent) => void,
  ): Promise<ApiRun> {
    const { runtime, plan } = setup;
    let run: ApiRun | undefined;
    const listener = (e: AgentEvent): void => {
      if (e.type === "message" && (e.message.role === "assistant" || e.message.role === "tool"))
        run?.produced.push(e.message);
      onEvent(e);
    };
    const user = setup.keyName === undefined ? undefined : { userId: setup.keyName };
    const base = {
      platform: "api_server",
      source: API_SOURCE,
      toolsets: setup.toolsets,
      // The answer waits for background delegations; no review keeps working after the request.
      awaitBackground: true,
      learn: false,
      // A named key's runs work in its own folder, memory and processes, and its sessions are its own.
      ...(user ? { owner: user, ownerPlatform: API_USER_PLATFORM } : {}),
    };
    const store = runtime.sessions;
    // The conversation as the caller gave it: the model gets this, the store a redacted copy.
    const history =
      plan.kind === "continue" && plan.live
        ? [...plan.live, ...answerOpenToolCalls(plan.extra)]
        : answerOpenToolCalls(applyInstructions(request).history);
    let resume: SessionRecord | undefined;
    if (store && plan.kind === "continue") {
      if (plan.extra.length > 0) await appendInBatches(store, plan.session.id, plan.extra);
      resume = plan.session;
    } else if (store && !fitsOneBatch(history)) {
      // A long history goes in first, in batches; a short one is stored with the run's own
      // session (the recorder writes it in one go, system prompt included).
      resume = store.createSession({
        id: newSessionId(),
        source: API_SOURCE,
        model: runtime.target.model,
        provider: runtime.target.provider,
        cwd: runtime.scopeOf(user && { platform: API_USER_PLATFORM, userId: user.userId }).workdir,
        ...(user ? { userId: user.userId } : {}),
      });
      await appendInBatches(store, resume.id, history);
    }
    const agent = runtime.newAgent(listener, resume ? { ...base, resume, history } : { ...base, history });
    run = new ApiRun(agent, request, setup, resume !== undefined && !resume.systemPrompt);
    return run;
  }

  /** The session the conversation is stored in now (compression moves it to a new one). */
  get sessionId(): string {
    return this.agent.sessionId;
  }

  /** Resolves once the run has ended and its agent is closed. */
  get done(): Promise<void> {
    return this.settled.promise;
  }

  /** Interrupts the run (first reason wins); harmless after it ended. */
  stop(reason: StopReason): void {
    this.stopReason ??= reason;
    this.agent.interrupt();
  }

  /** Interrupts the run when the client goes away before its answer was sent in full. */
  watch(res: ServerResponse): void {
    res.once("close", () => {
      if (!res.writableFinished) this.stop("client_disconnected");
    });
  }

  /** Runs the turn (and a repair turn for a structured answer that failed its check), then closes the agent. Never throws. */
  async execute(): Promise<RunOutcome> {
    const { turn } = applyInstructions(this.request);
    const format = this.request.params.responseFormat;
    try {
      // A client that left before the run started gets no run at all.
      let result: RunResult = this.stopReason
        ? { status: "interrupted", finalText: "", apiCalls: 0, usage: emptyUsage() }
        : await this.agent.runConversation(
            format && this.setup.emulateFormat ? `${turn}\n\n${formatInstruction(format)}` : turn,
          );
      this.storePrompt();
      let formatProblem: string | undefined;
      if (format && isAnswer(result)) ({ result, formatProblem } = await this.checkFormat(result, format));
      return {
        result,
        stopReason: this.stopReason,
        conversation: [
          ...this.request.history,
          { role: "user", content: this.request.turn },
          ...this.produced,
        ],
        live: this.agent.messages.filter((m) => m.role !== "system"),
        ...(formatProblem ? { formatProblem } : {}),
      };
    } finally {
      await this.agent.close(this.stopReason === "server_stopping" ? "shutdown" : "api_request_end");
      this.settled.resolve();
    }
  }

  /** The answer checked against the format, with one repair turn when it fails. */
  private async checkFormat(
    first: RunResult,
    format: ResponseFormat,
  ): Promise<{ result: RunResult; formatProblem?: string }> {
    const check = await checkAnswer(first.finalText, format);
    if (check.ok) return { result: { ...first, finalText: check.text } };
    if (this.stopReason) return { result: first, formatProblem: check.problems };
    const second = await this.agent.runConversation(repairRequest(check.problems, format));
    const usage = emptyUsage();
    addUsage(usage, first.usage);
    addUsage(usage, second.usage);
    const both = { ...second, usage, apiCalls: first.apiCalls + second.apiCalls };
    if (!isAnswer(second)) return { result: both };
    const again = await checkAnswer(second.finalText, format);
    return again.ok
      ? { result: { ...both, finalText: again.text } }
      : { result: both, formatProblem: again.problems };
  }

  /** A session made or continued here gets the system prompt the run built, for the next request to reuse. */
  private storePrompt(): void {
    const first = this.agent.messages[0];
    if (!this.promptUnstored || first?.role !== "system") return;
    try {
      this.setup.runtime.sessions?.setSystemPrompt(this.agent.sessionId, first.content);
    } catch (err) {
      this.setup.runtime.logger.warn("api session prompt not stored", { message: (err as Error).message });
    }
  }
}

const isAnswer = (r: RunResult): boolean =>
  (r.status === "completed" || r.status === "budget_exhausted") && r.finalText.trim() !== "";

/** Runs against the cap (waiting in the run queue past it) and stops them all on shutdown. */
export class RunPool {
  private readonly active = new Set<ApiRun>();
  /** Sessions a request has planned to continue and not finished with. */
  private readonly claimed = new Set<string>();
  private readonly queue: RunQueue;
  private draining = false;
  /** Runs started since the server did. */
  total = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly options: {
      maxConcurrentRuns: number;
      queueTimeoutMs: number;
      maxQueuedRuns: number;
      toolsets: readonly string[];
    },
  ) {
    this.queue = new RunQueue({
      max: options.maxConcurrentRuns,
      timeoutMs: options.queueTimeoutMs,
      maxQueued: options.maxQueuedRuns,
    });
  }

  get inFlight(): number {
    return this.active.size;
  }

  /** Requests waiting for a run slot. */
  get queued(): number {
    return this.queue.queued;
  }

  /** Session ids of the runs in flight and of the sessions requests are about to continue (not deletable meanwhile). */
  liveSessionIds(): Set<string> {
    return new Set([...this.claimed, ...[...this.active].flatMap((r) => r.agent.sessionIds)]);
  }

  /**
   * Reserves a stored session for one request to continue; false when a run or another request
   * has it. The request gives it back with `unclaim` once it is over.
   */
  claim(sessionId: string): boolean {
    if (this.liveSessionIds().has(sessionId)) return false;
    this.claimed.add(sessionId);
    return true;
  }

  unclaim(sessionId: string): void {
    this.claimed.delete(sessionId);
  }

  /**
   * A new run once a slot is free, counted until it is done. Rejects with ApiError: 429 when no
   * slot freed within the queue timeout, 503 while stopping, 499 when the client left while
   * waiting (`res` closed: nobody is there to answer).
   */
  async start(
    request: ConversationRequest,
    setup: Omit<RunSetup, "runtime" | "toolsets">,
    onEvent: (e: AgentEvent) => void,
    res: ServerResponse,
  ): Promise<ApiRun> {
    if (this.draining) throw stopping();
    if (res.destroyed) throw gone();
    const left = new AbortController();
    const onClose = (): void => left.abort(gone());
    res.once("close", onClose);
    let release: Release;
    try {
      release = await this.queue.acquire(left.signal);
    } finally {
      res.off("close", onClose);
    }
    let run: ApiRun;
    try {
      run = await ApiRun.open(
        request,
        { ...setup, runtime: this.runtime, toolsets: this.options.toolsets },
        onEvent,
      );
    } catch (err) {
      release();
      throw err;
    }
    this.active.add(run);
    this.total++;
    void run.done.then(() => {
      this.active.delete(run);
      release();
    });
    return run;
  }

  /** Refuses new runs, lets the running ones finish for up to `drainMs`, then interrupts the rest. */
  async drain(drainMs: number): Promise<void> {
    this.draining = true;
    this.queue.close(stopping());
    const all = (): Promise<unknown> => Promise.all([...this.active].map((r) => r.done));
    if (this.active.size === 0) return;
    const timer = Promise.withResolvers<void>();
    const handle = setTimeout(timer.resolve, Math.max(0, drainMs));
    await Promise.race([all(), timer.promise]);
    clearTimeout(handle);
    for (const run of this.active) run.stop("server_stopping");
    await all();
  }
}

const gone = (): ApiError =>
  new ApiError(499, "The client left while waiting for a run slot", "server_error", "client_disconnected");

const stopping = (): ApiError =>
  new ApiError(503, "The API server is shutting down", "service_unavailable", "server_stopping");
