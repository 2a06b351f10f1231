import { GATEWAY_DEFAULTS, type GatewayConfig } from "./config-gateway.js";
/**
 * config.yaml defaults. Every key here is documented in docs/configuration.md; the validator uses
 * these values' types as the schema, plus the constraints in `config-rules.ts`.
 */

export interface ModelSettings {
  /** Model id sent to the provider. */
  default: string;
  provider: string;
  base_url: string;
  api_key: string;
  /** "" = auto-detect from provider and base URL. */
  api_mode: string;
  /** 0 = look up / let the provider decide. */
  context_length: number;
  /** 0 = provider default (Anthropic requires a value: 8192 is sent). */
  max_tokens: number;
}

/** Repeat counts per loop pattern (tool_loop_guardrails.warn_after / hard_stop_after). */
export interface GuardrailThresholds {
  /** The same tool with the same arguments failing. */
  exact_failure: number;
  /** One tool failing in a row, whatever the arguments. */
  same_tool_failure: number;
  /** A read-only call returning the same result again. */
  idempotent_no_progress: number;
}

/** One `fallback_providers` item. */
export interface FallbackProvider {
  provider: string;
  model: string;
  base_url?: string;
  api_key?: string;
  api_mode?: string;
}

/** Hook points where plugins and shell commands may watch or steer the agent (docs/plugins.md). */
export const HOOK_NAMES = [
  "pre_tool_call",
  "post_tool_call",
  "transform_tool_result",
  "transform_terminal_output",
  "transform_llm_output",
  "pre_llm_call",
  "post_llm_call",
  "pre_api_request",
  "post_api_request",
  "api_request_error",
  "on_session_start",
  "on_session_end",
  "on_session_finalize",
  "on_session_reset",
  "subagent_start",
  "subagent_stop",
  "pre_approval_request",
  "post_approval_response",
] as const;

export type HookName = (typeof HOOK_NAMES)[number];

/** One `hooks.<name>` item: a shell command, or one with a tool filter and its own time limit. */
export type HookCommandEntry = string | { command: string; matcher?: string; timeout?: number };

/** `hooks`: seconds each hook may take, and the shell commands of each hook point. */
export type HookSettings = { timeout: number } & Record<HookName, HookCommandEntry[]>;

export interface PluginSettings {
  /** Plugins that load (by name); a plugin in `disabled` stays off even when listed here. */
  enabled: string[];
  disabled: string[];
  /** Each plugin's own settings, `config.<plugin>` (what the plugin reads as `api.config`). */
  config: Record<string, unknown>;
}

export interface HermesConfig extends GatewayConfig {
  model: ModelSettings;
  /** Toolsets enabled when no `-t` flag is given. */
  toolsets: string[];
  /** MCP servers by name (docs/mcp.md): command/args/env/cwd or url/headers, timeouts, tool filters. */
  mcp_servers: Record<string, unknown>;
  /** Seconds the first request waits for MCP servers to connect; later ones join the next session. */
  mcp_discovery_timeout: number;
  /** Plugins under HERMES_HOME/plugins (docs/plugins.md): which load, and each one's settings. */
  plugins: PluginSettings;
  /** Shell commands run at hook points (docs/plugins.md), one list per hook; `timeout` in seconds. */
  hooks: HookSettings;
  /** Providers tried in order when the primary cannot answer (model missing, auth, limits). */
  fallback_providers: FallbackProvider[];
  /** Provider → fill_first | round_robin | random | least_used, for keys pooled in auth.json. */
  credential_pool_strategies: Record<string, string>;
  agent: {
    max_turns: number;
    disabled_toolsets: string[];
    /** auto | true | false: the "use your tools" block for GPT/Gemini/Grok/GLM models. */
    tool_use_enforcement: string | boolean;
    api_timeout: number;
    api_max_retries: number;
    /** Seconds before the first retry of a failed model call; doubles per retry (with jitter). */
    retry_base_delay: number;
    save_trajectories: boolean;
    /** "" = provider default; low | medium | high for reasoning models. */
    reasoning_effort: string;
    /** Seconds the clarify tool waits for the user's answer. */
    clarify_timeout: number;
  };
  /** Persistent memory: MEMORY.md (agent notes) and USER.md (user profile) in HERMES_HOME/memories. */
  memory: {
    memory_enabled: boolean;
    user_profile_enabled: boolean;
    /** Characters MEMORY.md may hold. */
    memory_char_limit: number;
    /** Characters USER.md may hold. */
    user_char_limit: number;
  };
  /** Context compression (docs/compression.md). */
  compression: {
    enabled: boolean;
    /** Fraction of the context window at which the conversation is compressed. */
    threshold: number;
    /** Protected tail size as a fraction of the threshold. */
    target_ratio: number;
    /** Messages after the system prompt that are never compressed. */
    protect_first_n: number;
    /** Most messages the protected tail keeps verbatim. */
    protect_last_n: number;
    /** Keep the history unchanged when the summary fails (instead of dropping the middle with a note). */
    abort_on_summary_failure: boolean;
    /** Compress once the conversation holds more messages than this (0 = never by count). */
    hygiene_hard_message_limit: number;
  };
  /** Repeated failing or no-progress tool calls (docs/tools.md, "Tool-loop guardrails"). */
  tool_loop_guardrails: {
    /** Append guidance to a tool result once a loop pattern reaches its warn threshold. */
    warnings_enabled: boolean;
    /** Refuse calls (block) or end the turn (halt) past the hard-stop thresholds. */
    hard_stop_enabled: boolean;
    warn_after: GuardrailThresholds;
    hard_stop_after: GuardrailThresholds;
  };
  /** Subagents started by delegate_task. */
  delegation: {
    /** Model for children; "" = the parent's. */
    model: string;
    /** Provider for children; "" = the parent's. */
    provider: string;
    /** Endpoint for delegation.provider (custom servers); "" = the provider's default. */
    base_url: string;
    /** Iteration budget of each child (independent of the parent's). */
    max_iterations: number;
    /** Children of one delegate_task call running at once. */
    max_concurrent_children: number;
    /** Depth of the delegation tree (1 = only the top agent delegates; at most 3). */
    max_spawn_depth: number;
    /** Whether role "orchestrator" may keep delegate_task (within max_spawn_depth). */
    orchestrator_enabled: boolean;
    /** Hard limit per child in seconds; 0 = none. */
    child_timeout_seconds: number;
    /** Characters of a child's summary handed back to the parent. */
    max_summary_chars: number;
    /** Seconds between checks on a child's progress. */
    heartbeat_interval: number;
    /** Checks without progress before a child waiting on the model is reported stale. */
    heartbeat_stale_cycles_idle: number;
    /** Checks without progress before a child stuck inside one tool is reported stale. */
    heartbeat_stale_cycles_in_tool: number;
  };
  /** execute_code: scripts that call tools over a local socket. */
  code_execution: {
    /** project: the script runs in the session's working directory; strict: in a private temp dir. */
    mode: string;
    /** Seconds before the script is stopped (SIGTERM, then SIGKILL 5 s later). */
    timeout: number;
    /** Tool calls one script may make; later calls get an error. */
    max_tool_calls: number;
  };
  tools: {
    /** The tool search bridge (docs/tools.md, "Tool search"). */
    tool_search: {
      /** auto | on | off (true/false too): put MCP and plugin schemas behind three bridge tools. */
      enabled: string | boolean;
      /** auto defers when the deferrable schemas exceed this % of the context window. */
      threshold_pct: number;
      /** Matches tool_search returns when the model gives no limit. */
      search_default_limit: number;
      /** The most matches one tool_search returns. */
      max_search_limit: number;
    };
  };
  terminal: {
    /** local | ssh | docker */
    backend: string;
    cwd: string;
    timeout: number;
    env_passthrough: string[];
    ssh_host: string;
    ssh_user: string;
    ssh_port: number;
    /** Identity file; "" = ssh's defaults and agent. */
    ssh_key: string;
    docker_image: string;
    /** CPUs of a docker container. */
    container_cpu: number;
    /** MB of memory of a docker container. */
    container_memory: number;
    /** `host:container[:ro]` mounts. */
    docker_volumes: string[];
    docker_mount_cwd_to_workspace: boolean;
  };
  tool_output: {
    max_bytes: number;
    max_lines: number;
    max_line_length: number;
  };
  file_read_max_chars: number;
  prompt_caching: {
    cache_ttl: string;
  };
  display: {
    show_reasoning: boolean;
    tool_progress: boolean;
  };
  /** Dangerous-command approval (docs/tools.md). */
  approvals: {
    /** smart (a side model clears low-risk commands) | manual (always ask) | off (never ask). */
    mode: string;
    /** Seconds an approval prompt waits before denying. */
    timeout: number;
    /** Seconds an approval asked in a chat (buttons, /approve) waits before denying. */
    gateway_timeout: number;
  };
  /** Pattern keys approved for good ("always" at the prompt adds here). */
  command_allowlist: string[];
  security: {
    /** Replace API keys and tokens in tool results with [REDACTED:name]. */
    redact_secrets: boolean;
    /** Let web tools reach loopback, private and CGNAT addresses (cloud metadata stays refused). */
    allow_private_urls: boolean;
    /** Sites web tools refuse: hosts (subdomains included) or `*.host` patterns. */
    website_blocklist: {
      enabled: boolean;
      domains: string[];
      /** Files of rules, one a line (`#` comments); relative paths are under HERMES_HOME. */
      shared_files: string[];
    };
  };
  /** web_search and web_extract (docs/tools.md, "Web"). */
  web: {
    /** Search backend used when search_backend is empty. */
    backend: string;
    /** searxng | duckduckgo | brave | tavily | exa | firecrawl; "" = the first usable one. */
    search_backend: string;
    /** Base URL of a SearXNG instance with its JSON format enabled ("" = SEARXNG_URL from .env). */
    searxng_url: string;
    /** Characters of one page web_extract returns whole; longer pages come back as head + tail. */
    extract_char_limit: number;
    /** Seconds one page may take to arrive, redirects included. */
    extract_timeout: number;
    /** Bytes of one page read at most; the rest is never downloaded. */
    extract_max_bytes: number;
    /** Redirects followed for one page. */
    max_redirects: number;
  };
  /** The browser tools (docs/tools.md, "Browser"). */
  browser: {
    /** Chromium or Chrome binary; "" = chromium (or chromium-browser, google-chrome) on PATH. */
    executable_path: string;
    /** DevTools URL of a running Chrome to attach to instead of launching one ("" = launch). */
    cdp_url: string;
    /** Seconds without a browser call after which a task's browser closes. */
    inactivity_timeout: number;
    /** Characters of a page snapshot returned whole; longer ones are cut with a note. */
    snapshot_max_chars: number;
    /** Summarise long snapshots with the auxiliary web_extract model instead of cutting them. */
    summarize_snapshots: boolean;
  };
  /** vision_analyze (docs/tools.md, "Vision"). */
  vision: {
    /** auto (the model catalog says whether the main model takes images) | true | false. */
    native: string | boolean;
  };
  /** image_generate (docs/tools.md, "Media"). */
  image_gen: {
    /** openai | fal; "" = the first with a key (OPENAI_API_KEY, FAL_KEY). */
    provider: string;
    /** "" = the backend's default model. */
    model: string;
    /** "" = https://api.openai.com/v1 (OPENAI_BASE_URL when set). */
    openai_base_url: string;
    /** "" = https://fal.run. */
    fal_base_url: string;
  };
  /** text_to_speech (docs/tools.md, "Media"). */
  tts: {
    /** openai | espeak; "" = OpenAI with a key, else espeak-ng when installed. */
    provider: string;
    /** "" = the backend's default voice. */
    voice: string;
    /** "" = https://api.openai.com/v1 (OPENAI_BASE_URL when set). */
    openai_base_url: string;
  };
  /** Side-task models (seed 004 §16): one block per task. */
  auxiliary: Record<AuxiliaryTask, AuxiliaryTaskSettings>;
  /** Stored sessions (state.db). */
  sessions: {
    /** chat (interactive chat on a terminal) | always (one-shots and piped input too) | off. */
    auto_title: string;
  } /** Skills: procedural memory under HERMES_HOME/skills (docs/skills.md). */;
  skills: {
    /** More folders of skills, read-only (listed after the home's own). */
    external_dirs: string[];
    /** Replace ${HERMES_SKILL_DIR} and ${HERMES_SESSION_ID} in a loaded skill. */
    template_vars: boolean;
    /** Run !`cmd` snippets of a loaded skill and put their output in its place. */
    inline_shell: boolean;
    /** Seconds one inline snippet may run. */
    inline_shell_timeout: number;
    /** Scan skills the agent writes with the install scanner. */
    guard_agent_created: boolean;
    /** Ask the user before skill_manage changes anything. */
    write_approval: boolean;
    /** Tool calls in one turn after which a background review may save a skill (0 = never). */
    creation_nudge_interval: number;
    /** Skills hidden everywhere (names). */
    disabled: string[];
    /** Skills hidden on one platform: platform → names. */
    platform_disabled: Record<string, string[]>;
    /** Extra install sources trusted like the built-in trusted ones (URL or owner/repo prefixes). */
    trusted_sources: string[];
    /** Values of settings that skills declare (metadata.hermes.config): key → value. */
    config: Record<string, unknown>;
  };
  /** Upkeep of agent-created skills: unused ones are archived, never deleted. */
  curator: {
    enabled: boolean;
    /** Hours between scheduled runs. */
    interval_hours: number;
    /** Hours the agent must be idle before a scheduled run. */
    min_idle_hours: number;
    /** Days without use after which a skill is reported stale. */
    stale_after_days: number;
    /** Days without use after which a skill is archived. */
    archive_after_days: number;
    /** Merge overlapping skills (uses the auxiliary model). */
    consolidate: boolean;
    /** Bundled skills may be archived too. */
    prune_builtins: boolean;
    backup: {
      enabled: boolean;
      /** Backups kept. */
      keep: number;
    };
  };
}

/** Side tasks that may use a cheaper model than the main one. */
export const AUXILIARY_TASKS = [
  "compression",
  "vision",
  "web_extract",
  "title_generation",
  "approval",
  "session_search",
  "skills",
] as const;

export type AuxiliaryTask = (typeof AUXILIARY_TASKS)[number];

export interface AuxiliaryTaskSettings {
  /** auto = the resolution chain; main | openrouter | anthropic | openai | nous | custom pins one. */
  provider: string;
  /** "" = the provider's cheap default (or the main model for the main provider). */
  model: string;
  base_url: string;
  api_key: string;
  /** Seconds per call; 0 = 60. */
  timeout: number;
  /** Output cap per call; 0 = the task's default. */
  max_tokens: number;
}

const auxiliaryDefaults = (): AuxiliaryTaskSettings => ({
  provider: "auto",
  model: "",
  base_url: "",
  api_key: "",
  timeout: 0,
  max_tokens: 0,
});

export const DEFAULT_CONFIG: HermesConfig = {
  ...GATEWAY_DEFAULTS,
  model: {
    default: "",
    provider: "auto",
    base_url: "",
    api_key: "",
    api_mode: "",
    context_length: 0,
    max_tokens: 0,
  },
  toolsets: ["hermes-cli"],
  mcp_servers: {},
  mcp_discovery_timeout: 1.5,
  plugins: { enabled: [], disabled: [], config: {} },
  hooks: {
    timeout: 5,
    ...(Object.fromEntries(HOOK_NAMES.map((name): [HookName, HookCommandEntry[]] => [name, []])) as Record<
      HookName,
      HookCommandEntry[]
    >),
  },
  fallback_providers: [],
  credential_pool_strategies: {},
  agent: {
    max_turns: 90,
    disabled_toolsets: [],
    tool_use_enforcement: "auto",
    api_timeout: 600,
    api_max_retries: 3,
    retry_base_delay: 5,
    save_trajectories: false,
    reasoning_effort: "",
    clarify_timeout: 3600,
  },
  compression: {
    enabled: true,
    threshold: 0.5,
    target_ratio: 0.2,
    protect_first_n: 3,
    protect_last_n: 20,
    abort_on_summary_failure: false,
    hygiene_hard_message_limit: 5000,
  },
  tool_loop_guardrails: {
    warnings_enabled: true,
    hard_stop_enabled: false,
    warn_after: { exact_failure: 2, same_tool_failure: 3, idempotent_no_progress: 2 },
    hard_stop_after: { exact_failure: 5, same_tool_failure: 8, idempotent_no_progress: 5 },
  },
  memory: {
    memory_enabled: true,
    user_profile_enabled: true,
    memory_char_limit: 2200,
    user_char_limit: 1375,
  },
  delegation: {
    model: "",
    provider: "",
    base_url: "",
    max_iterations: 50,
    max_concurrent_children: 3,
    max_spawn_depth: 1,
    orchestrator_enabled: true,
    child_timeout_seconds: 600,
    max_summary_chars: 24000,
    heartbeat_interval: 30,
    heartbeat_stale_cycles_idle: 15,
    heartbeat_stale_cycles_in_tool: 40,
  },
  code_execution: {
    mode: "project",
    timeout: 300,
    max_tool_calls: 50,
  },
  tools: {
    tool_search: { enabled: "auto", threshold_pct: 10, search_default_limit: 5, max_search_limit: 20 },
  },
  terminal: {
    backend: "local",
    cwd: ".",
    timeout: 180,
    env_passthrough: [],
    ssh_host: "",
    ssh_user: "",
    ssh_port: 22,
    ssh_key: "",
    docker_image: "nikolaik/python-nodejs:python3.11-nodejs20",
    container_cpu: 1,
    container_memory: 5120,
    docker_volumes: [],
    docker_mount_cwd_to_workspace: false,
  },
  tool_output: {
    max_bytes: 50_000,
    max_lines: 2_000,
    max_line_length: 2_000,
  },
  file_read_max_chars: 100_000,
  prompt_caching: {
    cache_ttl: "5m",
  },
  display: {
    show_reasoning: false,
    tool_progress: true,
  },
  approvals: {
    mode: "smart",
    timeout: 60,
    gateway_timeout: 300,
  },
  command_allowlist: [],
  security: {
    redact_secrets: true,
    allow_private_urls: false,
    website_blocklist: {
      enabled: true,
      domains: [],
      shared_files: [],
    },
  },
  web: {
    backend: "",
    search_backend: "",
    searxng_url: "",
    extract_char_limit: 15_000,
    extract_timeout: 30,
    extract_max_bytes: 10_000_000,
    max_redirects: 5,
  },
  browser: {
    executable_path: "",
    cdp_url: "",
    inactivity_timeout: 120,
    snapshot_max_chars: 8000,
    summarize_snapshots: false,
  },
  vision: { native: "auto" },
  image_gen: { provider: "", model: "", openai_base_url: "", fal_base_url: "" },
  tts: { provider: "", voice: "", openai_base_url: "" },
  auxiliary: {
    compression: auxiliaryDefaults(),
    vision: auxiliaryDefaults(),
    web_extract: auxiliaryDefaults(),
    title_generation: auxiliaryDefaults(),
    approval: auxiliaryDefaults(),
    session_search: auxiliaryDefaults(),
    skills: auxiliaryDefaults(),
  },
  sessions: {
    auto_title: "chat",
  },
  skills: {
    external_dirs: [],
    template_vars: true,
    inline_shell: false,
    inline_shell_timeout: 10,
    guard_agent_created: false,
    write_approval: false,
    creation_nudge_interval: 10,
    disabled: [],
    platform_disabled: {},
    trusted_sources: [],
    config: {},
  },
  curator: {
    enabled: true,
    interval_hours: 168,
    min_idle_hours: 2,
    stale_after_days: 30,
    archive_after_days: 90,
    consolidate: false,
    prune_builtins: true,
    backup: {
      enabled: true,
      keep: 5,
    },
  },
};
