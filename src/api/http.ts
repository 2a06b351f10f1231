/**
 * Plain node:http plumbing of the API server: OpenAI-shaped errors, JSON replies and bounded body
 * reading. Every failure a client can cause becomes an `ApiError` with its status; nothing here
 * throws anything else at a request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

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

/**
 * Reads and parses a JSON body of at most `limit` bytes: 413 past it (stopping the upload early),
 * 400 for anything but a JSON object.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const declared = Number(req.headers["content-length"]);
  const tooLarge = (): ApiError =>
    new ApiError(
      413,
      `The request body is larger than ${Math.round(limit / 1024 / 1024)} MB`,
      "invalid_request_error",
      "request_too_large",
    );
  if (Number.isFinite(declared) && declared > limit) {
    // Not read: the connection goes once the answer is sent.
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks).toString("utf8");
  if (!raw.trim())
    throw new ApiError(400, "The request body is empty; send a JSON object", "invalid_request_error");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new ApiError(
      400,
      `The request body is not valid JSON: ${(err as Error).message}`,
      "invalid_request_error",
      "invalid_json",
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new ApiError(400, "The request body must be a JSON object", "invalid_request_error");
  return parsed as Record<string, unknown>;
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
