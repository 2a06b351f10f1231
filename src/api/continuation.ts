/**
 * Chat completions continue their stored session. A client resends the whole conversation with
 * every request; after each answer the server records, in state.db's continuation index, a hash
 * of the conversation as the client holds it now (its messages, this turn and the answer it got)
 * → the session. A request whose earlier messages hash to a recorded prefix continues that
 * session: only the messages past the prefix and the new turn are stored. A prefix that is not
 * the session's latest state (the client edited or dropped a message the session has moved past),
 * a session that another request is running or about to continue (plans reserve their session
 * until the request ends: `releasePlan`), or no match at all: the request starts a new session
 * holding its whole history. Records are scoped by caller.
 *
 * A session's latest state is kept as a record of its own (`tip:<session id>` → the message count
 * of its newest prefix); an attempt that fails on a continued session unsets it, because the
 * session then holds a turn the client never saw.
 */

import type { ChatMessage } from "../llm/types.js";
import { prefixHashes } from "../state/continuation-hash.js";
import type { ContinuationStore } from "../state/continuations.js";
import type { ChatRequest } from "./chat-request.js";
import type { RouteContext } from "./context.js";
import type { SessionPlan } from "./runs.js";
import { API_SOURCE } from "./sessions.js";

const tipKey = (sessionId: string): string => `tip:${sessionId}`;
/** Where a chat session's live conversation is kept in the conversation cache. */
const liveKey = (sessionId: string): string => `session:${sessionId}`;

/** Keeps a chat session's conversation as its run held it (unredacted), for the request continuing it. */
export function keepLiveConversation(
  ctx: RouteContext,
  sessionId: string,
  live: readonly ChatMessage[],
): void {
  ctx.conversations.set(liveKey(sessionId), live);
}

/** One message as it is hashed: what a client keeps of it, whitespace at the ends aside. */
export function canonicalMessage(m: ChatMessage): string {
  switch (m.role) {
    case "system":
      return JSON.stringify(["system", m.content.trim()]);
    case "user":
      return JSON.stringify([
        "user",
        typeof m.content === "string"
          ? m.content.trim()
          : m.content.map((p) => (p.type === "text" ? p.text : { image: p.image_url.url })),
      ]);
    case "assistant":
      return JSON.stringify([
        "assistant",
        (m.content ?? "").trim(),
        (m.tool_calls ?? []).map((c) => [c.id, c.function.name, c.function.arguments]),
      ]);
    case "tool":
      return JSON.stringify(["tool", m.tool_call_id, m.content.trim()]);
  }
}

/** The conversation before this turn as the client sent it: its instructions first (they shape the session), then its messages. */
function clientView(request: ChatRequest): string[] {
  const head = request.instructions ? [JSON.stringify(["instructions", request.instructions])] : [];
  return [...head, ...request.history.map(canonicalMessage)];
}

export interface ContinuationPlan {
  plan: SessionPlan;
  /** The hash of the conversation before this turn ("" for none), extended by the answer's record. */
  viewHash: string;
  /** How many messages that hash covers. */
  viewLength: number;
}

function indexOf(ctx: RouteContext): ContinuationStore | undefined {
  return ctx.runtime.sessions?.continuations;
}

/** Messages hashed between two turns of the event loop. */
const HASH_BATCH = 256;

/** The prefix hashes of a client's view, computed in batches that give the event loop turns. */
async function hashesOf(view: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < view.length; i += HASH_BATCH) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    out.push(...prefixHashes(view.slice(i, i + HASH_BATCH), out.at(-1)));
  }
  return out;
}

/** Where this request's run goes: the session its history continues, else a new one. */
export async function planContinuation(
  ctx: RouteContext,
  callerId: string,
  request: ChatRequest,
): Promise<ContinuationPlan> {
  const view = clientView(request);
  const index = indexOf(ctx);
  const store = ctx.runtime.sessions;
  const hashes = index && store ? await hashesOf(view) : [];
  const fresh: ContinuationPlan = {
    plan: { kind: "new" },
    viewHash: hashes.at(-1) ?? "",
    viewLength: view.length,
  };
  if (!index || !store || request.history.length === 0) return fresh;
  const hit = index.find(callerId, hashes.toReversed());
  if (!hit) return fresh;
  const tip = index.find(callerId, [tipKey(hit.sessionId)]);
  const session = store.getSession(hit.sessionId);
  const usable =
    tip?.messageCount === hit.messageCount && session?.source === API_SOURCE && ctx.runs.claim(hit.sessionId);
  if (!usable || !session) return fresh;
  const historyStart = view.length - request.history.length;
  const extra = request.history.slice(Math.max(0, hit.messageCount - historyStart));
  const live = ctx.conversations.get(liveKey(session.id));
  return { ...fresh, plan: { kind: "continue", session, extra, ...(live ? { live } : {}) } };
}

/**
 * Records the conversation after an answer (`answerText` as the client received it) as the
 * latest state of `sessionId`. A session continued under another id (compressed during the run)
 * loses its own tip. Never throws: a failure only costs the next request a copy.
 */
export async function recordAnswer(
  ctx: RouteContext,
  callerId: string,
  continued: ContinuationPlan,
  turn: string,
  answerText: string,
  sessionId: string,
): Promise<void> {
  const index = indexOf(ctx);
  if (!index) return;
  const added = [
    canonicalMessage({ role: "user", content: turn }),
    canonicalMessage({ role: "assistant", content: answerText }),
  ];
  const prefixHash = prefixHashes(added, continued.viewHash).at(-1)!;
  const messageCount = continued.viewLength + added.length;
  try {
    await index.record(callerId, { prefixHash, sessionId, messageCount });
    await index.record(callerId, { prefixHash: tipKey(sessionId), sessionId, messageCount });
    const before = continued.plan.kind === "continue" ? continued.plan.session.id : undefined;
    if (before && before !== sessionId) await forgetTip(index, callerId, before);
  } catch (err) {
    ctx.log("warn", "api continuation not recorded", { session: sessionId, message: (err as Error).message });
  }
}

/** Gives back the session a plan reserved for continuing (ApiRun holds it while it runs). */
export function releasePlan(ctx: RouteContext, plan: SessionPlan): void {
  if (plan.kind === "continue") ctx.runs.unclaim(plan.session.id);
}

/** After a failed attempt on a continued session: nothing continues it any more. Never throws. */
export async function abandonContinuation(
  ctx: RouteContext,
  callerId: string,
  plan: SessionPlan,
): Promise<void> {
  const index = indexOf(ctx);
  if (!index || plan.kind !== "continue") return;
  try {
    await forgetTip(index, callerId, plan.session.id);
  } catch (err) {
    ctx.log("warn", "api continuation not updated", { message: (err as Error).message });
  }
}

/**
 * Where a Responses run continuing `previous` goes: that response's session when the response is
 * the session's latest state (the request's input items past it are appended), else a new
 * session holding the stored conversation and the new items.
 */
export function planResponsesContinuation(
  ctx: RouteContext,
  callerId: string,
  previous: { sessionId: string | null; conversationLength: number } | undefined,
  newItems: ChatMessage[],
): SessionPlan {
  const index = indexOf(ctx);
  const store = ctx.runtime.sessions;
  if (!previous?.sessionId || !index || !store) return { kind: "new" };
  const tip = index.find(callerId, [tipKey(previous.sessionId)]);
  const session = store.getSession(previous.sessionId);
  if (
    tip?.messageCount !== previous.conversationLength ||
    session?.source !== API_SOURCE ||
    !ctx.runs.claim(session.id)
  )
    return { kind: "new" };
  return { kind: "continue", session, extra: newItems };
}

/** A stored response is its session's latest state: a request continuing it may continue the session. Never throws. */
export async function recordResponseTip(
  ctx: RouteContext,
  callerId: string,
  plan: SessionPlan,
  sessionId: string,
  conversationLength: number,
): Promise<void> {
  const index = indexOf(ctx);
  if (!index) return;
  try {
    await index.record(callerId, {
      prefixHash: tipKey(sessionId),
      sessionId,
      messageCount: conversationLength,
    });
    if (plan.kind === "continue" && plan.session.id !== sessionId)
      await forgetTip(index, callerId, plan.session.id);
  } catch (err) {
    ctx.log("warn", "api continuation not recorded", { session: sessionId, message: (err as Error).message });
  }
}

const forgetTip = (index: ContinuationStore, callerId: string, sessionId: string): Promise<void> =>
  index.record(callerId, { prefixHash: tipKey(sessionId), sessionId, messageCount: -1 });
