/**
 * POST /v1/chat/completions: one agent run per request, continuing the stored session the
 * request's history came from (continuation.ts). Not streamed, the answer is one chat.completion
 * with the run's usage; streamed, real chat.completion.chunk objects carry the text as it comes,
 * SSE comment lines the tool progress, and `data: [DONE]` ends it. With an Idempotency-Key a
 * retry gets the first attempt's answer (idempotency.ts), streamed again when it asks for a stream.
 */
import type { AgentEvent } from "../agent/events.js";
import { type ChatRequest, parseChatRequest } from "./chat-request.js";
import {
  answered,
  chatUsage,
  clientStillThere,
  finishReason,
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
  type ContinuationPlan,
  keepLiveConversation,
  planContinuation,
  recordAnswer,
  releasePlan,
} from "./continuation.js";
import { sendJson, startSse, writeSse } from "./http.js";
import type { Answer } from "./idempotency.js";
import { runError } from "./run-errors.js";
import type { RunOutcome } from "./runs.js";

interface Completion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  system_fingerprint: null;
  choices: Array<{
    index: 0;
    message: { role: "assistant"; content: string; refusal: null };
    logprobs: null;
    finish_reason: "stop" | "length";
  }>;
  usage: ReturnType<typeof chatUsage>;
}

function completionOf(
  id: string,
  created: number,
  model: string,
  outcome: RunOutcome,
  text: string,
): Completion {
  return {
    id,
    object: "chat.completion",
    created,
    model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text, refusal: null },
        logprobs: null,
        finish_reason: finishReason(outcome),
      },
    ],
    usage: chatUsage(outcome.result.usage),
  };
}

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;

/** The chunk shape of a completion's id, time and model. */
const chunkOf =
  (c: Pick<Completion, "id" | "created" | "model">) =>
  (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: c.id,
    object: "chat.completion.chunk",
    created: c.created,
    model: c.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

export async function handleChatCompletions(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const request = parseChatRequest(r.body);
  await ctx.idempotency.run(
    r,
    () => answerChat(ctx, r, request),
    (answer) => replayChat(r, request, answer),
  );
}

/** Runs the request and sends its answer; returns what was answered (undefined: the client left). */
async function answerChat(
  ctx: RouteContext,
  r: RouteRequest,
  request: ChatRequest,
): Promise<Answer | undefined> {
  const continued = await planContinuation(ctx, r.caller, request);
  try {
    return await runChat(ctx, r, request, continued);
  } finally {
    releasePlan(ctx, continued.plan);
  }
}

async function runChat(
  ctx: RouteContext,
  r: RouteRequest,
  request: ChatRequest,
  continued: ContinuationPlan,
): Promise<Answer | undefined> {
  const setup = await runSetup(ctx, r, request, continued.plan, "response_format.json_schema");
  const id = newId("chatcmpl-");
  const created = unixNow();
  const model = ctx.options.modelName;
  if (!request.stream) {
    const done = await waitForAnswer(ctx, r, request, setup);
    if (done && !answered(done.outcome)) {
      await abandonContinuation(ctx, r.caller, continued.plan);
      throw runError(done.outcome, done.headers);
    }
    if (!done) {
      await abandonContinuation(ctx, r.caller, continued.plan);
      return undefined;
    }
    const { outcome, sessionId, headers } = done;
    const completion = completionOf(id, created, model, outcome, outcome.result.finalText);
    // Recorded before the answer goes out: the client's next turn may follow at once.
    await recordAnswer(ctx, r.caller, continued, request.turn, outcome.result.finalText, sessionId);
    keepLiveConversation(ctx, sessionId, outcome.live);
    sendJson(r.res, 200, completion, headers);
    return { status: 200, headers, body: completion, sessionId };
  }
  return streamChat(ctx, r, request, continued, setup, { id, created, model });
}

async function streamChat(
  ctx: RouteContext,
  r: RouteRequest,
  request: ChatRequest,
  continued: ContinuationPlan,
  setup: Awaited<ReturnType<typeof runSetup>>,
  meta: Pick<Completion, "id" | "created" | "model">,
): Promise<Answer | undefined> {
  const chunk = chunkOf(meta);
  // A structured answer goes out whole once checked: streamed text could not be taken back.
  const live = !request.params.responseFormat;
  const text = new StreamedText();
  const onEvent = (e: AgentEvent): void => {
    const piece = live ? text.handle(e) : undefined;
    if (piece) writeSse(r.res, data(chunk({ content: piece })));
    const comment = progressComment(e);
    if (comment) writeSse(r.res, comment);
  };
  const run = await startStreamedRun(ctx, r, request, setup, onEvent);
  writeSse(r.res, data(chunk({ role: "assistant", content: "" })));
  const outcome = await run.execute();
  const headers = { [SESSION_HEADER]: run.sessionId };
  if (!answered(outcome)) await abandonContinuation(ctx, r.caller, continued.plan);
  if (!clientStillThere(outcome, r)) return undefined;
  let answer: Answer;
  if (answered(outcome)) {
    // A provider that did not stream (or a hook that rewrote the answer): the text goes out whole.
    const sent = text.all.trim() ? text.all : outcome.result.finalText;
    if (!text.all.trim()) writeSse(r.res, data(chunk({ content: sent })));
    writeSse(r.res, data(chunk({}, finishReason(outcome))));
    if (request.includeUsage)
      writeSse(r.res, data({ ...chunk({}), choices: [], usage: chatUsage(outcome.result.usage) }));
    await recordAnswer(ctx, r.caller, continued, request.turn, sent, run.sessionId);
    keepLiveConversation(ctx, run.sessionId, outcome.live);
    const completion = completionOf(meta.id, meta.created, meta.model, outcome, sent);
    answer = { status: 200, headers, body: completion, sessionId: run.sessionId };
  } else {
    // The chat stream's own error form: OpenAI's clients raise it as an APIError.
    const error = runError(outcome, headers);
    writeSse(r.res, data(error.body()));
    answer = { status: error.status, headers: error.headers, body: error.body(), sessionId: run.sessionId };
  }
  writeSse(r.res, "data: [DONE]\n\n");
  r.res.end();
  return answer;
}

/** The first attempt's answer again: JSON, or (a success asked as a stream) the same text as chunks. */
function replayChat(r: RouteRequest, request: ChatRequest, answer: Answer): void {
  if (!request.stream || answer.status !== 200) {
    sendJson(r.res, answer.status, answer.body, answer.headers);
    return;
  }
  const completion = answer.body as Completion;
  const chunk = chunkOf(completion);
  const choice = completion.choices[0];
  startSse(r.res, answer.headers);
  writeSse(r.res, data(chunk({ role: "assistant", content: "" })));
  writeSse(r.res, data(chunk({ content: choice?.message.content ?? "" })));
  writeSse(r.res, data(chunk({}, choice?.finish_reason ?? "stop")));
  if (request.includeUsage) writeSse(r.res, data({ ...chunk({}), choices: [], usage: completion.usage }));
  writeSse(r.res, "data: [DONE]\n\n");
  r.res.end();
}
