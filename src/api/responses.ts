/**
 * The Responses API: POST /v1/responses runs one turn (continuing the stored conversation of
 * `previous_response_id`: its session itself when that response is the session's latest state),
 * GET and DELETE /v1/responses/{id} read and remove stored ones. The output is one assistant
 * message: tools run on the server, and their progress shows as SSE comments. With an
 * Idempotency-Key a retry gets the first attempt's response (same id), streamed again if asked.
 */
import type { AgentEvent } from "../agent/events.js";
import type { ChatMessage } from "../llm/types.js";
import type { StoredResponse } from "../state/responses.js";
import { checkToolResults } from "./checks.js";
import {
  answered,
  clientStillThere,
  newId,
  progressComment,
  type RouteContext,
  type RouteRequest,
  runSetup,
  SESSION_HEADER,
  StreamedText,
  startStreamedRun,
  unixNow,
  waitForAnswer,
} from "./context.js";
import {
  abandonContinuation,
  planResponsesContinuation,
  recordResponseTip,
  releasePlan,
} from "./continuation.js";
import { ApiError, sendJson, startSse, writeSse } from "./http.js";
import { type Answer, idempotencyKeyOf } from "./idempotency.js";
import { parseResponsesRequest, type ResponsesRequest } from "./responses-request.js";
import { messageItem, ResponseEvents, replayResponseEvents } from "./responses-stream.js";
import { runError } from "./run-errors.js";
import { jitteredRetryMs, retryAfterHeaders } from "./run-queue.js";
import type { RunOutcome, SessionPlan } from "./runs.js";
import { ownedBy } from "./sessions.js";

type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

interface ResponseShape {
  id: string;
  createdAt: number;
  request: ResponsesRequest;
  model: string;
}

function responseObject(
  s: ResponseShape,
  status: ResponseStatus,
  output: unknown[],
  outcome?: RunOutcome,
  error?: ApiError,
): Record<string, unknown> {
  const u = outcome?.result.usage;
  return {
    id: s.id,
    object: "response",
    created_at: s.createdAt,
    status,
    model: s.model,
    output,
    error: error ? { code: error.code ?? "server_error", message: error.message } : null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: s.request.instructionsField,
    previous_response_id: s.request.previousResponseId ?? null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: s.request.params.temperature ?? null,
    top_p: s.request.params.topP ?? null,
    max_output_tokens: s.request.params.maxTokens ?? null,
    text: { format: formatJson(s.request) },
    tool_choice: "auto",
    tools: [],
    store: s.request.store,
    usage: u
      ? {
          input_tokens: u.inputTokens,
          input_tokens_details: { cached_tokens: u.cacheReadTokens },
          output_tokens: u.outputTokens,
          output_tokens_details: { reasoning_tokens: u.reasoningTokens },
          total_tokens: u.inputTokens + u.outputTokens,
        }
      : null,
  };
}

/** A request as it runs: its history joined to the stored conversation it continues, and where it is stored. */
interface Continued {
  request: ResponsesRequest;
  plan: SessionPlan;
}

const formatJson = (request: ResponsesRequest): Record<string, unknown> => {
  const f = request.params.responseFormat;
  if (!f) return { type: "text" };
  return f.type === "json_object" ? { type: "json_object" } : { ...f };
};

/**
 * The stored conversation `previous_response_id` continues, joined to this request's items, and
 * the session the run goes to (the previous response's own, when it is still that session's tip).
 */
function continueFrom(ctx: RouteContext, r: RouteRequest, request: ResponsesRequest): Continued {
  let earlier: readonly ChatMessage[] = [];
  let previous: { sessionId: string | null; conversationLength: number } | undefined;
  if (request.previousResponseId) {
    const stored = ownStoredResponse(ctx, r, request.previousResponseId);
    if (!stored)
      throw new ApiError(
        404,
        `No stored response with id ${JSON.stringify(request.previousResponseId)} (it was not stored, was deleted, or is older than the newest ${ctx.options.maxStoredResponses})`,
        "invalid_request_error",
        "previous_response_not_found",
        "previous_response_id",
      );
    // As the caller gave it while this process keeps it; else the stored, redacted copy.
    earlier = ctx.conversations.get(stored.id) ?? stored.conversation;
    previous = { sessionId: stored.sessionId, conversationLength: stored.conversation.length };
  }
  const history = [...earlier, ...request.history];
  checkToolResults(history, (i) =>
    i < earlier.length ? "previous_response_id" : request.historyPaths[i - earlier.length]!,
  );
  const plan = planResponsesContinuation(ctx, r.caller, previous, request.history);
  return { request: { ...request, history }, plan };
}

/** A stored response of the key the request came with; another key's is as good as absent. */
function ownStoredResponse(ctx: RouteContext, r: RouteRequest, id: string): StoredResponse | undefined {
  const stored = storeOf(ctx).get(id);
  if (!stored) return undefined;
  const session = stored.sessionId ? ctx.runtime.sessions?.getSession(stored.sessionId) : undefined;
  const owned = session ? ownedBy(session, r.keyName) : r.keyName === undefined;
  return owned ? stored : undefined;
}

function storeOf(ctx: RouteContext) {
  if (!ctx.responses)
    throw new ApiError(
      503,
      `Stored responses are unavailable: ${ctx.storeProblem ?? "state.db could not be opened"}`,
      "service_unavailable",
      "store_unavailable",
    );
  return ctx.responses;
}

/**
 * Stores the finished response (with `store: true`), and keeps its conversation as given for the
 * next request to continue. A response that cannot be stored is not sent as if it were: this
 * throws a 503 (`store_locked`, Retry-After) saying the answer was produced but not stored.
 */
async function save(
  ctx: RouteContext,
  r: RouteRequest,
  s: ResponseShape,
  outcome: RunOutcome,
  response: Record<string, unknown>,
  sessionId: string,
): Promise<void> {
  if (!s.request.store) return;
  try {
    await storeOf(ctx).save(
      {
        id: s.id,
        previousResponseId: s.request.previousResponseId ?? null,
        sessionId,
        model: s.model,
        conversation: outcome.conversation,
        response,
        createdAt: Date.now(),
      },
      ctx.options.maxStoredResponses,
    );
    ctx.conversations.set(s.id, outcome.conversation);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    ctx.log("warn", "api response not stored", { id: s.id, message: (err as Error).message });
    const retry =
      idempotencyKeyOf(r) !== undefined
        ? "retry with the same Idempotency-Key to receive it without running it again"
        : "send an Idempotency-Key to have a retry receive it instead of running the request again";
    throw new ApiError(
      503,
      `The answer was produced but could not be stored (${(err as Error).message}); ${retry}.`,
      "service_unavailable",
      "store_locked",
      null,
      retryAfterHeaders(jitteredRetryMs()),
    );
  }
}

export async function handleCreateResponse(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const parsed = parseResponsesRequest(r.body);
  // A response to be stored where nothing can be stored would be lost: refused before it runs.
  if (parsed.store) storeOf(ctx);
  await ctx.idempotency.run(
    r,
    async () => {
      const continued = continueFrom(ctx, r, parsed);
      try {
        return await answerResponse(ctx, r, continued);
      } finally {
        releasePlan(ctx, continued.plan);
      }
    },
    (answer) => {
      if (!parsed.stream || answer.status !== 200)
        return sendJson(r.res, answer.status, answer.body, answer.headers);
      startSse(r.res, answer.headers);
      replayResponseEvents(r.res, answer.body as Record<string, unknown>);
    },
  );
}

/** Runs the request and sends its response; returns what was answered (undefined: the client left). */
async function answerResponse(
  ctx: RouteContext,
  r: RouteRequest,
  { request, plan }: Continued,
): Promise<Answer | undefined> {
  const setup = await runSetup(ctx, r, request, plan, "text.format");
  const shape: ResponseShape = {
    id: newId("resp_"),
    createdAt: unixNow(),
    request,
    model: ctx.options.modelName,
  };
  const itemId = newId("msg_");
  const finished = (outcome: RunOutcome, text: string): Record<string, unknown> =>
    responseObject(
      shape,
      outcome.result.status === "budget_exhausted" || outcome.result.finishReason === "length"
        ? "incomplete"
        : "completed",
      [messageItem(itemId, text, "completed")],
      outcome,
    );
  /**
   * Stores the answered response and marks it its session's latest state; throws a 503 when it
   * could not be stored, after leaving the answer with the Idempotency-Key (if any) so a retry
   * stores and gets it without running the agent again.
   */
  const keep = async (outcome: RunOutcome, answer: Answer & { body: Record<string, unknown> }) => {
    const sessionId = answer.sessionId ?? null;
    const store = async (): Promise<void> => {
      await save(ctx, r, shape, outcome, answer.body, answer.sessionId!);
      if (request.store && sessionId)
        await recordResponseTip(ctx, r.caller, plan, sessionId, outcome.conversation.length);
    };
    try {
      await store();
    } catch (err) {
      if (err instanceof ApiError) {
        ctx.idempotency.park(r, { answer, store });
        // The session holds a turn whose response nobody can continue yet.
        await abandonContinuation(ctx, r.caller, plan);
      }
      throw err;
    }
  };

  if (!request.stream) {
    const done = await waitForAnswer(ctx, r, request, setup);
    if (!done || !answered(done.outcome)) {
      await abandonContinuation(ctx, r.caller, plan);
      if (done) throw runError(done.outcome, done.headers);
      return undefined;
    }
    const response = finished(done.outcome, done.outcome.result.finalText);
    const answer = { status: 200, headers: done.headers, body: response, sessionId: done.sessionId };
    await keep(done.outcome, answer);
    sendJson(r.res, 200, response, done.headers);
    return answer;
  }

  const events = new ResponseEvents(r.res, itemId);
  // A structured answer goes out whole once checked: streamed text could not be taken back.
  const live = !request.params.responseFormat;
  const text = new StreamedText();
  const onEvent = (e: AgentEvent): void => {
    const piece = live ? text.handle(e) : undefined;
    if (piece) events.delta(piece);
    const comment = progressComment(e);
    if (comment) writeSse(r.res, comment);
  };
  const run = await startStreamedRun(ctx, r, request, setup, onEvent);
  events.started(responseObject(shape, "in_progress", []));
  const outcome = await run.execute();
  const headers = { [SESSION_HEADER]: run.sessionId };
  if (!answered(outcome)) await abandonContinuation(ctx, r.caller, plan);
  if (!clientStillThere(outcome, r)) return undefined;
  let answer: Answer;
  if (answered(outcome)) {
    // The answer is what the client was sent; a provider that did not stream sends it whole now.
    if (!text.all.trim()) events.delta(outcome.result.finalText);
    const full = text.all.trim() ? text.all : outcome.result.finalText;
    const response = finished(outcome, full);
    const done = { status: 200, headers, body: response, sessionId: run.sessionId };
    try {
      await keep(outcome, done);
      events.finished(full, response);
      answer = done;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Not stored, so not completed: the stream ends as a failed response, and an error.
      events.failed(responseObject(shape, "failed", [], outcome, err));
      events.error(err);
      answer = { status: err.status, headers: err.headers, body: err.body(), sessionId: run.sessionId };
    }
  } else {
    const error = runError(outcome, headers);
    events.failed(responseObject(shape, "failed", [], outcome, error));
    answer = { status: error.status, headers: error.headers, body: error.body(), sessionId: run.sessionId };
  }
  r.res.end();
  return answer;
}

export async function handleGetResponse(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const stored = ownStoredResponse(ctx, r, r.params[0]!);
  if (!stored) throw notFound(r.params[0]!);
  sendJson(r.res, 200, stored.response, stored.sessionId ? { [SESSION_HEADER]: stored.sessionId } : {});
}

export async function handleDeleteResponse(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const id = r.params[0]!;
  if (!ownStoredResponse(ctx, r, id) || !(await storeOf(ctx).delete(id))) throw notFound(id);
  ctx.conversations.delete(id);
  sendJson(r.res, 200, { id, object: "response.deleted", deleted: true });
}

const notFound = (id: string): ApiError =>
  new ApiError(
    404,
    `No stored response with id ${JSON.stringify(id)}`,
    "not_found_error",
    "response_not_found",
  );
