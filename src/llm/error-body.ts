/**
 * The OpenAI SDK's errors keep an error response's body only when it is shaped `{"error": {...}}`.
 * Google's OpenAI-compatible endpoint answers `[{"error": {...}}]` and older vLLM servers put the
 * fields at the top level; read as they are, the error says "400 status code (no body)" and the
 * classifier cannot tell a token-limit error from a bad request. Such bodies are reshaped first.
 */
import { isRecord } from "../core/is-record.js";

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
