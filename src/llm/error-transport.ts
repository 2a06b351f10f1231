/**
 * Steps 5–8 of the classifier: failures without an HTTP answer (TLS, disconnects, refused
 * connections, DNS, timeouts), each with a message that says what to check.
 */

import type { ErrorFacts } from "./error-facts.js";
import { classified } from "./error-flags.js";
import * as P from "./error-patterns.js";
import type { ClassifyContext } from "./errors.js";
import { isLocalEndpoint } from "./local-host.js";
import type { ClassifiedError } from "./types.js";

/** A disconnect is read as an overflow above this share of the window (§4.4). */
const DISCONNECT_OVERFLOW_FILL = 0.6;

/** A local server that refuses connections gets one retry this soon: it may be starting up. */
export const LOCAL_REFUSED_RETRY_DELAY_MS = 500;

/** `fill`: the request's estimated share of the context window (0 when unknown). */
export function byTransport(f: ErrorFacts, ctx: ClassifyContext, fill: number): ClassifiedError {
  const where = ctx.baseUrl ?? "the provider";
  const t = f.text;
  const hasCode = (codes: readonly string[]) => f.codes.some((c) => codes.includes(c));
  const detail = f.message || "unknown error";
  // 5. SSL hiccups are transport noise: retry, never compress (§4.4), so they go first.
  if (P.hasAny(t, P.SSL_PATTERNS) || f.codes.some((c) => c.startsWith("ERR_SSL") || c.startsWith("CERT_"))) {
    return classified("timeout", `TLS error talking to ${where}: ${detail}`);
  }
  // 6. A disconnect on a request filling most of the window usually means the server choked on
  // the context size (§4.4); on a larger window, however big the request, it is a dropped
  // connection worth a retry (words about the context were read in step 4).
  if (hasCode(P.DISCONNECT_CODES) || P.hasAny(t, P.DISCONNECT_PATTERNS)) {
    const { approxTokens, contextLength } = ctx;
    if (fill > DISCONNECT_OVERFLOW_FILL) {
      return classified(
        "context_overflow",
        `${where} closed the connection on a large request (~${approxTokens} of ${contextLength} tokens): the conversation is probably too long for the model.`,
      );
    }
    return classified("timeout", `Connection to ${where} was closed mid-response.`);
  }
  // 7. Transport error names and codes, each with what the user can check.
  if (hasCode(["ECONNREFUSED"])) return refused(ctx.baseUrl);
  // fetch refuses "unsafe" ports (e.g. 9, 25, 6000) before connecting: retrying cannot help.
  if (t.includes("bad port")) {
    return classified(
      "format_error",
      `Cannot reach ${where}: fetch blocks this port as unsafe. Use another port.`,
    );
  }
  if (hasCode(["ENOTFOUND", "EAI_AGAIN"])) {
    return classified(
      "timeout",
      `Cannot reach ${where} (host name not found). Check model.base_url and DNS.`,
    );
  }
  if (
    hasCode(P.TIMEOUT_CODES) ||
    f.names.some((n) => n === "APIConnectionTimeoutError" || n === "TimeoutError") ||
    P.hasAny(t, P.TIMEOUT_PATTERNS)
  ) {
    return classified("timeout", `Request to ${where} timed out.`);
  }
  if (f.names.includes("APIConnectionError") || t.includes("fetch failed")) {
    return classified("timeout", `Cannot reach ${where}: ${detail}`);
  }
  // 8. Nothing recognisable: worth a retry with backoff.
  return classified("unknown", `Unexpected error from ${where}: ${detail}`);
}

/**
 * Nothing listens at the address. On this machine or its network that means the server is not
 * started: say which one and retry once, quickly. A remote host may be restarting: keep the backoff.
 */
function refused(baseUrl: string | undefined): ClassifiedError {
  if (baseUrl && isLocalEndpoint(baseUrl)) {
    return classified(
      "connection_refused",
      `Nothing is listening at ${baseUrl} (connection refused): start the server (${serverHint(baseUrl)}) or set model.base_url.`,
      { retryLimit: 1, retryDelayMs: LOCAL_REFUSED_RETRY_DELAY_MS },
    );
  }
  return classified(
    "connection_refused",
    `Cannot reach ${baseUrl ?? "the provider"} (connection refused). Is the server running?`,
  );
}

/** Local servers by their usual port; any other port gets the whole list. */
const SERVERS_BY_PORT: Readonly<Record<string, string>> = {
  "11434": "ollama serve",
  "8080": "llama-server",
  "8000": "vllm serve",
  "1234": "LM Studio's local server",
};

function serverHint(baseUrl: string): string {
  let port = "";
  try {
    port = new URL(baseUrl).port;
  } catch {
    // An unparsable URL names no port.
  }
  return SERVERS_BY_PORT[port] ?? "ollama serve / llama-server / vllm serve / LM Studio";
}
