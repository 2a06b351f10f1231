import type { AgentEvent } from "../agent/events.js";
import { estimateCost, type PricingLookup } from "../agent/usage.js";
import type { ChatMessage } from "../llm/types.js";
import { messageText, type SessionStore, type UnwrittenWrite, type WriteEvent } from "../state/store.js";

export interface RecorderInfo {
  sessionId: string;
  source: string;
  model: string;
  provider: string;
  cwd: string;
  /** Set when continuing a stored session: its row already exists. */
  resumed: boolean;
  /** The agent's conversation (system prompt first once built). */
  messages: () => readonly ChatMessage[];
  /**
   * Told when persistence fails, once until it works again; the session goes on, and what could not
   * be written is kept and retried. Also told what is lost for good (a write dropped or abandoned).
   */
  onFailure: (message: string) => void;
  /** Told that writes succeed again after onFailure was told they did not. */
  onRecovered?: (message: string) => void;
  /** How long writes may wait behind another process's lock on state.db before that is reported (3 s). */
  waitWarnMs?: number;
  /** Prices of the models that answer: usage events add their estimated cost to the row. */
  pricing?: PricingLookup;
  /** The session this one was branched from (or continues after compression / for a subagent). */
  parentSessionId?: string;
  /** A title for the new row (e.g. /branch NAME). */
  title?: string;
  /** Who the session belongs to (gateway chats): stored on every row of the conversation. */
  owner?: { userId: string; chatId?: string; sessionKey?: string };
  /**
   * Names the session after its first exchange, in the background; resolves to undefined when it
   * cannot (the failure is the callee's to log). Never replaces a title the user set.
   */
  autoTitle?: (userText: string, replyText: string) => Promise<string | undefined>;
}

/** A store call of this recorder: kept and re-run in order when it throws. */
interface Write {
  sessionId: string;
  run: () => void;
}

const WRITE_NAMES: Record<UnwrittenWrite["what"], string> = {
  session: "The session row",
  message: "A message",
  usage: "A token count",
  inner_tool_call: "An inner tool call",
  session_update: "An update",
};

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * Writes a session to the store as the agent produces it: each `message` event is committed
 * synchronously before the listener returns, so a SIGKILL loses nothing already shown.
 *
 * Persistence is never turned off. A write that throws is kept, with every later one behind it, and
 * retried (on the next event and on a timer); the store itself queues writes that find another
 * process holding the lock. The user hears of a failure once, and hears when saving works again.
 */
export class SessionRecorder {
  private created: boolean;
  private pendingTitle: string | undefined;
  private titleAsked = false;
  private titleJob: Promise<void> | undefined;
  /** Writes that threw, oldest first; nothing is written past them. */
  private readonly backlog: Write[] = [];
  /** onFailure was told and onRecovered not yet. */
  private warned = false;
  /** Sessions with writes queued in the store, and the unsubscribe of their watch. */
  private readonly watching = new Map<string, () => void>();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_FIRST_MS;

  constructor(
    private readonly store: SessionStore,
    private readonly info: RecorderInfo,
  ) {
    this.created = info.resumed;
  }

  /** The chat user the session belongs to (a gateway's); its subagents' sessions carry it too. */
  get owner(): RecorderInfo["owner"] {
    return this.info.owner;
  }

  handle(e: AgentEvent): void {
    try {
      if (e.type === "message") {
        this.ensureSession();
        const id = this.info.sessionId;
        this.write(id, () => this.store.appendMessage(id, e.message));
      } else if (e.type === "usage" && this.created) {
        const cost = this.info.pricing ? estimateCost(e.call, this.info.pricing(e.model, e.provider)) : null;
        const id = this.info.sessionId;
        this.write(id, () => this.store.addUsage(id, { ...e.call, costUsd: cost ?? 0 }));
      } else if (e.type === "inner_tool") {
        this.ensureSession();
        const id = this.info.sessionId;
        const call = {
          parentTool: e.parent,
          toolName: e.name,
          args: e.args,
          result: e.result,
          isError: e.isError,
          durationMs: e.durationMs,
        };
        this.write(id, () => this.store.appendInnerToolCall(id, call));
      } else if (e.type === "compression") {
        this.continueAfterCompression(e.sessionId, e.parentSessionId, e.messages);
      } else if (e.type === "done" && (e.status === "completed" || e.status === "budget_exhausted")) {
        this.maybeTitle(e.finalText);
      }
    } catch (err) {
      // Reads (titles) only: every write goes through write(), which never throws.
      this.warn(`Session history could not be read from state.db (${(err as Error).message}).`);
    }
  }

  /** Sets the title now, or when the session's first message creates its row. */
  setTitle(title: string): void {
    if (!this.created) {
      this.pendingTitle = title;
      return;
    }
    const id = this.info.sessionId;
    this.write(id, () => this.store.setTitle(id, title));
  }

  /** Starts the background title call once, after the first answered exchange of an untitled session. */
  private maybeTitle(finalText: string): void {
    const autoTitle = this.info.autoTitle;
    if (!autoTitle || this.titleAsked || !this.created || this.pendingTitle) return;
    this.titleAsked = true;
    if (this.store.getSession(this.info.sessionId)?.title) return;
    const firstUser = this.info.messages().find((m) => m.role === "user");
    if (!firstUser) return;
    const id = this.info.sessionId;
    this.titleJob = autoTitle(messageText(firstUser), finalText)
      .then((title) => {
        if (title) this.write(id, () => this.store.setTitleIfUnset(id, title));
      })
      .catch(() => {
        // Titles are a convenience: the callee logs why it failed.
      });
  }

  /** Resolves when a background title call (if any) has finished: awaited before the store closes. */
  settled(): Promise<void> {
    return this.titleJob ?? Promise.resolve();
  }

  /**
   * Writes a copied history into this new session (a /branch): the row is created with its
   * parent and title, then every message in one transaction.
   */
  copyHistory(messages: readonly ChatMessage[]): void {
    this.ensureSession();
    const id = this.info.sessionId;
    const rest = messages.filter((m) => m.role !== "system");
    this.write(id, () => this.store.appendMessages(id, rest));
  }

  /** Removes the last `count` stored messages (undo); they mirror the agent's history one to one. */
  dropLast(count: number): void {
    if (!this.created || count <= 0) return;
    const id = this.info.sessionId;
    this.write(id, () => this.store.deleteLastMessages(id, count));
  }

  /** Marks the session ended (normal exit); harmless if nothing was recorded. */
  end(reason: string): void {
    if (!this.created) return;
    const id = this.info.sessionId;
    this.write(id, () => this.store.endSession(id, reason));
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.backlog.length > 0) {
      this.info.onFailure(
        `${this.backlog.length} writes of this session could not be saved to state.db and are lost.`,
      );
      this.backlog.length = 0;
    }
  }

  /**
   * Compression rewrote the history: the old row ends with reason "compression" and a new row,
   * linked to it as parent, holds the compressed history from here on.
   */
  private continueAfterCompression(id: string, parent: string, messages: readonly ChatMessage[]): void {
    if (this.created) this.write(parent, () => this.store.endSession(parent, "compression"));
    // The continuation keeps the name: "fix auth" goes on as "fix auth #2", then "#3".
    const stored = this.created ? this.store.getSession(parent)?.title : undefined;
    const title = stored ?? this.pendingTitle;
    this.pendingTitle = title ? nextInLineage(title) : undefined;
    this.info.sessionId = id;
    this.info.parentSessionId = parent;
    this.info.resumed = false;
    this.created = false;
    this.ensureSession();
    const rest = messages.filter((m) => m.role !== "system");
    this.write(id, () => this.store.appendMessages(id, rest));
  }

  private ensureSession(): void {
    if (this.created) return;
    const first = this.info.messages()[0];
    const session = {
      id: this.info.sessionId,
      source: this.info.source,
      model: this.info.model,
      provider: this.info.provider,
      cwd: this.info.cwd,
      ...(first?.role === "system" ? { systemPrompt: first.content } : {}),
      ...(this.info.parentSessionId ? { parentSessionId: this.info.parentSessionId } : {}),
      ...((this.pendingTitle ?? this.info.title) ? { title: this.pendingTitle ?? this.info.title } : {}),
      ...(this.info.owner ?? {}),
    };
    // Created from here on: a failed insert is retried from the backlog, never issued twice.
    this.created = true;
    this.write(session.id, () => this.store.createSession(session));
  }

  /** Runs a store call after the ones still waiting in the backlog; never throws. */
  private write(sessionId: string, run: () => void): void {
    this.backlog.push({ sessionId, run });
    this.retry();
  }

  /** Writes the backlog in order until one throws (that one and the rest stay for the next try). */
  private retry(): void {
    while (this.backlog.length > 0) {
      const head = this.backlog[0]!;
      try {
        head.run();
      } catch (err) {
        this.warn(
          `Session history could not be saved (${(err as Error).message}); the conversation goes on and what was not saved is kept and retried.`,
        );
        this.scheduleRetry();
        return;
      }
      this.backlog.shift();
      this.watchQueued(head.sessionId);
    }
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryMs = RETRY_FIRST_MS;
    this.maybeRecovered();
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.retry();
    }, this.retryMs);
    // A session that cannot be saved must not keep the process alive on its own.
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** The store queued writes of the session behind another process's lock: follow what happens. */
  private watchQueued(sessionId: string): void {
    if (this.watching.has(sessionId) || this.store.pendingWrites(sessionId) === 0) return;
    this.watching.set(
      sessionId,
      this.store.watchWrites(sessionId, (e) => this.onWriteEvent(e)),
    );
  }

  private onWriteEvent(e: WriteEvent): void {
    const waitWarnMs = this.info.waitWarnMs ?? 3_000;
    switch (e.type) {
      case "waiting":
        if (e.waitedMs >= waitWarnMs) {
          this.warn(
            `Session history is waiting for state.db: another Hermes process has held its write lock for ${Math.round(e.waitedMs / 1000)} s. ${e.pending} writes are kept and will be saved when it is free.`,
          );
        }
        return;
      case "written":
        this.unwatch(e.sessionId);
        this.maybeRecovered();
        return;
      case "dropped":
        this.info.onFailure(`${WRITE_NAMES[e.what]} of this session could not be saved: ${e.reason}`);
        return;
      case "abandoned":
        this.unwatch(e.sessionId);
        this.info.onFailure(
          `${e.count} writes of this session could not be saved before state.db closed: another process kept its write lock.`,
        );
        return;
    }
  }

  private unwatch(sessionId: string): void {
    this.watching.get(sessionId)?.();
    this.watching.delete(sessionId);
  }

  /** Once per failure: later failures while it lasts add nothing the user needs. */
  private warn(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.info.onFailure(message);
  }

  private maybeRecovered(): void {
    if (!this.warned || this.backlog.length > 0 || this.watching.size > 0) return;
    this.warned = false;
    this.info.onRecovered?.("Session history is being saved again.");
  }
}

/** The title of a session continued after compression: a "#N" suffix counts the continuations. */
export function nextInLineage(title: string): string {
  const m = /^(.*) #(\d+)$/.exec(title);
  return m ? `${m[1]} #${Number(m[2]) + 1}` : `${title} #2`;
}

/** Result text given to tool calls that never got a result (the process died mid-turn). */
export const INTERRUPTED_TOOL_RESULT = JSON.stringify({
  error: "Not completed: the session ended before this tool returned.",
});

/**
 * A stored history made valid to send again: every assistant tool call gets a result. A kill between
 * a tool call and its result leaves the call unanswered, which providers reject.
 */
export function repairHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    out.push(m);
    if (m.role !== "assistant" || !m.tool_calls?.length) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === "tool"; j++) {
      const t = messages[j]!;
      if (t.role === "tool") answered.add(t.tool_call_id);
      out.push(t);
    }
    for (const tc of m.tool_calls) {
      if (!answered.has(tc.id))
        out.push({
          role: "tool",
          tool_call_id: tc.id,
          name: tc.function.name,
          content: INTERRUPTED_TOOL_RESULT,
        });
    }
    i = j - 1;
  }
  return out;
}
