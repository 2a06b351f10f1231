import type { ChatType } from "./types.js";

/** The two top-level config keys that shape who shares a session in groups. */
export interface SessionKeySettings {
  /** In groups, each participant has a session of their own (group_sessions_per_user). */
  groupSessionsPerUser: boolean;
  /** In threads, each participant has a session of their own (thread_sessions_per_user). */
  threadSessionsPerUser: boolean;
}

/** What of a message decides its conversation. */
export interface SessionKeySource {
  platform: string;
  chatType: ChatType;
  chatId: string;
  threadId?: string | undefined;
  userId: string;
}

/**
 * The deterministic key of a message's conversation:
 * `agent:main:<platform>:<chat_type>:<chat_id>[:<thread_id>][:<user_id>]`.
 * A DM is keyed by its chat (and thread), or by the sender when the platform gives no chat id, so
 * two people never share one. A group or channel is keyed by chat (and thread) and, with
 * `groupSessionsPerUser`, by participant; a thread is shared by everyone in it unless
 * `threadSessionsPerUser` too. Same input, same key: it survives restarts.
 */
export function sessionKeyOf(m: SessionKeySource, settings: SessionKeySettings): string {
  const parts = ["agent", "main", m.platform, m.chatType];
  if (m.chatType === "dm") {
    parts.push(m.chatId || m.userId);
    if (m.chatId && m.threadId) parts.push(m.threadId);
    return parts.join(":");
  }
  parts.push(m.chatId);
  if (m.threadId) parts.push(m.threadId);
  const perUser = settings.groupSessionsPerUser && (!m.threadId || settings.threadSessionsPerUser);
  if (perUser && m.userId) parts.push(m.userId);
  return parts.join(":");
}
