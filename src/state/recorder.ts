import type { AgentEvent } from "../agent/events.js";
import type { ChatMessage } from "../llm/types.js";
import type { SessionStore } from "./store.js";

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
}

/**
 * Writes a session to the store as the agent produces it: each `message` event is committed
 * synchronously before the listener returns, so a SIGKILL loses nothing already shown.
 */
export class SessionRecorder {
  private created: boolean;
  private failed = false;
  private pendingTitle: string | undefined;

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
        this.store.addUsage(this.info.sessionId, e.call);
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

  /** Marks the session ended (normal exit); harmless if nothing was recorded. */
  end(reason: string): void {
    if (this.failed || !this.created) return;
    try {
      this.store.endSession(this.info.sessionId, reason);
    } catch {
      // Ending is bookkeeping only.
    }
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
      ...(this.pendingTitle ? { title: this.pendingTitle } : {}),
    });
    this.created = true;
  }
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
