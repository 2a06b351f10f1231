/**
 * The Responses API: POST /v1/responses runs one turn (continuing the stored conversation of
 * `previous_response_id`), GET and DELETE /v1/responses/{id} read and remove stored ones. The output
 * is one assistant message: tools run on the server, and their progress shows as SSE comments.
 */
import type { AgentEvent } from "../agent/events.js";
import type { ChatMessage } from "../llm/types.js";
import { checkToolResults } from "./checks.js";
import {
  answered,
  clientStillThere,
  newId,
  progressComment,
  type RouteContext,
  type RouteRequest,
  runError,
  runForAnswer,
  SESSION_HEADER,
  StreamedText,
  startStreamedRun,
  unixNow,
} from "./context.js";
import { ApiError, sendJson, writeSse } from "./http.js";
import { parseResponsesRequest, type ResponsesRequest } from "./responses-request.js";
import type { RunOutcome } from "./runs.js";

type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

interface ResponseShape {
  id: string;
  createdAt: number;
  request: ResponsesRequest;
  model: string;
}

const messageItem = (id: string, text: string, status: "in_progress" | "completed") => ({
  id,
  type: "message",
  role: "assistant",
  status,
  content: status === "completed" ? [{ type: "output_text", text, annotations: [], logprobs: [] }] : [],
});

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
    temperature: null,
    top_p: null,
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

/** The stored conversation `previous_response_id` continues, joined to this request's items. */
function historyOf(ctx: RouteContext, request: ResponsesRequest): ChatMessage[] {
  let earlier: ChatMessage[] = [];
  if (request.previousResponseId) {
    const store = storeOf(ctx);
    const stored = store.get(request.previousResponseId);
    if (!stored)
      throw new ApiError(
        404,
        `No stored response with id ${JSON.stringify(request.previousResponseId)} (it was not stored, was deleted, or is older than the newest ${ctx.options.maxStoredResponses})`,
        "invalid_request_error",
        "previous_response_not_found",
        "previous_response_id",
      );
    earlier = stored.conversation;
  }
  const history = [...earlier, ...request.history];
  checkToolResults(history, (i) =>
    i < earlier.length ? "previous_response_id" : request.historyPaths[i - earlier.length]!,
  );
  return history;
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
 * Stores the finished response. A storage failure is logged and the answer still goes out, saying
 * `store: false` so the client knows it cannot be retrieved or continued.
 */
async function save(
  ctx: RouteContext,
  s: ResponseShape,
  outcome: RunOutcome,
  response: Record<string, unknown>,
  sessionId: string,
): Promise<void> {
  if (!s.request.store || !ctx.responses) return;
  try {
    await ctx.responses.save(
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
  } catch (err) {
    response.store = false;
    ctx.log("warn", "api response not stored", { id: s.id, message: (err as Error).message });
  }
}

export async function handleCreateResponse(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const parsed = parseResponsesRequest(r.body);
  const request = { ...parsed, history: historyOf(ctx, parsed) };
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
      outcome.result.status === "budget_exhausted" ? "incomplete" : "completed",
      [messageItem(itemId, text, "completed")],
      outcome,
    );

  if (!request.stream) {
    const done = await runForAnswer(ctx, r, request);
    if (!done) return;
    const response = finished(done.outcome, done.outcome.result.finalText);
    await save(ctx, shape, done.outcome, response, done.sessionId);
    sendJson(r.res, 200, response, done.headers);
    return;
  }

  let seq = 0;
  const emit = (type: string, data: Record<string, unknown>): void => {
    writeSse(r.res, `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  };
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  let opened = false;
  const open = (): void => {
    if (opened) return;
    opened = true;
    emit("response.output_item.added", { output_index: 0, item: messageItem(itemId, "", "in_progress") });
    emit("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } });
  };
  const text = new StreamedText();
  const onEvent = (e: AgentEvent): void => {
    const piece = text.handle(e);
    if (piece) {
      open();
      emit("response.output_text.delta", { ...at, delta: piece, logprobs: [] });
    }
    const comment = progressComment(e);
    if (comment) writeSse(r.res, comment);
  };
  const run = startStreamedRun(ctx, r, request, onEvent);
  const pending = responseObject(shape, "in_progress", []);
  emit("response.created", { response: pending });
  emit("response.in_progress", { response: pending });
  const outcome = await run.execute();
  if (!clientStillThere(outcome, r)) return;
  if (answered(outcome)) {
    // The answer is what the client was sent; a provider that did not stream sends it whole now.
    if (!text.all.trim()) {
      open();
      emit("response.output_text.delta", { ...at, delta: outcome.result.finalText, logprobs: [] });
    }
    const full = text.all.trim() ? text.all : outcome.result.finalText;
    emit("response.output_text.done", { ...at, text: full, logprobs: [] });
    emit("response.content_part.done", { ...at, part: { type: "output_text", text: full, annotations: [] } });
    emit("response.output_item.done", { output_index: 0, item: messageItem(itemId, full, "completed") });
    const response = finished(outcome, full);
    await save(ctx, shape, outcome, response, run.sessionId);
    emit(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
  } else {
    emit("response.failed", { response: responseObject(shape, "failed", [], outcome, runError(outcome)) });
  }
  r.res.end();
}

export async function handleGetResponse(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const stored = storeOf(ctx).get(r.params[0]!);
  if (!stored) throw notFound(r.params[0]!);
  sendJson(r.res, 200, stored.response, stored.sessionId ? { [SESSION_HEADER]: stored.sessionId } : {});
}

export async function handleDeleteResponse(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const id = r.params[0]!;
  if (!(await storeOf(ctx).delete(id))) throw notFound(id);
  sendJson(r.res, 200, { id, object: "response.deleted", deleted: true });
}

const notFound = (id: string): ApiError =>
  new ApiError(
    404,
    `No stored response with id ${JSON.stringify(id)}`,
    "not_found_error",
    "response_not_found",
  );
