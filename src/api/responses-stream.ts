/**
 * The Responses API's streamed events for one response: `response.created`, `response.in_progress`,
 * the output item and its text part opened on the first text, text deltas, and the closing events
 * (`response.completed`, `response.incomplete`, or `response.failed`). Also replays a finished
 * response as the same events (an Idempotency-Key retry that asks for a stream).
 */
import type { ServerResponse } from "node:http";
import { writeSse } from "./http.js";

export const messageItem = (id: string, text: string, status: "in_progress" | "completed") => ({
  id,
  type: "message",
  role: "assistant",
  status,
  content: status === "completed" ? [{ type: "output_text", text, annotations: [], logprobs: [] }] : [],
});

export class ResponseEvents {
  private seq = 0;
  private opened = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly itemId: string,
  ) {}

  private get at() {
    return { item_id: this.itemId, output_index: 0, content_index: 0 };
  }

  emit(type: string, data: Record<string, unknown>): void {
    const event = { type, sequence_number: this.seq++, ...data };
    writeSse(this.res, `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  /** `response.created` and `response.in_progress` with the response as it starts. */
  started(pending: Record<string, unknown>): void {
    this.emit("response.created", { response: pending });
    this.emit("response.in_progress", { response: pending });
  }

  delta(text: string): void {
    this.open();
    this.emit("response.output_text.delta", { ...this.at, delta: text, logprobs: [] });
  }

  /** The closing events of an answered response, whose text is `full`. */
  finished(full: string, response: Record<string, unknown>): void {
    this.open();
    this.emit("response.output_text.done", { ...this.at, text: full, logprobs: [] });
    this.emit("response.content_part.done", {
      ...this.at,
      part: { type: "output_text", text: full, annotations: [] },
    });
    this.emit("response.output_item.done", {
      output_index: 0,
      item: messageItem(this.itemId, full, "completed"),
    });
    this.emit(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
  }

  failed(response: Record<string, unknown>): void {
    this.emit("response.failed", { response });
  }

  /** An `error` event (OpenAI's clients raise it as an APIError): after `failed`, for a failure the client must notice. */
  error(err: { code: string | null; message: string }): void {
    this.emit("error", { code: err.code, message: err.message, param: null });
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.emit("response.output_item.added", {
      output_index: 0,
      item: messageItem(this.itemId, "", "in_progress"),
    });
    this.emit("response.content_part.added", {
      ...this.at,
      part: { type: "output_text", text: "", annotations: [] },
    });
  }
}

/** The text and item id of a finished response object (one message item). */
function answerOf(response: Record<string, unknown>): { itemId: string; text: string } {
  const item = (
    response.output as Array<{ id?: string; content?: Array<{ text?: string }> }> | undefined
  )?.[0];
  return { itemId: item?.id ?? "msg_replayed", text: item?.content?.[0]?.text ?? "" };
}

/** Sends a finished response again as the events a stream of it would have carried (SSE headers already sent). */
export function replayResponseEvents(res: ServerResponse, response: Record<string, unknown>): void {
  const { itemId, text } = answerOf(response);
  const events = new ResponseEvents(res, itemId);
  events.started({ ...response, status: "in_progress", output: [], usage: null });
  events.delta(text);
  events.finished(text, response);
  res.end();
}
