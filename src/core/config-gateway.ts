/**
 * Settings of the messaging gateway and its platforms (docs/gateway.md). The session-shaping keys
 * (`session_reset`, `group_sessions_per_user`, ...) are top-level, as in the original's config.
 */

export interface SessionResetSettings {
  /** none | idle | daily | both: when a chat's conversation starts over by itself. */
  mode: string;
  /** Minutes of silence after which `idle` starts a new session. */
  idle_minutes: number;
  /** Local hour (0-23) at which `daily` starts a new session. */
  at_hour: number;
}

export interface StreamingSettings {
  /** Stream answers into the chat by editing one message as text arrives. */
  enabled: boolean;
  /** Seconds between two edits of a streamed message (platforms may enforce a longer floor). */
  edit_interval: number;
  /** Characters that must accumulate before the first message is sent. */
  buffer_threshold: number;
}

export interface GatewaySettings {
  /** queue | interrupt | steer: what a message does when its chat's agent is busy. */
  busy_mode: string;
  /** Seconds SIGTERM waits for running turns before persisting them and exiting. */
  drain_timeout: number;
  /** Live agents kept in memory (least recently used ones close first). */
  max_live_agents: number;
  /** Seconds an idle chat's agent stays in memory. */
  agent_idle_ttl: number;
  /** Seconds a platform gets to connect at start-up. */
  platform_connect_timeout: number;
  /** Largest file a user may send (bytes). */
  max_inbound_media_bytes: number;
  /** Total size (MB) of the media caches (files users sent, media tools made); 0 = no limit. */
  media_cache_max_mb: number;
  /** Hours a cached media file is kept; 0 = no limit. */
  media_cache_max_age_hours: number;
  /** Seconds between two typing indicators while a turn runs. */
  typing_interval: number;
  /** V8 old-generation budget (MB) of the gateway and `hermes api serve` processes; 0 = Node's own sizing. */
  max_heap_mb: number;
  /** Each chat user works in a folder of their own (under `workdir_root`) instead of the profile's. */
  user_workdirs: boolean;
  /** Where the chat users' working folders go (`<root>/<platform>/<user id>`); "" = HERMES_HOME/users/<platform>/<user id>/work. */
  workdir_root: string;
  /** All chat users share the profile's MEMORY.md and USER.md (the original's single-owner memory). */
  shared_memory: boolean;
  /** `platform:user_id` of chat users treated as the profile's owner: its folder, memory and processes. */
  admin_users: string[];
}

export interface TelegramSettings {
  enabled: boolean;
  /** Bot API root for a self-hosted Bot API server (default https://api.telegram.org). */
  api_root: string;
  /** polling (default) or webhook. */
  mode: string;
  /** Public URL Telegram posts updates to (webhook mode). */
  webhook_url: string;
  webhook_host: string;
  webhook_port: number;
  /** Secret token Telegram sends with each webhook request. */
  webhook_secret: string;
  /** User ids (or @usernames) allowed to talk to the bot, besides TELEGRAM_ALLOWED_USERS. */
  allowed_users: string[];
  /** Everyone may talk to the bot (no pairing). */
  allow_all_users: boolean;
  /** In groups, answer only when mentioned or replied to. */
  require_mention: boolean;
  /** Stream by message edits (overrides streaming.enabled for this platform). */
  streaming: boolean;
  /** The original's block of platform-specific settings; read too. */
  extra: Record<string, unknown>;
}

export interface ApiServerSettings {
  enabled: boolean;
  host: string;
  port: number;
  /** Bearer key clients must send (API_SERVER_KEY); at least 16 characters. */
  key: string;
  /**
   * More keys, each for one user of its own (`api:<name>`: folder, memory, processes, sessions):
   * a mapping name → key or a list of {name, key}; `env:VAR` reads a key from the environment.
   */
  keys: Record<string, string> | Array<{ name: string; key: string }>;
  /** Runs at once; more wait in a queue (queue_timeout), then get 429 with retry-after. */
  max_concurrent_runs: number;
  /** Seconds a request waits for a run slot before its 429. */
  queue_timeout: number;
  /** Requests that may wait for a run slot at once. */
  max_queued_runs: number;
  /** Origins allowed by CORS (none by default). */
  cors_origins: string[];
  /** The model id clients see. */
  model_name: string;
  /** Responses kept for previous_response_id. */
  max_stored_responses: number;
  extra: Record<string, unknown>;
}

export interface WebhookSettings {
  enabled: boolean;
  host: string;
  port: number;
  /** HMAC-SHA256 secret of routes that have none of their own. */
  secret: string;
  /** Requests per minute per route. */
  rate_limit: number;
  max_body_bytes: number;
  /** Routes by name: POST /webhooks/<name> with secret, prompt template and delivery target. */
  routes: Record<string, unknown>;
  extra: Record<string, unknown>;
}

export interface PlatformsSettings {
  telegram: TelegramSettings;
  api_server: ApiServerSettings;
  webhook: WebhookSettings;
}

/** The gateway's part of HermesConfig (merged into it in config-defaults.ts). */
export interface GatewayConfig {
  gateway: GatewaySettings;
  platforms: PlatformsSettings;
  streaming: StreamingSettings;
  session_reset: SessionResetSettings;
  /** In groups, each participant has a session of their own. */
  group_sessions_per_user: boolean;
  /** In threads, each participant has a session of their own. */
  thread_sessions_per_user: boolean;
  /** pair (answer unknown DMs with a pairing code) | ignore. */
  unauthorized_dm_behavior: string;
  /** Toolsets per platform (`telegram: [hermes-telegram]`); default: the platform's preset. */
  platform_toolsets: Record<string, unknown>;
}

export const GATEWAY_DEFAULTS: GatewayConfig = {
  gateway: {
    busy_mode: "queue",
    drain_timeout: 60,
    max_live_agents: 128,
    agent_idle_ttl: 3600,
    platform_connect_timeout: 30,
    max_inbound_media_bytes: 128 * 1024 * 1024,
    media_cache_max_mb: 1024,
    media_cache_max_age_hours: 168,
    typing_interval: 4,
    max_heap_mb: 1024,
    user_workdirs: true,
    workdir_root: "",
    shared_memory: false,
    admin_users: [],
  },
  platforms: {
    telegram: {
      enabled: false,
      api_root: "",
      mode: "polling",
      webhook_url: "",
      webhook_host: "127.0.0.1",
      webhook_port: 8443,
      webhook_secret: "",
      allowed_users: [],
      allow_all_users: false,
      require_mention: true,
      streaming: true,
      extra: {},
    },
    api_server: {
      enabled: false,
      host: "127.0.0.1",
      port: 8642,
      key: "",
      keys: {},
      max_concurrent_runs: 10,
      queue_timeout: 30,
      max_queued_runs: 100,
      cors_origins: [],
      model_name: "hermes-agent",
      max_stored_responses: 100,
      extra: {},
    },
    webhook: {
      enabled: false,
      host: "0.0.0.0",
      port: 8644,
      secret: "",
      rate_limit: 30,
      max_body_bytes: 1024 * 1024,
      routes: {},
      extra: {},
    },
  },
  streaming: { enabled: true, edit_interval: 0.8, buffer_threshold: 24 },
  session_reset: { mode: "none", idle_minutes: 1440, at_hour: 4 },
  group_sessions_per_user: true,
  thread_sessions_per_user: false,
  unauthorized_dm_behavior: "pair",
  platform_toolsets: {},
};
