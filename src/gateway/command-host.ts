import type { Runtime } from "../runtime/runtime.js";
import type { Chat, ChatSessions } from "./chat-sessions.js";
import type { CommandHost } from "./control-commands.js";
import type { Lanes } from "./lanes.js";
import type { ChatPrompts } from "./prompts.js";

export interface CommandHostParts {
  chat: Chat;
  runtime: Runtime;
  sessions: ChatSessions;
  lanes: Lanes;
  prompts: ChatPrompts;
  /** Runs text as a turn of the chat after what its lane holds (/queue). */
  enqueue: (text: string) => void;
}

/** What a control command of `chat` may do, built from the runner's parts. */
export function createCommandHost(p: CommandHostParts): CommandHost {
  const { chat, sessions, lanes, prompts } = p;
  const key = chat.key;
  return {
    liveAgent: () => sessions.live(key),
    agent: () => sessions.agent(chat),
    sessionId: () => sessions.sessionId(key),
    session: (id) => p.runtime.sessions?.getSession(id),
    model: () => sessions.model(key),
    busy: () => lanes.busy(key),
    queued: () => lanes.queued(key),
    stop: () => {
      prompts.cancel(key);
      const dropped = lanes.clear(key);
      sessions.live(key)?.interrupt();
      return dropped;
    },
    newSession: async () => {
      prompts.cancel(key);
      lanes.clear(key);
      await sessions.end(key);
    },
    enqueue: p.enqueue,
    answerApproval: (choice) => prompts.answerApproval(key, choice),
    setTitle: (title) => sessions.setTitle(chat, title),
    setModel: (model) => sessions.setModel(chat, model),
    ownSessions: (limit) => sessions.ownSessions(chat, limit),
    resume: async (sessionId) => {
      prompts.cancel(key);
      lanes.clear(key);
      await sessions.switchTo(chat, sessionId);
    },
  };
}
