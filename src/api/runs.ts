/**
 * The runs in flight: one agent per request, at most `maxConcurrentRuns` at once. A run never
 * outlives its request: the client leaving interrupts it, and its agent (and so its state.db
 * session) is closed when the request ends, whatever the outcome. No approval callback is given:
 * nobody can answer one over HTTP, so flagged commands are denied and the model reads the denial.
 */
import type { ServerResponse } from "node:http";
import type { Agent, RunResult } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import type { ChatMessage } from "../llm/types.js";
import type { Runtime } from "../runtime/runtime.js";
import { answerOpenToolCalls, applyInstructions, type ConversationRequest } from "./conversation.js";
import { ApiError } from "./http.js";

export type StopReason = "client_disconnected" | "server_stopping";

export interface RunOutcome {
  result: RunResult;
  /** Set when the run was interrupted from outside. */
  stopReason: StopReason | undefined;
  /** The conversation after the run, as the caller sent it (no instructions) plus what the agent added. */
  conversation: ChatMessage[];
}

/** One request's agent. */
export class ApiRun {
  readonly agent: Agent;
  readonly sessionId: string;
  private stopReason: StopReason | undefined;
  private readonly produced: ChatMessage[] = [];
  private readonly settled = Promise.withResolvers<void>();

  constructor(
    runtime: Runtime,
    private readonly request: ConversationRequest,
    toolsets: readonly string[],
    onEvent: (e: AgentEvent) => void,
  ) {
    const { history } = applyInstructions(request);
    this.agent = runtime.newAgent(
      (e) => {
        if (e.type === "message" && (e.message.role === "assistant" || e.message.role === "tool"))
          this.produced.push(e.message);
        onEvent(e);
      },
      {
        platform: "api_server",
        source: "api_server",
        toolsets,
        history: answerOpenToolCalls(history),
        // The answer waits for background delegations; no review keeps working after the request.
        awaitBackground: true,
        learn: false,
      },
    );
    this.sessionId = this.agent.sessionId;
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

  /** Runs the turn, then closes the agent. Never throws. */
  async execute(): Promise<RunOutcome> {
    const { turn } = applyInstructions(this.request);
    try {
      // A client that left before the run started gets no run at all.
      const result: RunResult = this.stopReason
        ? { status: "interrupted", finalText: "", apiCalls: 0, usage: emptyUsage() }
        : await this.agent.runConversation(turn);
      return {
        result,
        stopReason: this.stopReason,
        conversation: [
          ...this.request.history,
          { role: "user", content: this.request.turn },
          ...this.produced,
        ],
      };
    } finally {
      await this.agent.close(this.stopReason === "server_stopping" ? "shutdown" : "api_request_end");
      this.settled.resolve();
    }
  }
}

const emptyUsage = (): RunResult["usage"] => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});

/** Counts runs against the cap and stops them all on shutdown. */
export class RunPool {
  private readonly active = new Set<ApiRun>();
  private draining = false;
  /** Runs started since the server did. */
  total = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly options: { maxConcurrentRuns: number; toolsets: readonly string[] },
  ) {}

  get inFlight(): number {
    return this.active.size;
  }

  /** Session ids of the runs in flight (not deletable while they run). */
  liveSessionIds(): Set<string> {
    return new Set([...this.active].flatMap((r) => r.agent.sessionIds));
  }

  /** A new run, counted until it is done. Throws ApiError 429 over the cap, 503 while stopping. */
  start(request: ConversationRequest, onEvent: (e: AgentEvent) => void): ApiRun {
    if (this.draining)
      throw new ApiError(503, "The API server is shutting down", "service_unavailable", "server_stopping");
    if (this.active.size >= this.options.maxConcurrentRuns)
      throw new ApiError(
        429,
        `Too many runs in flight (at most ${this.options.maxConcurrentRuns}); retry shortly`,
        "rate_limit_error",
        "too_many_runs",
        null,
        { "retry-after": "1" },
      );
    const run = new ApiRun(this.runtime, request, this.options.toolsets, onEvent);
    this.active.add(run);
    this.total++;
    void run.done.then(() => this.active.delete(run));
    return run;
  }

  /** Refuses new runs, lets the running ones finish for up to `drainMs`, then interrupts the rest. */
  async drain(drainMs: number): Promise<void> {
    this.draining = true;
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
