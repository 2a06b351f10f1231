import type { SessionRecord, SessionStore } from "../state/store.js";
import type { SessionSearchService } from "../tools/context.js";

/** Whose sessions a session_search may see: everything of the profile, or one user's on one platform. */
export interface SearchScope {
  source: string;
  userId: string;
}

/**
 * The session_search service of an agent. Without a scope it sees every session of the profile
 * (the CLI's user owns them all); with one (a gateway chat) it finds and scrolls only that user's
 * sessions on that platform, so one chat's user never reads another's conversations.
 */
export function sessionSearchService(store: SessionStore, scope?: SearchScope): SessionSearchService {
  if (!scope) {
    return {
      search: (o) => store.search(o),
      around: (id, messageId, window) => store.messagesAround(id, messageId, window),
      getSession: (id) => store.getSession(id),
    };
  }
  const owned = (id: string): SessionRecord | undefined => {
    const s = store.getSession(id);
    return s && s.source === scope.source && s.userId === scope.userId ? s : undefined;
  };
  return {
    search: (o) => store.search({ ...o, source: scope.source, userId: scope.userId }),
    around: (id, messageId, window) => (owned(id) ? store.messagesAround(id, messageId, window) : []),
    getSession: (id) => owned(id),
  };
}
