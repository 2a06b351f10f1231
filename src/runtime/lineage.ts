import type { SessionStore } from "../state/store.js";

/** A stored conversation: its first row (the stable id) and the rows before `sessionId`, oldest first. */
export interface StoredLineage {
  conversationId: string;
  earlier: string[];
}

/**
 * Walks a session's compression lineage back: each continuation's parent ended with reason
 * "compression" no later than the continuation started (a branch made earlier from a session that
 * was compressed afterwards is a conversation of its own). Never throws.
 */
export function storedLineage(store: SessionStore, sessionId: string): StoredLineage {
  const earlier: string[] = [];
  try {
    let current = store.getSession(sessionId);
    const seen = new Set([sessionId]);
    while (current?.parentSessionId && !seen.has(current.parentSessionId)) {
      const parent = store.getSession(current.parentSessionId);
      if (parent?.endReason !== "compression" || (parent.endedAt ?? Infinity) > current.startedAt) break;
      seen.add(parent.id);
      earlier.unshift(parent.id);
      current = parent;
    }
  } catch {
    // An unreadable store: the conversation starts its lineage here.
  }
  return { conversationId: earlier[0] ?? sessionId, earlier };
}
