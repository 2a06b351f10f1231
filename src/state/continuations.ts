/**
 * The API server's chat-completions continuation index. Chat-completions clients send the whole
 * conversation with every request; the server continues the stored session that conversation came
 * from instead of copying it into a new one. After each answered request the server records, for
 * the conversation as the client will send it next time (the request's messages plus the answer),
 * a hash of that message prefix → the session and how many client messages the hash covers. The
 * next request hashes its own prefixes (`prefixHashes` in continuation-hash.ts gives all of them in
 * one pass) and asks for the longest one recorded: the messages past `messageCount` are the new
 * ones; no hit means a new session (the history diverged, or was never seen).
 *
 * How a message is turned into the string that is hashed is the caller's choice, but it must be the
 * same on both sides (e.g. role, text content and tool calls only: clients drop or add fields).
 * Rows are scoped by caller and go with their session when it is deleted.
 */

export interface ContinuationHit {
  /** The prefix hash that matched (the longest of those asked for that is recorded). */
  prefixHash: string;
  sessionId: string;
  /** How many of the client's messages the prefix covers: the request's messages past it are new. */
  messageCount: number;
  createdAt: number;
}

/** Reads never wait; writes reject with StateStoreError "locked" past the store's write deadline. */
export interface ContinuationStore {
  /**
   * The first of `prefixHashes` recorded for this caller, in the order given (pass the longest
   * prefix first to continue from the furthest point). Undefined when none is.
   */
  find(callerId: string, prefixHashes: readonly string[]): ContinuationHit | undefined;
  /** Records (or re-points) a prefix of this caller's conversation at a session. */
  record(
    callerId: string,
    entry: { prefixHash: string; sessionId: string; messageCount: number },
  ): Promise<void>;
}
