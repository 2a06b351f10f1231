/**
 * The session hooks an agent fires: its start and end, each request's turn (pre_llm_call,
 * post_llm_call), and the questions it puts to the user about commands. Every method is a no-op
 * without a listener, and none of them throws.
 */
import type { ChatMessage } from "../llm/types.js";
import type { ApprovalChoice, ApproveFn } from "../tools/approval/types.js";
import type { HookBus, HookName, HookPayload } from "./hooks.js";

/** Who is firing: the fields every session hook carries. */
export interface SessionHookFields {
  session_id: string;
  model: string;
  platform: string;
}

/** The history as hooks get it: a copy, plain JSON. */
const historyCopy = (messages: readonly ChatMessage[]): unknown[] => JSON.parse(JSON.stringify(messages));

/** Fires an observer hook when someone listens. */
export async function notify(
  hooks: HookBus | undefined,
  name: HookName,
  payload: () => HookPayload,
): Promise<void> {
  if (hooks?.has(name)) await hooks.emit(name, payload());
}

/** What the session hooks read of their agent, live (compression moves its session id). */
export interface HookedSession {
  readonly sessionId: string;
  readonly target: { model: string };
  readonly platform: string;
}

/** One agent's session hooks. */
export class SessionHooks {
  /** A request has run: the hooks of the session's end fire when it closes. */
  private started = false;

  constructor(
    readonly bus: HookBus | undefined,
    private readonly session: HookedSession,
  ) {}

  /** The fields every session hook carries, as they are now. */
  readonly fields = (): SessionHookFields => ({
    session_id: this.session.sessionId,
    model: this.session.target.model,
    platform: this.session.platform,
  });

  /**
   * Before a request's turn: on_session_start (a new session's first request), then pre_llm_call.
   * Returns `recalled` with the context pre_llm_call handlers add (it rides on this request's copy
   * of the user message only).
   */
  async beforeTurn(
    recalled: string,
    userMessage: string,
    history: () => readonly ChatMessage[],
  ): Promise<string> {
    this.started = true;
    const hooks = this.bus;
    if (!hooks) return recalled;
    // The request's own user message is the conversation's only one: a new session.
    const firstTurn = history().filter((m) => m.role !== "system").length === 1;
    if (firstTurn) await notify(hooks, "on_session_start", () => ({ ...this.fields() }));
    if (!hooks.has("pre_llm_call")) return recalled;
    const added = await hooks.collectContext({
      ...this.fields(),
      user_message: userMessage,
      conversation_history: historyCopy(history()),
      is_first_turn: firstTurn,
    });
    return added ? [recalled, added].filter(Boolean).join("\n\n") : recalled;
  }

  /** After a request that produced an answer: post_llm_call. */
  afterTurn(userMessage: string, answer: string, history: () => readonly ChatMessage[]): Promise<void> {
    return notify(this.bus, "post_llm_call", () => ({
      ...this.fields(),
      user_message: userMessage,
      assistant_response: answer,
      conversation_history: historyCopy(history()),
    }));
  }

  /** on_session_end, while the stored session is still open (nothing when no request ran). */
  async closing(reason: string): Promise<void> {
    if (this.started) await notify(this.bus, "on_session_end", () => ({ ...this.fields(), reason }));
  }

  /** on_session_finalize once the stored session is closed, and on_session_reset when /new replaced it. */
  async closed(reason: string): Promise<void> {
    if (!this.started) return;
    await notify(this.bus, "on_session_finalize", () => ({ ...this.fields(), reason }));
    if (reason === "new_session")
      await notify(this.bus, "on_session_reset", () => ({ ...this.fields(), reason }));
  }

  /** The approval prompt of a request, with the approval hooks around it. */
  approve(approve: ApproveFn | undefined, turnSignal: AbortSignal): ApproveFn | undefined {
    return approveWithHooks(approve, this.bus, this.fields, turnSignal);
  }
}

/**
 * The approval prompt with pre_approval_request before it and post_approval_response after it
 * (`choice` is "timeout" when the prompt's time ran out). Unchanged when nobody listens.
 */
export function approveWithHooks(
  approve: ApproveFn | undefined,
  hooks: HookBus | undefined,
  fields: () => SessionHookFields,
  turnSignal: AbortSignal,
): ApproveFn | undefined {
  if (!approve || !hooks || !(hooks.has("pre_approval_request") || hooks.has("post_approval_response")))
    return approve;
  return async (request) => {
    const keys = request.reasons.map((r) => r.key);
    const base = {
      ...fields(),
      command: request.command,
      description: request.reasons.map((r) => r.description).join("; "),
      pattern_key: keys[0] ?? "",
      pattern_keys: keys,
      surface: fields().platform,
    };
    await notify(hooks, "pre_approval_request", () => base);
    let choice: ApprovalChoice = "deny";
    try {
      choice = await approve(request);
      return choice;
    } finally {
      const timedOut = request.signal.aborted && !turnSignal.aborted;
      await notify(hooks, "post_approval_response", () => ({
        ...base,
        choice: timedOut ? "timeout" : choice,
      }));
    }
  };
}
