/**
 * When a provider says a limit resets: `retry-after` style headers, reset fields in error bodies
 * and "try again in 5 minutes" phrases, all turned into epoch milliseconds. Shared by the error
 * classifier (ClassifiedError.resetAt) and the credential pool (exhaustion end times).
 */

/**
 * An absolute time as providers and auth.json write it: epoch seconds, epoch milliseconds or an
 * ISO-8601 string. Returns epoch ms, or undefined when the value is none of these.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) return undefined;
    // 1e12 ms is September 2001; as seconds it is 33,000 years away, so the split is unambiguous.
    return value > 1e12 ? Math.round(value) : Math.round(value * 1000);
  }
  if (typeof value !== "string") return undefined;
  const raw = value.trim();
  if (raw === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return parseTimestamp(Number(raw));
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : ms;
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
};

/** "1.5s", "6m0s", "250ms", "4hr 5min", "37 seconds" → ms; undefined when nothing parses. */
export function parseDuration(text: string): number | undefined {
  const parts = [...text.toLowerCase().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)];
  if (parts.length === 0) return undefined;
  let total = 0;
  for (const [, amount, unit] of parts) {
    const scale = UNIT_MS[unit ?? ""];
    if (scale === undefined) return undefined;
    total += Number(amount) * scale;
  }
  return Math.round(total);
}

const RESET_HEADERS = [
  "retry-after-ms",
  "retry-after",
  "x-ratelimit-reset",
  "x-ratelimit-reset-tokens",
  "x-ratelimit-reset-requests",
  "anthropic-ratelimit-tokens-reset",
  "anthropic-ratelimit-requests-reset",
];

/** Epoch ms from the first rate-limit reset header present; undefined when none parses. */
export function resetFromHeaders(headers: unknown, now: number): number | undefined {
  for (const name of RESET_HEADERS) {
    const value = readHeader(headers, name)?.trim();
    if (!value) continue;
    const at = parseHeaderValue(name, value, now);
    if (at !== undefined) return at;
  }
  return undefined;
}

function parseHeaderValue(name: string, value: string, now: number): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    if (name === "retry-after-ms") return now + n;
    // Large numbers are absolute (OpenRouter's x-ratelimit-reset is epoch ms), small ones deltas.
    if (n > 1e9) return parseTimestamp(n);
    return now + n * 1000;
  }
  const delta = parseDuration(value);
  if (delta !== undefined) return now + delta;
  return parseTimestamp(value);
}

/** Body fields vendors use for a reset time (Codex, OpenRouter metadata headers, proxies). */
const ABSOLUTE_FIELDS = new Set(["resets_at", "reset_at", "resetat", "reset_time", "x-ratelimit-reset"]);
const DELTA_SECONDS_FIELDS = new Set(["resets_in_seconds", "retry_after", "retry_after_seconds"]);

/** Epoch ms from reset fields anywhere in an error body (searched a few levels deep). */
export function resetFromBody(body: unknown, now: number): number | undefined {
  const queue: Array<{ value: unknown; depth: number }> = [{ value: body, depth: 0 }];
  while (queue.length > 0) {
    const { value, depth } = queue.shift()!;
    if (typeof value !== "object" || value === null || depth > 4) continue;
    for (const [key, field] of Object.entries(value)) {
      const k = key.toLowerCase();
      if (ABSOLUTE_FIELDS.has(k)) {
        const at = parseTimestamp(field);
        if (at !== undefined) return at;
      } else if (DELTA_SECONDS_FIELDS.has(k) && field !== "" && field !== null) {
        const n = Number(field);
        if (Number.isFinite(n) && n >= 0) return now + n * 1000;
      } else if (k === "retrydelay" && typeof field === "string") {
        // Google RPC: details: [{"@type": "...RetryInfo", "retryDelay": "37s"}]
        const delta = parseDuration(field);
        if (delta !== undefined) return now + delta;
      } else queue.push({ value: field, depth: depth + 1 });
    }
  }
  return undefined;
}

/** "try again in 5 minutes", "Please retry in 37.6s", "resets in 4hr 5min", "try again at <ISO>". */
export function resetFromText(text: string, now: number): number | undefined {
  const inMatch = /(?:try again|retry|resets?)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*[a-z]+\s*)+)/i.exec(text);
  if (inMatch?.[1]) {
    const delta = parseDuration(inMatch[1].replace(/\s+(?:and|or)\b.*$/i, ""));
    if (delta !== undefined) return now + delta;
  }
  const atMatch = /(?:try again|resets?)\s+at\s+([0-9][0-9T:.\-+Z ]+)/i.exec(text);
  if (atMatch?.[1]) return parseTimestamp(atMatch[1].trim());
  return undefined;
}

/** Reads one header from a fetch `Headers` or a plain record, case-insensitively. */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== "object") return undefined;
  const h = headers as { get?: unknown } & Record<string, unknown>;
  if (typeof h.get === "function") {
    const v = (h.get as (n: string) => unknown).call(headers, name);
    return typeof v === "string" ? v : undefined;
  }
  for (const [k, v] of Object.entries(h)) {
    if (k.toLowerCase() === name)
      return Array.isArray(v) ? String(v[0]) : typeof v === "string" ? v : undefined;
  }
  return undefined;
}
