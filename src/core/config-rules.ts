/**
 * Constraints beyond "same type as the default". Keyed by dotted path. Each rule returns an error
 * message (for the user, naming what is allowed) or undefined when the value is fine.
 */

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

export const CONFIG_RULES: Record<string, Rule> = {
  "model.provider": oneOf(...PROVIDERS),
  "model.api_mode": oneOf(...API_MODES),
  "model.context_length": intAtLeast(0),
  "model.max_tokens": intAtLeast(0),
  "agent.max_turns": intAtLeast(1),
  "agent.tool_use_enforcement": oneOf("auto", true, false),
  "agent.api_timeout": numberAbove(0),
  "agent.api_max_retries": intAtLeast(0),
  "terminal.backend": oneOf("local"),
  "terminal.timeout": numberAbove(0),
  "tool_output.max_bytes": intAtLeast(1000),
  "tool_output.max_lines": intAtLeast(10),
  "tool_output.max_line_length": intAtLeast(80),
  file_read_max_chars: intAtLeast(1000),
  "prompt_caching.cache_ttl": oneOf("5m", "1h"),
};

/** Keys whose value may have a different type than the default (checked by their rule instead). */
export const FREE_TYPED_KEYS = new Set(["agent.tool_use_enforcement"]);
