/**
 * The OpenAI SDK keeps an error response's body only when it is shaped `{"error": {...}}`. Google's
 * OpenAI-compatible endpoint answers `[{"error": {...}}]` and older vLLM servers put the fields at
 * the top level; the SDK then reports "400 status code (no body)" and the classifier cannot tell a
 * token-limit error from a bad request. This fetch wrapper rewrites such bodies into the shape the
 * SDK reads. Successful responses (and streams) pass through untouched.
 */

type Fetch = typeof globalThis.fetch;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `{error: {...}}` for the bodies the SDK would drop; undefined when the body is fine or not JSON. */
export function normalizeErrorBody(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(parsed) && isRecord(parsed[0]) && parsed[0].error !== undefined) {
    return JSON.stringify(parsed[0]);
  }
  if (isRecord(parsed) && parsed.error === undefined && typeof parsed.message === "string") {
    return JSON.stringify({ error: parsed });
  }
  return undefined;
}

/** Wraps `inner` so non-2xx JSON bodies reach the SDK in the `{error: {...}}` shape. */
export function withNormalizedErrors(inner: Fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const fixed = normalizeErrorBody(text);
    // The body is already decoded and may change length: its old framing headers no longer apply.
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    headers.delete("content-encoding");
    return new Response(fixed ?? text, { status: response.status, statusText: response.statusText, headers });
  };
}
