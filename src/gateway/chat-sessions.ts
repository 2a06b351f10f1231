import type { Agent } from "../agent/agent.js";
import type { AgentEventListener } from "../agent/events.js";
import type { SessionResetSettings } from "../core/config-gateway.js";
import type { NewAgentOptions, Runtime } from "../runtime/runtime.js";
import type { RouteEntry, RoutingStore } from "../state/routing.js";
import type { SessionRecord } from "../state/store.js";
import type { AgentPool } from "./agent-pool.js";
import { shouldReset } from "./reset-policy.js";
import type { ChatType, InboundMessage, OutboundTarget } from "./types.js";

/** One conversation of the gateway: a session key and where its messages come from and go. */
export interface Chat {
  key: string;
  platform: string;
  chatType: ChatType;
  chatId: string;
  threadId?: string;
  /** The user who wrote the message being handled. */
  userId: string;
  /** Where the chat's messages go (no replyTo: each turn adds its own). */
  target: OutboundTarget;
}

/** The chat an inbound message belongs to. */
export function chatOf(m: InboundMessage, key: string): Chat {
  const where = m.threadId ? { threadId: m.threadId } : {};
  return {
    key,
    platform: m.platform,
    chatType: m.chatType,
    chatId: m.chatId,
    ...where,
    userId: m.userId,
    target: { chatId: m.chatId, ...where },
  };
}

export interface ChatSessionsOptions {
  runtime: Runtime;
  routing: RoutingStore;
  pool: AgentPool;
  reset: SessionResetSettings;
  now: () => number;
  /** The rest of a chat's agent options: listener, approve/clarify callbacks, toolsets. */
  agentOptions: (chat: Chat) => { listener: AgentEventListener; options: NewAgentOptions };
}

/**
 * The sessions behind the gateway's chats: which stored session a key continues (gateway_routing),
 * its live agent (the pool), and starting over (/new, the reset policy). An agent that was evicted
 * or lost with a restart is resumed from state.db, so the conversation goes on where it stopped.
 */
export class ChatSessions {
  constructor(private readonly o: ChatSessionsOptions) {}

  /** The chat's agent, leased for a turn (resumed or created when not live). */
  lease(chat: Chat): { agent: Agent; release: () => void } {
    return this.o.pool.lease(chat.key, () => this.create(chat));
  }

  /** The chat's agent for a command (resumed or created when not live). */
  agent(chat: Chat): Agent {
    const lease = this.lease(chat);
    lease.release();
    return lease.agent;
  }

  live(key: string): Agent | undefined {
    return this.o.pool.peek(key);
  }

  /** The chat's current session: its live agent's, else the stored route's. */
  sessionId(key: string): string | undefined {
    return this.live(key)?.sessionId ?? this.o.routing.get(key)?.sessionId;
  }

  /** The model the chat's turns use. */
  model(key: string): string {
    return (
      this.live(key)?.target.model ?? this.o.routing.get(key)?.entry.model ?? this.o.runtime.target.model
    );
  }

  /** Starts a new session when the reset policy says the chat's last one is over; true when it did. */
  async resetIfDue(chat: Chat): Promise<boolean> {
    const route = this.o.routing.get(chat.key);
    if (!route || !shouldReset(this.o.reset, route.entry.lastActiveAt, this.o.now())) return false;
    await this.end(chat.key, "session_reset");
    return true;
  }

  /** Ends the chat's session: its agent closes (interrupting a turn) and the next message starts anew. */
  async end(key: string, reason = "new_session"): Promise<void> {
    const model = this.o.routing.get(key)?.entry.model;
    const agent = this.o.pool.take(key);
    const forgotten = this.remember(this.o.routing.delete(key), key);
    await agent?.close(reason);
    await forgotten;
    // A chat's /model choice outlives its conversations; the next agent picks it up.
    if (model) this.pendingModels.set(key, model);
  }

  /** The chat user's own sessions on this platform, newest first (what /resume offers). */
  ownSessions(chat: Chat, limit: number): SessionRecord[] {
    return this.o.runtime.sessions?.listSessions({ source: chat.platform, userId: chat.userId, limit }) ?? [];
  }

  /** Switches the chat to a stored session of its user: the live agent closes, the next turn resumes `sessionId`. */
  async switchTo(chat: Chat, sessionId: string): Promise<void> {
    const previous = this.o.routing.get(chat.key)?.entry;
    await this.end(chat.key, "resumed_other");
    this.pendingModels.delete(chat.key);
    const entry = this.entryOf(chat, { ...(previous?.model ? { model: previous.model } : {}) });
    await this.remember(this.o.routing.set(chat.key, sessionId, entry, this.o.now()), chat.key);
  }

  /** Records that the chat was active now with `agent` (unless a /new replaced it meanwhile). */
  touch(chat: Chat, agent: Agent, changes: Partial<RouteEntry> = {}): void {
    if (this.live(chat.key) !== agent) return;
    const previous = this.o.routing.get(chat.key)?.entry;
    void this.remember(
      this.o.routing.set(
        chat.key,
        agent.sessionId,
        this.entryOf(chat, { ...previous, ...changes }),
        this.o.now(),
      ),
      chat.key,
    );
  }

  /**
   * Waits for a route write. One that could not be made (state.db stayed locked) is logged: the
   * chat goes on, and only a restart before its next message would pick up the previous route.
   */
  private async remember(write: Promise<void>, key: string): Promise<void> {
    try {
      await write;
    } catch (err) {
      this.o.runtime.logger.warn("gateway route not saved", { key, error: (err as Error).message });
    }
  }

  setModel(chat: Chat, model: string): void {
    const agent = this.agent(chat);
    agent.setModel(model);
    this.touch(chat, agent, { model });
  }

  setTitle(chat: Chat, title: string): string | undefined {
    const agent = this.agent(chat);
    const error = this.o.runtime.setSessionTitle(agent.sessionId, title);
    if (!error) this.touch(chat, agent, { title });
    return error;
  }

  /** /model choices of chats whose session ended, for their next agent. */
  private readonly pendingModels = new Map<string, string>();

  private entryOf(chat: Chat, previous: Partial<RouteEntry>): RouteEntry {
    return {
      ...previous,
      platform: chat.platform,
      chatId: chat.chatId,
      chatType: chat.chatType,
      ...(chat.threadId ? { threadId: chat.threadId } : {}),
      userId: previous.userId || chat.userId,
      lastActiveAt: this.o.now(),
    };
  }

  /** A live agent for the chat: its stored session resumed when there is one, else a new session. */
  private create(chat: Chat): Agent {
    const { runtime, routing } = this.o;
    const route = routing.get(chat.key);
    const stored = route ? runtime.sessions?.getSession(route.sessionId) : undefined;
    const { listener, options } = this.o.agentOptions(chat);
    const agent = runtime.newAgent(listener, { ...options, ...(stored ? { resume: stored } : {}) });
    const model = route?.entry.model ?? this.pendingModels.get(chat.key);
    this.pendingModels.delete(chat.key);
    if (model) agent.setModel(model);
    void this.remember(
      routing.set(
        chat.key,
        agent.sessionId,
        this.entryOf(chat, { ...route?.entry, ...(model ? { model } : {}) }),
        this.o.now(),
      ),
      chat.key,
    );
    return agent;
  }
}
