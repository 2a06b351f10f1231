/**
 * What every route handler shares, and the pieces of wire format both OpenAI protocols use
 * (ids, usage, how a finished run maps to an HTTP error, progress comment lines).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RunResult } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import type { Runtime } from "../runtime/runtime.js";
import type { ResponseStore } from "../state/responses.js";
import type { ConversationRequest } from "./conversation.js";
import type { ConversationCache } from "./conversation-cache.js";
import { startSse } from "./http.js";
import type { IdempotencyGate } from "./idempotency.js";
import { fitToProtocol } from "./model-params.js";
import { checkSchema } from "./response-format.js";
import type { ApiRun, RunOutcome, RunPool, RunSetup, SessionPlan } from "./runs.js";
import type { ApiServerOptions } from "./settings.js";

export type ApiLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface RouteContext {
  runtime: Runtime;
  options: ApiServerOptions;
  runs: RunPool;
  /** Idempotency-Key claims and replays. */
  idempotency: IdempotencyGate;
  /** Stored Responses; undefined when state.db could not be opened (storeProblem says why). */
  responses: ResponseStore | undefined;
  storeProblem: string | undefined;
  /** Recent Responses' conversations as the callers gave them (unredacted), for previous_response_id. */
  conversations: ConversationCache;
  log: ApiLog;
  /** Unix seconds the server started (the model's `created`). */
  startedAt: number;
}

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path parameters (`{id}`), already URL-decoded. */
  params: string[];
  url: URL;
  /** The parsed JSON body (POST routes). */
  body: Record<string, unknown>;
  /** The body's bytes as received (empty for GET and DELETE). */
  raw: Buffer;
  /** Who is calling (caller.ts): idempotency keys and continued conversations are theirs alone. */
  caller: string;
  /**
   * The named key the request authenticated with (its runs, sessions and stored responses are
   * user `api:<name>`'s); undefined for the owner's key (and the open routes).
   */
  keyName: string | undefined;
}

export type RouteHandler = (ctx: RouteContext, r: RouteRequest) => Promise<void>;

/** `prefix` + 24 hex characters, unique enough for ids clients only echo back. */
export const newId = (prefix: string): string => `${prefix}${randomBytes(12).toString("hex")}`;

export const unixNow = (): number => Math.floor(Date.now() / 1000);

export const SESSION_HEADER = "x-hermes-session-id";

/** Chat completions' usage of a whole run (every model call of it). */
export function chatUsage(u: RunResult["usage"]) {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

/** Did the run produce an answer to send? */
export const answered = (o: RunOutcome): boolean =>
  (o.result.status === "completed" || o.result.status === "budget_exhausted") &&
  o.result.finalText.trim() !== "" &&
  o.formatProblem === undefined;

/** `finish_reason` of an answer: `length` when the output cap or the iteration budget cut it. */
export const finishReason = (o: RunOutcome): "stop" | "length" =>
  o.result.status === "budget_exhausted" || o.result.finishReason === "length" ? "length" : "stop";

/**
 * Progress as SSE comment lines (`: tool terminal started`): clients skip comments, a human
 * watching the stream with curl sees what the agent does. Undefined for events that show nothing.
 */
export function progressComment(e: AgentEvent): string | undefined {
  switch (e.type) {
    case "tool_start":
      return `: tool ${e.name} started\n\n`;
    case "tool_end":
      return `: tool ${e.name} ${e.isError ? "failed" : "finished"} (${Math.round(e.durationMs)} ms)\n\n`;
    case "attempt_discarded":
      return `: attempt ${e.attempt} discarded (${e.reason}); its text above is not part of the answer\n\n`;
    case "status":
      return e.kind === "retry" || e.kind === "fallback" || e.kind === "compress"
        ? `: ${e.kind}: ${e.message.replace(/\s+/g, " ")}\n\n`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * Streamed text across a run's model calls: the text of each call after the first is set apart
 * by a blank line, so narration before a tool call does not run into the answer.
 */
export class StreamedText {
  private text = "";
  private separate = false;

  /** Feeds an event; returns the text to send now, if any. */
  handle(e: AgentEvent): string | undefined {
    if (e.type === "turn_start") {
      if (this.text) this.separate = true;
      return undefined;
    }
    if (e.type !== "text_delta" || !e.text) return undefined;
    const piece = this.separate ? `\n\n${e.text}` : e.text;
    this.separate = false;
    this.text += piece;
    return piece;
  }

  get all(): string {
    return this.text;
  }
}

/**
 * How a request's run is set up: the session plan, and the model settings fitted to the configured
 * model's protocol. Throws ApiError (400) for a setting the protocol cannot take or an invalid schema.
 */
export async function runSetup(
  ctx: RouteContext,
  r: RouteRequest,
  request: ConversationRequest,
  plan: SessionPlan,
  formatPath: string,
): Promise<Omit<RunSetup, "runtime" | "toolsets">> {
  await checkSchema(request.params.responseFormat, formatPath);
  const fitted = fitToProtocol(request.params, ctx.runtime.target.apiMode);
  return { plan, params: fitted.params, emulateFormat: fitted.emulateFormat, keyName: r.keyName };
}

/**
 * Runs a request whose answer is sent whole, once a slot is free. Undefined when the client left
 * (nothing can be sent); otherwise the outcome, answered or not.
 */
export async function waitForAnswer(
  ctx: RouteContext,
  r: RouteRequest,
  request: ConversationRequest,
  setup: Omit<RunSetup, "runtime" | "toolsets">,
): Promise<{ outcome: RunOutcome; sessionId: string; headers: Record<string, string> } | undefined> {
  const run = await ctx.runs.start(request, setup, () => {}, r.res);
  run.watch(r.res);
  const outcome = await run.execute();
  if (outcome.stopReason === "client_disconnected") return undefined;
  return { outcome, sessionId: run.sessionId, headers: { [SESSION_HEADER]: run.sessionId } };
}

/** Starts a streamed run once a slot is free: counted, watched for the client leaving, SSE headers sent. */
export async function startStreamedRun(
  ctx: RouteContext,
  r: RouteRequest,
  request: ConversationRequest,
  setup: Omit<RunSetup, "runtime" | "toolsets">,
  onEvent: (e: AgentEvent) => void,
): Promise<ApiRun> {
  const run = await ctx.runs.start(request, setup, onEvent, r.res);
  run.watch(r.res);
  startSse(r.res, { [SESSION_HEADER]: run.sessionId });
  return run;
}

/** After a streamed run: false when the client is gone and nothing more can be sent. */
export const clientStillThere = (o: RunOutcome, r: RouteRequest): boolean =>
  o.stopReason !== "client_disconnected" && !r.res.destroyed;
