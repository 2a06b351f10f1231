/**
 * Plain node:http plumbing of the API server: OpenAI-shaped errors, JSON replies and bounded body
 * reading. Every failure a client can cause becomes an `ApiError` with its status; nothing here
 * throws anything else at a request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyError, type BodyProblem, readJsonObject } from "../core/http-body.js";

/** OpenAI's error `type`s, as clients switch on them. */
export type ApiErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "not_found_error"
  | "rate_limit_error"
  | "server_error"
  | "service_unavailable";

/** A request that ends in an error answer: status, OpenAI-shaped body and extra headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: ApiErrorType,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The `{error: {...}}` body OpenAI's clients parse. */
  body(): { error: { message: string; type: string; code: string | null; param: string | null } } {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

/** A 400 about one field of the body: the message names it (`messages[2].role must be ...`). */
export const invalidField = (param: string, message: string): ApiError =>
  new ApiError(400, `${param} ${message}`, "invalid_request_error", "invalid_value", param);

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, err.body(), err.headers);
}

/** Media types a request body may be sent as (a missing Content-Type is read as JSON too). */
const JSON_TYPES = ["application/json", "text/json"] as const;

/**
 * Reads and parses a JSON object body of at most `limit` bytes through the shared body reader:
 * 413 past the limit (stopping the upload early), 408 when it trickles in too slowly, 415 for a
 * body that is declared as something else than JSON, 400 for anything but a JSON object.
 */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ value: Record<string, unknown>; raw: Buffer }> {
  try {
    return await readJsonObject(req, { maxBytes: limit, contentTypes: JSON_TYPES });
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    const code: Partial<Record<BodyProblem, string>> = {
      too_large: "request_too_large",
      timeout: "request_timeout",
      content_type: "unsupported_media_type",
      invalid_json: "invalid_json",
    };
    const error = new ApiError(err.status, err.message, "invalid_request_error", code[err.problem] ?? null);
    if (err.closesConnection) error.headers.connection = "close";
    throw error;
  }
}

/** Starts a server-sent-events answer (headers go out at once, so the client sees the run start). */
export function startSse(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
}

/** Writes to a stream the client may have left; false once it is gone. */
export function writeSse(res: ServerResponse, frame: string): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(frame);
  return true;
}
