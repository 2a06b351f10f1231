/**
 * What `hermes mcp serve` shows other agents of this profile's knowledge: its sessions (listed,
 * searched exactly as the built-in session_search does, read) and its memory. Read-only.
 */
import { createMemoryStore } from "../../agent/memory/index.js";
import type { HermesConfig } from "../../core/config.js";
import { messageText, type SessionStore } from "../../state/store.js";
import { handleSessionSearch, SESSION_SEARCH_SCHEMA } from "../../tools/builtin/session-search.js";
import type { SessionSearchService, ToolContext } from "../../tools/context.js";

export interface ServeResult {
  text: string;
  isError?: boolean;
}

export interface ServeTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  run(args: Record<string, unknown>, signal: AbortSignal): ServeResult | Promise<ServeResult>;
}

export interface KnowledgeSources {
  /** The profile's state.db, or why it cannot be opened. */
  store(): SessionStore | string;
  home: string;
  config: HermesConfig;
}

const MAX_MESSAGE_CHARS = 4000;
const day = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString().slice(0, 16).replace("T", " ");
const errorResult = (message: string): ServeResult => ({
  text: JSON.stringify({ error: message }),
  isError: true,
});
const json = (value: unknown): ServeResult => ({ text: JSON.stringify(value) });
const int = (v: unknown, fallback: number, min: number, max: number): number => {
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? Math.max(min, Math.min(max, Math.trunc(n))) : fallback;
};

function withStore(sources: KnowledgeSources, fn: (store: SessionStore) => ServeResult): ServeResult {
  const store = sources.store();
  if (typeof store === "string") return errorResult(`Session history is not available: ${store}`);
  try {
    return fn(store);
  } catch (err) {
    return errorResult((err as Error).message);
  }
}

export function knowledgeTools(sources: KnowledgeSources): ServeTool[] {
  return [
    {
      name: "sessions_list",
      description: "List this Hermes profile's stored conversations, newest first.",
      inputSchema: {
        type: "object",
        properties: {
          limit: { type: "integer", minimum: 1, maximum: 200, description: "How many (default 20)." },
          source: {
            type: "string",
            description: "Only sessions from this source (cli, telegram, cron, ...).",
          },
        },
      },
      run: (args) =>
        withStore(sources, (store) => {
          const rows = store.listSessions({
            limit: int(args.limit, 20, 1, 200),
            ...(typeof args.source === "string" && args.source ? { source: args.source } : {}),
          });
          return json({
            count: rows.length,
            sessions: rows.map((s) => ({
              session_id: s.id,
              title: s.title,
              source: s.source,
              model: s.model,
              started: day(s.startedAt),
              ended: day(s.endedAt),
              messages: s.messageCount,
              parent_session_id: s.parentSessionId,
            })),
          });
        }),
    },
    {
      name: "session_search",
      description:
        "Search this Hermes profile's past conversations (full-text). Returns short snippets with session_id " +
        "and message_id; call again with session_id + around_message_id (and optional window) to read around a hit.",
      inputSchema: SESSION_SEARCH_SCHEMA.parameters,
      run: (args) =>
        withStore(sources, (store) => {
          const service: SessionSearchService = {
            search: (o) => store.search(o),
            around: (id, messageId, window) => store.messagesAround(id, messageId, window),
            getSession: (id) => store.getSession(id),
          };
          // Outside any conversation: nothing is "current", so nothing is left out.
          const ctx = {
            sessions: service,
            sessionId: "",
            conversationSessionIds: [],
          } as unknown as ToolContext;
          const text = handleSessionSearch(args, ctx);
          return { text, ...(text.startsWith('{"error"') ? { isError: true } : {}) };
        }),
    },
    {
      name: "session_read",
      description: "Read the messages of one stored conversation (by id, id prefix or title), oldest first.",
      inputSchema: {
        type: "object",
        properties: {
          session_id: { type: "string", description: "Session id, id prefix or title." },
          offset: { type: "integer", minimum: 0, description: "Skip this many messages (default 0)." },
          limit: {
            type: "integer",
            minimum: 1,
            maximum: 500,
            description: "How many messages (default 100).",
          },
        },
        required: ["session_id"],
      },
      run: (args) =>
        withStore(sources, (store) => {
          const wanted = typeof args.session_id === "string" ? args.session_id.trim() : "";
          const session = wanted ? store.resolveSession(wanted) : undefined;
          if (!session) return errorResult(`No session with id or title '${wanted}'`);
          const all = store.loadMessages(session.id);
          const offset = int(args.offset, 0, 0, all.length);
          const page = all.slice(offset, offset + int(args.limit, 100, 1, 500));
          return json({
            session_id: session.id,
            title: session.title,
            source: session.source,
            total_messages: all.length,
            messages: page.map((m) => {
              const text = messageText(m.message);
              const calls = m.message.role === "assistant" ? m.message.tool_calls : undefined;
              return {
                message_id: m.id,
                role: m.message.role,
                at: day(m.createdAt),
                text: text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text,
                ...(calls?.length ? { tool_calls: calls.map((c) => c.function.name) } : {}),
              };
            }),
            ...(offset + page.length < all.length ? { next_offset: offset + page.length } : {}),
          });
        }),
    },
    {
      name: "memory_read",
      description:
        "Read this Hermes profile's persistent memory: its notes (MEMORY.md) and user profile (USER.md).",
      inputSchema: {
        type: "object",
        properties: {
          target: {
            type: "string",
            enum: ["memory", "user", "both"],
            description: "Which store (default both).",
          },
        },
      },
      run: (args) => {
        const memory = createMemoryStore(sources.home, sources.config);
        const target = args.target === "memory" || args.target === "user" ? args.target : "both";
        return json({
          ...(target !== "user" ? { memory: memory.read("memory") } : {}),
          ...(target !== "memory" ? { user: memory.read("user") } : {}),
        });
      },
    },
  ];
}
