/**
 * Constraints beyond "same type as the default". Keyed by dotted path. Each rule returns an error
 * message (for the user, naming what is allowed) or undefined when the value is fine.
 */

import { AUXILIARY_TASKS, HOOK_NAMES } from "./config-defaults.js";
import { isRecord } from "./is-record.js";

/** Returns a message for the user (what is allowed) or undefined when the value is fine. */
export type Rule = (value: unknown) => string | undefined;

export const oneOf =
  (...allowed: readonly (string | boolean)[]): Rule =>
  (v) =>
    allowed.includes(v as string | boolean)
      ? undefined
      : `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;

export const intAtLeast =
  (min: number): Rule =>
  (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min ? undefined : `must be an integer >= ${min}`;

export const numberAtLeast =
  (min: number): Rule =>
  (v) =>
    typeof v === "number" && v >= min ? undefined : `must be a number >= ${min}`;

export const numberAbove =
  (min: number): Rule =>
  (v) =>
    typeof v === "number" && v > min ? undefined : `must be a number > ${min}`;

export const PROVIDERS = ["auto", "openrouter", "anthropic", "openai", "nous", "custom"] as const;
export const API_MODES = [
  "",
  "chat_completions",
  "anthropic_messages",
  "codex_responses",
  "bedrock_converse",
] as const;

const FALLBACK_KEYS = ["provider", "model", "base_url", "api_key", "api_mode"];
const POOL_STRATEGIES = ["fill_first", "round_robin", "random", "least_used"];

/** Each fallback names a known provider and a model; custom ones need a base_url. */
function fallbackProvidersRule(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "must be a list";
  for (const [i, item] of value.entries()) {
    const at = `item ${i + 1}`;
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return `${at} must be a mapping like {provider: openrouter, model: some/model}`;
    const entry = item as Record<string, unknown>;
    const unknown = Object.keys(entry).filter((k) => !FALLBACK_KEYS.includes(k));
    if (unknown.length > 0)
      return `${at} has unknown key '${unknown[0]}' (allowed: ${FALLBACK_KEYS.join(", ")})`;
    for (const k of FALLBACK_KEYS) {
      if (entry[k] !== undefined && typeof entry[k] !== "string") return `${at}: '${k}' must be a string`;
    }
    const provider = typeof entry.provider === "string" ? entry.provider.trim() : "";
    const allowed = PROVIDERS.filter((p) => p !== "auto");
    if (!provider) return `${at} needs 'provider' (one of ${allowed.join(", ")})`;
    if (!(allowed as readonly string[]).includes(provider))
      return `${at}: provider must be one of ${allowed.join(", ")}`;
    if (typeof entry.model !== "string" || !entry.model.trim()) return `${at} needs 'model'`;
    if (provider === "custom" && !(typeof entry.base_url === "string" && entry.base_url.trim()))
      return `${at}: a custom provider needs 'base_url'`;
    if (typeof entry.base_url === "string" && entry.base_url && !/^https?:\/\//.test(entry.base_url))
      return `${at}: base_url must start with http:// or https://`;
    const mode = entry.api_mode;
    if (typeof mode === "string" && !(API_MODES as readonly string[]).includes(mode))
      return `${at}: api_mode must be one of ${API_MODES.filter(Boolean).join(", ")}`;
  }
  return undefined;
}

/** provider → strategy; the keys are provider names chosen by the user. */
function poolStrategiesRule(value: unknown): string | undefined {
  for (const [provider, strategy] of Object.entries(value as Record<string, unknown>)) {
    if (typeof strategy !== "string" || !POOL_STRATEGIES.includes(strategy))
      return `'${provider}' must be one of ${POOL_STRATEGIES.join(", ")}`;
  }
  return undefined;
}

/** platform → list of skill names. */
function platformDisabledRule(value: unknown): string | undefined {
  for (const [platform, names] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(names) || names.some((n) => typeof n !== "string"))
      return `'${platform}' must be a list of skill names`;
  }
  return undefined;
}

export const CONFIG_RULES: Record<string, Rule> = {
  "gateway.busy_mode": oneOf("queue", "interrupt", "steer"),
  "gateway.drain_timeout": numberAtLeast(0),
  "gateway.max_live_agents": intAtLeast(1),
  "gateway.agent_idle_ttl": numberAbove(0),
  "gateway.max_heap_mb": intAtLeast(0),
  "gateway.media_cache_max_mb": numberAtLeast(0),
  "gateway.media_cache_max_age_hours": numberAtLeast(0),
  "gateway.admin_users": (v) =>
    Array.isArray(v) && v.every((u) => typeof u === "string" && /^[^:\s]+:\S+$/.test(u))
      ? undefined
      : "must be a list of platform:user_id entries (telegram:123456789)",
  "session_reset.mode": oneOf("none", "idle", "daily", "both"),
  "session_reset.idle_minutes": intAtLeast(1),
  "session_reset.at_hour": (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 23 ? undefined : "must be an hour 0-23",
  unauthorized_dm_behavior: oneOf("pair", "ignore"),
  "streaming.edit_interval": numberAbove(0),
  "platforms.telegram.mode": oneOf("polling", "webhook"),
  // Telegram ids are numbers: written unquoted in YAML they stay allowed.
  "platforms.telegram.allowed_users": (v) =>
    Array.isArray(v) &&
    v.every((u) => typeof u === "string" || (typeof u === "number" && Number.isInteger(u)))
      ? undefined
      : "must be a list of user ids or @usernames",
  "platforms.api_server.port": intAtLeast(0),
  "platforms.api_server.max_concurrent_runs": intAtLeast(1),
  "platforms.api_server.queue_timeout": numberAtLeast(0),
  "platforms.api_server.max_queued_runs": intAtLeast(1),
  "platforms.api_server.keys": apiKeysRule,
  "platforms.webhook.port": intAtLeast(0),
  "approvals.gateway_timeout": numberAbove(0),
  "model.provider": oneOf(...PROVIDERS),
  "model.api_mode": oneOf(...API_MODES),
  "model.context_length": intAtLeast(0),
  "model.max_tokens": intAtLeast(0),
  "agent.max_turns": intAtLeast(1),
  "agent.tool_use_enforcement": oneOf("auto", true, false),
  "agent.api_timeout": numberAbove(0),
  "agent.api_max_retries": intAtLeast(0),
  "agent.retry_base_delay": numberAbove(0),
  fallback_providers: fallbackProvidersRule,
  credential_pool_strategies: poolStrategiesRule,
  "terminal.backend": oneOf("local", "ssh", "docker"),
  "terminal.timeout": numberAbove(0),
  "terminal.ssh_port": intAtLeast(1),
  "terminal.container_cpu": numberAbove(0),
  "terminal.container_memory": intAtLeast(64),
  "memory.memory_char_limit": intAtLeast(100),
  "compression.threshold": (v) =>
    typeof v === "number" && v > 0 && v < 1 ? undefined : "must be a number between 0 and 1 (exclusive)",
  "compression.target_ratio": (v) =>
    typeof v === "number" && v > 0 && v < 1 ? undefined : "must be a number between 0 and 1 (exclusive)",
  "compression.protect_first_n": intAtLeast(0),
  "compression.protect_last_n": intAtLeast(3),
  "compression.hygiene_hard_message_limit": intAtLeast(0),
  "tool_loop_guardrails.warn_after.exact_failure": intAtLeast(1),
  "tool_loop_guardrails.warn_after.same_tool_failure": intAtLeast(1),
  "tool_loop_guardrails.warn_after.idempotent_no_progress": intAtLeast(1),
  "tool_loop_guardrails.hard_stop_after.exact_failure": intAtLeast(1),
  "tool_loop_guardrails.hard_stop_after.same_tool_failure": intAtLeast(1),
  "tool_loop_guardrails.hard_stop_after.idempotent_no_progress": intAtLeast(1),
  "agent.clarify_timeout": intAtLeast(1),
  "memory.user_char_limit": intAtLeast(100),
  "delegation.provider": oneOf("", ...PROVIDERS.filter((p) => p !== "auto")),
  "delegation.max_iterations": intAtLeast(1),
  "delegation.max_concurrent_children": intAtLeast(1),
  "delegation.max_spawn_depth": (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 3 ? undefined : "must be 1, 2 or 3",
  "delegation.child_timeout_seconds": numberAtLeast(0),
  "delegation.max_summary_chars": intAtLeast(200),
  "delegation.heartbeat_interval": numberAbove(0),
  "delegation.heartbeat_stale_cycles_idle": intAtLeast(1),
  "delegation.heartbeat_stale_cycles_in_tool": intAtLeast(1),
  "code_execution.mode": oneOf("project", "strict"),
  "code_execution.timeout": numberAbove(0),
  "code_execution.max_tool_calls": intAtLeast(1),
  "tools.tool_search.enabled": oneOf("auto", "on", "off", true, false),
  "tools.tool_search.threshold_pct": (v) =>
    typeof v === "number" && v >= 0 && v <= 100 ? undefined : "must be a number from 0 to 100",
  "tools.tool_search.search_default_limit": intAtLeast(1),
  "tools.tool_search.max_search_limit": intAtLeast(1),
  "tool_output.max_bytes": intAtLeast(1000),
  "tool_output.max_lines": intAtLeast(10),
  "tool_output.max_line_length": intAtLeast(80),
  file_read_max_chars: intAtLeast(1000),
  "prompt_caching.cache_ttl": oneOf("5m", "1h"),
  "approvals.mode": oneOf("smart", "manual", "off"),
  "approvals.timeout": numberAbove(0),
  "agent.reasoning_effort": oneOf("", "low", "medium", "high"),
  "sessions.auto_title": oneOf("chat", "always", "off"),
  "skills.inline_shell_timeout": numberAbove(0),
  "skills.creation_nudge_interval": intAtLeast(0),
  "skills.platform_disabled": platformDisabledRule,
  "curator.interval_hours": numberAbove(0),
  "curator.min_idle_hours": numberAtLeast(0),
  "curator.stale_after_days": numberAtLeast(0),
  "curator.archive_after_days": numberAbove(0),
  "curator.backup.keep": intAtLeast(0),
  "browser.inactivity_timeout": numberAbove(0),
  "browser.snapshot_max_chars": intAtLeast(500),
  "vision.native": oneOf("auto", true, false),
  "image_gen.provider": oneOf("", "openai", "fal"),
  "tts.provider": oneOf("", "openai", "espeak"),
  "hooks.timeout": numberAbove(0),
  ...Object.fromEntries(HOOK_NAMES.map((name): [string, Rule] => [`hooks.${name}`, hookEntriesRule])),
  ...Object.fromEntries(
    AUXILIARY_TASKS.flatMap((task): [string, Rule][] => [
      [`auxiliary.${task}.provider`, oneOf("auto", "main", ...PROVIDERS.filter((p) => p !== "auto"))],
      [`auxiliary.${task}.timeout`, numberAtLeast(0)],
      [`auxiliary.${task}.max_tokens`, intAtLeast(0)],
    ]),
  ),
};

/** `hooks.<name>`: shell commands, each a string or {command, matcher?, timeout?}. */
function hookEntriesRule(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "must be a list";
  for (const [i, item] of value.entries()) {
    if (typeof item === "string" && item.trim()) continue;
    if (!isRecord(item) || typeof item.command !== "string" || !item.command.trim())
      return `item ${i + 1} must be a command, or a mapping like {command: ~/hooks/check.sh, matcher: terminal}`;
    const extra = Object.keys(item).filter((k) => !["command", "matcher", "timeout"].includes(k));
    if (extra.length > 0)
      return `item ${i + 1} has unknown key '${extra[0]}' (allowed: command, matcher, timeout)`;
    if (item.matcher !== undefined && typeof item.matcher !== "string")
      return `item ${i + 1}: 'matcher' must be a regular expression (a string)`;
    if (item.timeout !== undefined && !(typeof item.timeout === "number" && item.timeout > 0))
      return `item ${i + 1}: 'timeout' must be a number of seconds > 0`;
  }
  return undefined;
}

/** `platforms.api_server.keys`: name → key, or a list of {name, key}. */
function apiKeysRule(value: unknown): string | undefined {
  const usage = "must be a mapping of name: key, or a list of {name, key}";
  if (Array.isArray(value))
    return value.every(
      (item) => isRecord(item) && typeof item.name === "string" && typeof item.key === "string",
    )
      ? undefined
      : usage;
  if (isRecord(value)) return Object.values(value).every((k) => typeof k === "string") ? undefined : usage;
  return usage;
}

/** Keys whose value may have a different type than the default (checked by their rule instead). */
export const FREE_TYPED_KEYS = new Set([
  "platforms.api_server.keys",
  "agent.tool_use_enforcement",
  "tools.tool_search.enabled",
  "vision.native",
]);
