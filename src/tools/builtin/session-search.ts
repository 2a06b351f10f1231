import type { HermesToolRegistry, ToolContext } from "../context.js";
import { toolError, toolResult } from "./util.js";

/** Each snippet / scrolled message is cut to this many characters: results stay compact. */
const MAX_TEXT = 400;
const MAX_LIMIT = 25;
const MAX_WINDOW = 10;

const clip = (s: string, n = MAX_TEXT): string => (s.length > n ? `${s.slice(0, n)}…` : s);

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("\n");
  return "";
};

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

export const SESSION_SEARCH_SCHEMA = {
  description:
    "Search past sessions (include_current: this one too): snippets with session_id, message_id. " +
    "Read around a hit: session_id + around_message_id (+ window), no query.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string" },
      sort: { type: "string", enum: ["relevance", "recency"] },
      role: { type: "string", enum: ["user", "assistant", "tool"] },
      limit: { type: "integer", maximum: MAX_LIMIT },
      include_current: { type: "boolean" },
      session_id: { type: "string" },
      around_message_id: { type: "integer" },
      window: { type: "integer", maximum: MAX_WINDOW },
    },
  },
};

export function handleSessionSearch(args: Record<string, unknown>, ctx: ToolContext): string {
  const store = ctx.sessions;
  if (!store) return toolError("Session history is not available in this run (no session database).");
  try {
    if (args.around_message_id !== undefined) {
      const sessionId = typeof args.session_id === "string" ? args.session_id : "";
      if (!sessionId) return toolError("around_message_id needs session_id");
      const aroundId = Number(args.around_message_id);
      const window = Math.max(0, Math.min(Number(args.window ?? 3) || 0, MAX_WINDOW));
      const rows = store.around(sessionId, aroundId, window);
      if (rows.length === 0) return toolError(`No message ${aroundId} in session ${sessionId}`);
      const s = store.getSession(sessionId);
      return toolResult({
        session_id: sessionId,
        title: s?.title ?? null,
        messages: rows.map((r) => ({
          message_id: r.id,
          role: r.message.role,
          at: day(r.createdAt),
          text: clip(textOf(r.message.content)),
          ...(r.id === aroundId ? { hit: true } : {}),
        })),
      });
    }
    const query = typeof args.query === "string" ? args.query.trim() : "";
    if (!query) return toolError("Give a query, or session_id + around_message_id to scroll.");
    const limit = Math.max(1, Math.min(Number(args.limit ?? 8) || 8, MAX_LIMIT));
    const hits = store.search({
      query,
      limit,
      sort: args.sort === "recency" ? "recency" : "relevance",
      ...(typeof args.role === "string" ? { role: args.role } : {}),
      // The current conversation is every row of its compression lineage, not just the newest.
      ...(args.include_current === true
        ? {}
        : { excludeSessionIds: [...(ctx.conversationSessionIds ?? [ctx.sessionId])] }),
    });
    return toolResult({
      query,
      count: hits.length,
      results: hits.map((h) => ({
        session_id: h.sessionId,
        title: h.sessionTitle,
        message_id: h.messageId,
        role: h.role,
        at: day(h.createdAt),
        snippet: clip(h.snippet.replace(/\s+/g, " ")),
      })),
      ...(hits.length === 0 ? { note: "No matches. Try fewer or different words." } : {}),
    });
  } catch (err) {
    return toolError(`Session search failed: ${(err as Error).message}`);
  }
}

export function registerSessionSearchTool(registry: HermesToolRegistry): void {
  registry.register({
    name: "session_search",
    toolset: "session_search",
    schema: SESSION_SEARCH_SCHEMA,
    handler: handleSessionSearch,
    emoji: "🔎",
    parallelSafe: true,
    maxResultChars: 20_000,
  });
}
