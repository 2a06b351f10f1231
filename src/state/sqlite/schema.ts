/** Numbered migrations of state.db; `schema_version` records the highest one applied. Append only. */
export const MIGRATIONS: readonly string[] = [
  // 1: sessions, messages, FTS5 (unicode61 words + trigram substrings/CJK) kept in sync by triggers.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    model TEXT,
    provider TEXT,
    title TEXT,
    parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    cwd TEXT,
    system_prompt TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    end_reason TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    message_count INTEGER NOT NULL DEFAULT 0,
    last_active_at INTEGER
  );
  CREATE INDEX idx_sessions_active ON sessions(source, last_active_at DESC);
  CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
  CREATE INDEX idx_sessions_source ON sessions(source, started_at DESC);
  CREATE INDEX idx_sessions_title ON sessions(title);
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT,
    tool_calls TEXT,
    tool_call_id TEXT,
    tool_name TEXT,
    reasoning TEXT,
    extra TEXT,
    created_at INTEGER NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    UNIQUE(session_id, seq)
  );
  CREATE INDEX idx_messages_created ON messages(created_at DESC);
  CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, tool_name, tool_calls, content='messages', content_rowid='id', tokenize='unicode61'
  );
  CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
    content, tool_name, tool_calls, content='messages', content_rowid='id', tokenize='trigram'
  );
  CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
      VALUES (new.id, new.content, new.tool_name, new.tool_calls);
    INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
      VALUES (new.id, new.content, new.tool_name, new.tool_calls);
  END;
  CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
  END;
  CREATE TRIGGER messages_au AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
      VALUES (new.id, new.content, new.tool_name, new.tool_calls);
    INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
      VALUES (new.id, new.content, new.tool_name, new.tool_calls);
  END;
  `,
  // 2: deferred full-text indexing. Inserts no longer feed both FTS5 indexes row by row (one small
  // segment flush per turn made the trigram index most of an insert's cost); the store indexes new
  // rows in batches up to a watermark (fts_state.indexed_upto), always before a search. AUTOINCREMENT
  // ids are never reused, so "id > watermark" is exactly the unindexed rows. Deletes and updates of
  // indexed rows stay in sync through triggers. The created_at index had no reader. No row is touched.
  `
  DROP TRIGGER messages_ai;
  DROP TRIGGER messages_ad;
  DROP TRIGGER messages_au;
  DROP INDEX idx_messages_created;
  CREATE TABLE fts_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_upto INTEGER NOT NULL
  );
  INSERT INTO fts_state (id, indexed_upto) VALUES (1, COALESCE((SELECT MAX(id) FROM messages), 0));
  CREATE TRIGGER messages_ad AFTER DELETE ON messages
  WHEN old.id <= (SELECT indexed_upto FROM fts_state WHERE id = 1) BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
  END;
  CREATE TRIGGER messages_au AFTER UPDATE ON messages
  WHEN old.id <= (SELECT indexed_upto FROM fts_state WHERE id = 1) BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
      VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
      VALUES (new.id, new.content, new.tool_name, new.tool_calls);
    INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
      VALUES (new.id, new.content, new.tool_name, new.tool_calls);
  END;
  `,
  // 3: tool calls a tool made on the model's behalf (execute_code scripts). Part of the transcript,
  // never of the conversation: `after_seq` places each after the message that started its parent.
  `
  CREATE TABLE inner_tool_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    after_seq INTEGER NOT NULL,
    parent_tool TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    args TEXT NOT NULL,
    result TEXT NOT NULL,
    is_error INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX idx_inner_tool_calls_session ON inner_tool_calls(session_id, after_seq);
  `,
  // 4: the messaging gateway and the API server. Sessions remember who they belong to (per-user
  // search in the gateway); gateway_routing maps a chat's session key to its current session; the
  // delivery ledger records every inbound update once and every outbound message before it is sent;
  // api_responses keeps the Responses API's stored responses for previous_response_id chaining.
  `
  ALTER TABLE sessions ADD COLUMN user_id TEXT;
  ALTER TABLE sessions ADD COLUMN chat_id TEXT;
  ALTER TABLE sessions ADD COLUMN session_key TEXT;
  CREATE INDEX idx_sessions_user ON sessions(source, user_id, started_at DESC);
  CREATE TABLE gateway_routing (
    scope TEXT NOT NULL,
    session_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    entry TEXT NOT NULL DEFAULT '{}',
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, session_key)
  );
  CREATE TABLE gateway_inbound (
    platform TEXT NOT NULL,
    update_id TEXT NOT NULL,
    session_key TEXT,
    status TEXT NOT NULL,
    payload TEXT,
    received_at INTEGER NOT NULL,
    finished_at INTEGER,
    PRIMARY KEY (platform, update_id)
  );
  CREATE INDEX idx_gateway_inbound_status ON gateway_inbound(status, received_at);
  CREATE TABLE gateway_outbound (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    idempotency_key TEXT NOT NULL UNIQUE,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    thread_id TEXT,
    session_key TEXT,
    kind TEXT NOT NULL DEFAULT 'text',
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    platform_message_ids TEXT,
    created_at INTEGER NOT NULL,
    sent_at INTEGER
  );
  CREATE INDEX idx_gateway_outbound_status ON gateway_outbound(status, created_at);
  CREATE TABLE api_responses (
    id TEXT PRIMARY KEY,
    previous_response_id TEXT,
    session_id TEXT,
    model TEXT,
    conversation TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX idx_api_responses_created ON api_responses(created_at DESC);
  `,
  // 5: the API server's Idempotency-Key records and chat-completions continuation index, and the
  // indexes that let deleting a session reach every row of it (responses, routes, both new tables).
  // No foreign keys: a session row may still wait in a writer's queue when these are written.
  `
  CREATE INDEX idx_api_responses_session ON api_responses(session_id);
  CREATE INDEX idx_gateway_routing_session ON gateway_routing(session_id);
  CREATE TABLE api_idempotency (
    caller_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    session_id TEXT,
    status TEXT NOT NULL,
    response TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (caller_id, idempotency_key)
  );
  CREATE INDEX idx_api_idempotency_created ON api_idempotency(created_at);
  CREATE INDEX idx_api_idempotency_session ON api_idempotency(session_id);
  CREATE TABLE api_continuations (
    caller_id TEXT NOT NULL,
    prefix_hash TEXT NOT NULL,
    session_id TEXT NOT NULL,
    message_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (caller_id, prefix_hash)
  );
  CREATE INDEX idx_api_continuations_session ON api_continuations(session_id);
  `,
  // 6: DM pairing, formerly JSON files in platforms/pairing/ (imported once by pairing-import.ts, in
  // this migration's transaction): approved users, waiting codes (salted hashes only), when each
  // stranger last got a reply, failed approvals and lockouts, allowlist handles pinned to accounts.
  `
  CREATE TABLE pairing_approved (
    platform TEXT NOT NULL,
    user_id TEXT NOT NULL,
    user_name TEXT,
    approved_at INTEGER NOT NULL,
    PRIMARY KEY (platform, user_id)
  );
  CREATE TABLE pairing_pending (
    platform TEXT NOT NULL,
    user_id TEXT NOT NULL,
    user_name TEXT,
    salt TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (platform, user_id)
  );
  CREATE TABLE pairing_requests (
    platform TEXT NOT NULL,
    user_id TEXT NOT NULL,
    replied_at INTEGER NOT NULL,
    PRIMARY KEY (platform, user_id)
  );
  CREATE TABLE pairing_lockouts (
    platform TEXT PRIMARY KEY,
    failures INTEGER NOT NULL DEFAULT 0,
    locked_until INTEGER
  );
  CREATE TABLE pairing_handles (
    platform TEXT NOT NULL,
    handle TEXT NOT NULL,
    user_id TEXT NOT NULL,
    pinned_at INTEGER NOT NULL,
    PRIMARY KEY (platform, handle)
  );
  `,
  // 7: ledger rows know their session, so deleting a session reaches its inbound payloads and
  // outbound bodies (rows written before this carry none and age out with the retention window).
  `
  ALTER TABLE gateway_inbound ADD COLUMN session_id TEXT;
  ALTER TABLE gateway_outbound ADD COLUMN session_id TEXT;
  CREATE INDEX idx_gateway_inbound_session ON gateway_inbound(session_id);
  CREATE INDEX idx_gateway_outbound_session ON gateway_outbound(session_id);
  `,
];
