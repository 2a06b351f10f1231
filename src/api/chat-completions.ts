/**
 * POST /v1/chat/completions: one agent run per request. Not streamed, the answer is one
 * chat.completion with the run's usage; streamed, real chat.completion.chunk objects carry the text
 * as it comes, SSE comment lines the tool progress, and `data: [DONE]` ends it.
 */
import type { AgentEvent } from "../agent/events.js";
import { parseChatRequest } from "./chat-request.js";
import {
  answered,
  chatUsage,
  clientStillThere,
  newId,
  progressComment,
  type RouteContext,
  type RouteRequest,
  runError,
  runForAnswer,
  StreamedText,
  startStreamedRun,
  unixNow,
} from "./context.js";
import { sendJson, writeSse } from "./http.js";
import type { RunOutcome } from "./runs.js";

const finishReason = (o: RunOutcome): "stop" | "length" =>
  o.result.status === "budget_exhausted" ? "length" : "stop";

export async function handleChatCompletions(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const request = parseChatRequest(r.body);
  const id = newId("chatcmpl-");
  const created = unixNow();
  const model = ctx.options.modelName;
  if (!request.stream) {
    const done = await runForAnswer(ctx, r, request);
    if (!done) return;
    const { outcome, headers } = done;
    sendJson(
      r.res,
      200,
      {
        id,
        object: "chat.completion",
        created,
        model,
        system_fingerprint: null,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: outcome.result.finalText, refusal: null },
            logprobs: null,
            finish_reason: finishReason(outcome),
          },
        ],
        usage: chatUsage(outcome.result.usage),
      },
      headers,
    );
    return;
  }

  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
  const text = new StreamedText();
  const onEvent = (e: AgentEvent): void => {
    const piece = text.handle(e);
    if (piece) writeSse(r.res, data(chunk({ content: piece })));
    const comment = progressComment(e);
    if (comment) writeSse(r.res, comment);
  };
  const run = startStreamedRun(ctx, r, request, onEvent);
  writeSse(r.res, data(chunk({ role: "assistant", content: "" })));
  const outcome = await run.execute();
  if (!clientStillThere(outcome, r)) return;
  if (answered(outcome)) {
    // A provider that did not stream (or a hook that rewrote the answer): the text goes out whole.
    if (!text.all.trim()) writeSse(r.res, data(chunk({ content: outcome.result.finalText })));
    writeSse(r.res, data(chunk({}, finishReason(outcome))));
    if (request.includeUsage)
      writeSse(r.res, data({ ...chunk({}), choices: [], usage: chatUsage(outcome.result.usage) }));
  } else {
    // The chat stream's own error form: OpenAI's clients raise it as an APIError.
    writeSse(r.res, data(runError(outcome).body()));
  }
  writeSse(r.res, "data: [DONE]\n\n");
  r.res.end();
}
