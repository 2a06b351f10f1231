import type { ChatMessage } from "../llm/types.js";

/**
 * The API server's stored Responses (`store: true`, the default): the response object for
 * GET /v1/responses/{id}, and the conversation after it, which a later request's
 * `previous_response_id` continues. Only the newest `keep` responses stay; deleting a session
 * deletes the responses of its runs.
 */

export interface StoredResponse {
  id: string;
  previousResponseId: string | null;
  /** The state.db session of the run that produced it. */
  sessionId: string | null;
  model: string;
  /** The conversation after this response (no system prompt, no caller instructions); stored redacted. */
  conversation: ChatMessage[];
  /** The Responses API object, as returned; stored redacted. */
  response: Record<string, unknown>;
  createdAt: number;
}

/** Reads never wait; writes reject with StateStoreError "locked" past the store's write deadline. */
export interface ResponseStore {
  /** Saves a response and drops all but the newest `keep`. */
  save(r: StoredResponse, keep: number): Promise<void>;
  get(id: string): StoredResponse | undefined;
  /** Resolves with whether it existed. */
  delete(id: string): Promise<boolean>;
  count(): number;
}
