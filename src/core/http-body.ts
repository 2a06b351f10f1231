/**
 * One reader for HTTP request bodies, used by every server Hermes runs (the API server, the
 * webhook platform, Telegram's webhook mode): a size limit (a declared length over it is refused
 * before a byte is read), a deadline for the whole body (a client that trickles bytes does not
 * hold a request open forever), an optional list of accepted content types, and JSON parsing that
 * yields to the event loop on large bodies. Every refusal is a `BodyError` carrying the HTTP
 * status to answer with; nothing else is thrown at a request.
 */
import type { IncomingMessage } from "node:http";
import { parseJsonYielding } from "./json-yielding.js";

/** Why a body was refused; `status` is the HTTP answer that fits. */
export type BodyProblem =
  | "too_large" // 413
  | "timeout" // 408
  | "content_type" // 415
  | "aborted" // the client went away (nobody to answer)
  | "empty" // 400
  | "invalid_json" // 400
  | "not_object"; // 400

const STATUS: Record<BodyProblem, number> = {
  too_large: 413,
  timeout: 408,
  content_type: 415,
  aborted: 400,
  empty: 400,
  invalid_json: 400,
  not_object: 400,
};

export class BodyError extends Error {
  readonly status: number;
  constructor(
    readonly problem: BodyProblem,
    message: string,
  ) {
    super(message);
    this.name = "BodyError";
    this.status = STATUS[problem];
  }

  /**
   * The connection should close after the answer: the rest of the body was not read (too large,
   * too slow), so the socket cannot carry another request.
   */
  get closesConnection(): boolean {
    return this.problem === "too_large" || this.problem === "timeout";
  }
}

export interface ReadBodyOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** The whole body must have arrived within this many ms of the call; default 60 s. */
  timeoutMs?: number;
  /**
   * Media types accepted (`application/json`; a `+json` suffix matches `application/json`).
   * Undefined accepts any; a request without a Content-Type is accepted unless `requireType`.
   */
  contentTypes?: readonly string[];
  requireType?: boolean;
}

export const DEFAULT_BODY_TIMEOUT_MS = 60_000;

const megabytes = (n: number): string =>
  n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB` : `${Math.ceil(n / 1024)} KB`;

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(header: string | undefined): string | undefined {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  return type || undefined;
}

function checkContentType(req: IncomingMessage, o: ReadBodyOptions): void {
  if (!o.contentTypes) return;
  const type = mediaType(req.headers["content-type"]);
  if (type === undefined && !o.requireType) return;
  const accepted = o.contentTypes.map((t) => t.toLowerCase());
  const ok =
    type !== undefined &&
    (accepted.includes(type) || (type.endsWith("+json") && accepted.includes("application/json")));
  if (!ok)
    throw new BodyError(
      "content_type",
      `The request body must be ${accepted.join(" or ")}${type ? `, not ${type}` : " (no Content-Type was sent)"}`,
    );
}

/**
 * Reads the whole body (bytes as sent). Rejects with BodyError: too large, too slow, a content type
 * not accepted, or the client gone before the end. On a refusal the rest of the upload is drained
 * and dropped, so the answer can still be written.
 */
export function readBody(req: IncomingMessage, o: ReadBodyOptions): Promise<Buffer> {
  checkContentType(req, o);
  const tooLarge = (): BodyError =>
    new BodyError("too_large", `The request body is larger than ${megabytes(o.maxBytes)}`);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > o.maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  const timeoutMs = o.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: BodyError | undefined): void => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
      if (!error) {
        resolve(Buffer.concat(chunks, size));
        return;
      }
      // Drop what is still coming so the answer can be written on this socket.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > o.maxBytes) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onGone = (): void =>
      finish(new BodyError("aborted", "The client closed the connection before sending the whole body"));
    const timer = setTimeout(
      () =>
        finish(
          new BodyError(
            "timeout",
            `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s`,
          ),
        ),
      timeoutMs,
    );
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

/** Parses a JSON body (yielding to the event loop on large ones); BodyError when it is not JSON. */
export async function parseJsonBody(raw: Buffer | string): Promise<unknown> {
  const text = typeof raw === "string" ? raw : raw.toString("utf8");
  if (!text.trim()) throw new BodyError("empty", "The request body is empty; send a JSON object");
  try {
    return await parseJsonYielding(text);
  } catch (err) {
    throw new BodyError("invalid_json", `The request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** Reads and parses a body that must be one JSON object. */
export async function readJsonObject(
  req: IncomingMessage,
  o: ReadBodyOptions,
): Promise<{ value: Record<string, unknown>; raw: Buffer }> {
  const raw = await readBody(req, o);
  const value = await parseJsonBody(raw);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new BodyError("not_object", "The request body must be a JSON object");
  return { value: value as Record<string, unknown>, raw };
}
