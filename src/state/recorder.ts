import type { AgentEvent } from "../agent/events.js";
import { estimateCost, type PricingLookup } from "../agent/usage.js";
import type { ChatMessage } from "../llm/types.js";
import { messageText, type SessionStore } from "./store.js";

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
  /** Told once when persistence fails; the session goes on without it. */
  onFailure: (message: string) => void;
  /** Prices of the models that answer: usage events add their estimated cost to the row. */
  pricing?: PricingLookup;
  /** The session this one was branched from (or continues after compression / for a subagent). */
  parentSessionId?: string;
  /** A title for the new row (e.g. /branch NAME). */
  title?: string;
  /**
   * Names the session after its first exchange, in the background; resolves to undefined when it
   * cannot (the failure is the callee's to log). Never replaces a title the user set.
   */
  autoTitle?: (userText: string, replyText: string) => Promise<string | undefined>;
}

/**
 * Writes a session to the store as the agent produces it: each `message` event is committed
 * synchronously before the listener returns, so a SIGKILL loses nothing already shown.
 */
export class SessionRecorder {
  private created: boolean;
  private failed = false;
  private pendingTitle: string | undefined;
  private titleAsked = false;
  private titleJob: Promise<void> | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly info: RecorderInfo,
  ) {
    this.created = info.resumed;
  }

  handle(e: AgentEvent): void {
    if (this.failed) return;
    try {
      if (e.type === "message") {
        this.ensureSession();
        this.store.appendMessage(this.info.sessionId, e.message);
      } else if (e.type === "usage" && this.created) {
        const cost = this.info.pricing ? estimateCost(e.call, this.info.pricing(e.model, e.provider)) : null;
        this.store.addUsage(this.info.sessionId, { ...e.call, costUsd: cost ?? 0 });
      } else if (e.type === "inner_tool") {
        this.ensureSession();
        this.store.appendInnerToolCall(this.info.sessionId, {
          parentTool: e.parent,
          toolName: e.name,
          args: e.args,
          result: e.result,
          isError: e.isError,
          durationMs: e.durationMs,
        });
      } else if (e.type === "compression") {
        this.continueAfterCompression(e.sessionId, e.parentSessionId, e.messages);
      } else if (e.type === "done" && (e.status === "completed" || e.status === "budget_exhausted")) {
        this.maybeTitle(e.finalText);
      }
    } catch (err) {
      this.failed = true;
      this.info.onFailure(
        `Session history is no longer being saved (${(err as Error).message}); this conversation goes on without persistence.`,
      );
    }
  }

  /** Sets the title now, or when the session's first message creates its row. */
  setTitle(title: string): void {
    if (this.failed) throw new Error("session history is not being saved");
    if (this.created) this.store.renameSession(this.info.sessionId, title);
    else this.pendingTitle = title;
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
        if (title && !this.failed) this.store.setTitleIfUnset(id, title);
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
    if (this.failed) throw new Error("session history is not being saved");
    this.ensureSession();
    const rest = messages.filter((m) => m.role !== "system");
    this.store.appendMessages(this.info.sessionId, rest);
  }

  /** Removes the last `count` stored messages (undo); they mirror the agent's history one to one. */
  dropLast(count: number): void {
    if (this.failed || !this.created || count <= 0) return;
    try {
      const stored = this.store.loadMessages(this.info.sessionId);
      const from = stored[Math.max(0, stored.length - count)];
      if (from) this.store.deleteMessagesFrom(this.info.sessionId, from.seq);
    } catch (err) {
      this.failed = true;
      this.info.onFailure(
        `Session history is no longer being saved (${(err as Error).message}); this conversation goes on without persistence.`,
      );
    }
  }

  /** Marks the session ended (normal exit); harmless if nothing was recorded. */
  end(reason: string): void {
    if (this.failed || !this.created) return;
    try {
      this.store.endSession(this.info.sessionId, reason);
    } catch {
      // Ending is bookkeeping only.
    }
  }

  /**
   * Compression rewrote the history: the old row ends with reason "compression" and a new row,
   * linked to it as parent, holds the compressed history from here on.
   */
  private continueAfterCompression(id: string, parent: string, messages: readonly ChatMessage[]): void {
    if (this.created) this.store.endSession(parent, "compression");
    // The continuation keeps the name: "fix auth" goes on as "fix auth #2", then "#3".
    const stored = this.created ? this.store.getSession(parent)?.title : undefined;
    const title = stored ?? this.pendingTitle;
    this.pendingTitle = title ? nextInLineage(title) : undefined;
    this.info.sessionId = id;
    this.info.parentSessionId = parent;
    this.info.resumed = false;
    this.created = false;
    this.ensureSession();
    this.store.appendMessages(
      id,
      messages.filter((m) => m.role !== "system"),
    );
  }

  private ensureSession(): void {
    if (this.created) return;
    const first = this.info.messages()[0];
    this.store.createSession({
      id: this.info.sessionId,
      source: this.info.source,
      model: this.info.model,
      provider: this.info.provider,
      cwd: this.info.cwd,
      ...(first?.role === "system" ? { systemPrompt: first.content } : {}),
      ...(this.info.parentSessionId ? { parentSessionId: this.info.parentSessionId } : {}),
      ...((this.pendingTitle ?? this.info.title) ? { title: this.pendingTitle ?? this.info.title } : {}),
    });
    this.created = true;
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
