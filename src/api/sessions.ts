/**
 * /api/sessions: the state.db sessions API runs created (source `api_server`), newest first; one
 * with its messages; deleting one. Each key sees only its own sessions; sessions of other front
 * ends are not visible here.
 */
import type { SessionRecord, SessionStore, StoredMessage } from "../state/store.js";
import type { RouteContext, RouteRequest } from "./context.js";
import { ApiError, invalidField, sendJson } from "./http.js";

export const API_SOURCE = "api_server";
const MAX_LIMIT = 100;

function storeOf(ctx: RouteContext): SessionStore {
  const store = ctx.runtime.sessions;
  if (!store)
    throw new ApiError(
      503,
      `Sessions are unavailable: ${ctx.runtime.storeProblem ?? "state.db could not be opened"}`,
      "service_unavailable",
      "store_unavailable",
    );
  return store;
}

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw invalidField(name, `must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return n;
}

const sessionJson = (s: SessionRecord) => ({
  id: s.id,
  object: "session",
  title: s.title,
  source: s.source,
  model: s.model,
  provider: s.provider,
  parent_session_id: s.parentSessionId,
  started_at: s.startedAt,
  ended_at: s.endedAt,
  end_reason: s.endReason,
  message_count: s.messageCount,
  usage: {
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cache_read_tokens: s.cacheReadTokens,
    cache_write_tokens: s.cacheWriteTokens,
    reasoning_tokens: s.reasoningTokens,
    cost_usd: s.costUsd,
  },
});

const messageJson = (m: StoredMessage) => ({ seq: m.seq, created_at: m.createdAt, ...m.message });

/**
 * Whether a stored session belongs to the key a request came with: a named key's sessions carry
 * its name as their user, the owner key's carry none. Another key's session is as good as absent.
 */
export const ownedBy = (session: SessionRecord, keyName: string | undefined): boolean =>
  session.source === API_SOURCE && session.userId === keyName;

/** The newest `want` API sessions of a key. */
function sessionsOf(store: SessionStore, keyName: string | undefined, want: number): SessionRecord[] {
  if (keyName !== undefined) return store.listSessions({ source: API_SOURCE, userId: keyName, limit: want });
  // The owner's are the ones without a user: read further back until enough are found.
  for (let limit = want; ; limit *= 2) {
    const rows = store.listSessions({ source: API_SOURCE, limit });
    const own = rows.filter((s) => s.userId === undefined);
    if (own.length >= want || rows.length < limit) return own.slice(0, want);
  }
}

function apiSession(ctx: RouteContext, r: RouteRequest, id: string): SessionRecord {
  const session = storeOf(ctx).getSession(id);
  if (!session || !ownedBy(session, r.keyName))
    throw new ApiError(
      404,
      `No API session with id ${JSON.stringify(id)}`,
      "not_found_error",
      "session_not_found",
    );
  return session;
}

export async function handleListSessions(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const limit = intParam(r.url, "limit", 20, 1, MAX_LIMIT);
  const offset = intParam(r.url, "offset", 0, 0, 1_000_000);
  // The store pages from the newest; one more row than asked says whether there are more.
  const rows = sessionsOf(storeOf(ctx), r.keyName, offset + limit + 1);
  const page = rows.slice(offset, offset + limit);
  sendJson(r.res, 200, {
    object: "list",
    data: page.map(sessionJson),
    limit,
    offset,
    has_more: rows.length > offset + limit,
  });
}

export async function handleGetSession(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const session = apiSession(ctx, r, r.params[0]!);
  const messages = storeOf(ctx).loadMessages(session.id);
  sendJson(r.res, 200, { ...sessionJson(session), messages: messages.map(messageJson) });
}

export async function handleDeleteSession(ctx: RouteContext, r: RouteRequest): Promise<void> {
  const session = apiSession(ctx, r, r.params[0]!);
  if (ctx.runs.liveSessionIds().has(session.id))
    throw new ApiError(
      409,
      "This session's run is still in flight",
      "invalid_request_error",
      "session_running",
    );
  if (!(await storeOf(ctx).deleteSession(session.id)))
    throw new ApiError(
      404,
      `No API session with id ${JSON.stringify(session.id)}`,
      "not_found_error",
      "session_not_found",
    );
  sendJson(r.res, 200, { id: session.id, object: "session.deleted", deleted: true });
}
