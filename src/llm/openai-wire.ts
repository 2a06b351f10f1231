/**
 * The part of the OpenAI REST API the chat-completions and Responses protocols use: one streaming
 * POST and its server-sent events as JSON, over this package's HTTP client. Requests carry what the
 * `openai` SDK's client sent (URL joining, headers and their precedence, JSON body) and failures
 * are the SDK's own error classes, built as its client builds them; the client itself (700 KB of
 * code for a hundred endpoints, ~25 MB once loaded) and Node's fetch stay out of the process.
 */
import type { APIError } from "openai/core/error";
import { markOnce } from "../core/timing.js";
import { normalizeErrorBody } from "./error-body.js";
import { type HttpResponse, send } from "./http.js";
import { sseEvents } from "./sse.js";
import type { ModelTarget } from "./types.js";

export type EnvLike = Readonly<Record<string, string | undefined>>;

/**
 * The SDK's error classes and version: a few kilobytes, loaded as this module is (not awaited: the
 * first request finds them ready).
 */
const sdkParts = async () => {
  const [errors, { VERSION }] = await Promise.all([import("openai/core/error"), import("openai/version")]);
  return { ...errors, VERSION };
};
type SdkParts = Awaited<ReturnType<typeof sdkParts>>;
const parts: Promise<SdkParts> = sdkParts();
// A failed load surfaces on the request that awaits it, not as an unhandled rejection.
parts.catch(() => undefined);

/** `baseUrl` + `path` as the SDK joins them: one slash between, a query on the base URL kept. */
export function openAIUrl(baseUrl: string, path: string): string {
  const join = (base: string) => base + (base.endsWith("/") && path.startsWith("/") ? path.slice(1) : path);
  if (!baseUrl.includes("?")) return new URL(join(baseUrl)).href;
  const base = new URL(baseUrl);
  const query = [...base.searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
  base.search = "";
  base.hash = "";
  const url = new URL(join(base.toString()));
  url.search = query;
  return url.href;
}

/**
 * Request headers, later sources winning by case-insensitive name (the SDK's order): defaults,
 * the bearer key, OPENAI_ORG_ID / OPENAI_PROJECT_ID / OPENAI_CUSTOM_HEADERS from the environment,
 * the target's own headers, and the JSON content type last.
 */
export function openAIHeaders(
  target: Pick<ModelTarget, "apiKey" | "headers">,
  sdkVersion: string,
  env: EnvLike = process.env,
): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  const put = (headers: Readonly<Record<string, string | undefined>>) => {
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) merged.set(name.toLowerCase(), [name, value]);
  };
  const read = (name: string) => env[name]?.trim() || undefined;
  put({
    Accept: "application/json",
    "User-Agent": `OpenAI/JS ${sdkVersion}`,
    "OpenAI-Organization": read("OPENAI_ORG_ID"),
    "OpenAI-Project": read("OPENAI_PROJECT_ID"),
  });
  put({ Authorization: `Bearer ${target.apiKey || "not-needed"}` });
  for (const line of read("OPENAI_CUSTOM_HEADERS")?.split("\n") ?? []) {
    const colon = line.indexOf(":");
    if (colon >= 0) put({ [line.slice(0, colon).trim()]: line.slice(colon + 1).trim() });
  }
  put(target.headers ?? {});
  put({ "Content-Type": "application/json" });
  return Object.fromEntries(merged.values());
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isAbort = (err: unknown): boolean => (err as { name?: unknown } | null)?.name === "AbortError";

/** A transport failure as the SDK reports it: user abort, timeout, or a connection error with its cause. */
function connectionError(sdk: SdkParts, err: unknown, signal: AbortSignal): APIError {
  if (signal.aborted) return new sdk.APIUserAbortError();
  const cause = (err as { cause?: unknown } | null)?.cause;
  const words = `${String(err)}${cause === undefined ? "" : String(cause)}`;
  if (isAbort(err) || /timed? ?out/i.test(words)) return new sdk.APIConnectionTimeoutError();
  return new sdk.APIConnectionError({ cause: err instanceof Error ? err : new Error(String(err)) });
}

/** A non-2xx answer → the SDK's error for its status, with the body the SDK would have read. */
async function statusError(sdk: SdkParts, res: HttpResponse): Promise<APIError> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    text = err instanceof Error ? err.message : String(err);
  }
  // Bodies the SDK would drop (Google's list, bare vLLM fields) are reshaped so they classify.
  const body = normalizeErrorBody(text) ?? text;
  const json = safeJson(body);
  return sdk.APIError.generate(
    res.status,
    json as object | undefined,
    json === undefined ? body : undefined,
    res.headers as unknown as Headers,
  );
}

/**
 * POSTs `body` to `path` and resolves, once the response headers are in, to its events' JSON data
 * in order (ending at `[DONE]`). Rejects with the SDK's errors; the events can throw an APIError
 * for an in-stream error. An abort ends the events quietly (the caller reads its signal).
 */
export async function streamOpenAIEvents<T>(
  target: Pick<ModelTarget, "baseUrl" | "apiKey" | "headers">,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<AsyncIterable<T>> {
  const sdk = await parts;
  let res: HttpResponse;
  markOnce("first model request sent");
  try {
    res = await send(openAIUrl(target.baseUrl, path), {
      method: "POST",
      headers: openAIHeaders(target, sdk.VERSION),
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    throw connectionError(sdk, err, signal);
  }
  markOnce("first model response");
  if (!res.ok) throw await statusError(sdk, res);
  return { [Symbol.asyncIterator]: () => events<T>(sdk, res, signal) };
}

async function* events<T>(sdk: SdkParts, res: HttpResponse, signal: AbortSignal): AsyncGenerator<T> {
  try {
    for await (const sse of sseEvents(res.body)) {
      if (sse.data === "[DONE]") return;
      let data: { error?: unknown } | null;
      try {
        data = JSON.parse(sse.data);
      } catch {
        throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
      }
      const headers = res.headers as unknown as Headers;
      if (sse.event === "error")
        throw new sdk.APIError(undefined, (data?.error ?? data) as object | undefined, undefined, headers);
      if (data?.error) throw new sdk.APIError(undefined, data.error as object, undefined, headers);
      yield data as T;
    }
  } catch (err) {
    if (signal.aborted && (isAbort(err) || err === signal.reason)) return;
    throw err;
  } finally {
    res.discard();
  }
}
