/**
 * The provider layer's vocabulary. Messages use the OpenAI chat shape internally (the lingua franca
 * of the seeds); each wire protocol converts at its own boundary. Nothing here knows about tools'
 * implementations or sessions: messages and JSON-schema tool definitions go in, events come out.
 */

/** Wire protocols, not vendors. A vendor is a base URL + headers + quirks on one of these. */
export type ApiMode = "chat_completions" | "anthropic_messages" | "codex_responses" | "bedrock_converse";

export type ProviderName = "auto" | "openrouter" | "anthropic" | "openai" | "nous" | "custom";

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image_url";
  image_url: { url: string };
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface SystemMessage {
  role: "system";
  content: string;
}

export interface UserMessage {
  role: "user";
  content: string | ContentPart[];
}

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
  /** Reasoning text the provider exposed (thinking blocks, reasoning_content). Never sent back as text. */
  reasoning?: string;
  /** Anthropic thinking blocks with signatures, replayed verbatim on the next request. */
  thinking_blocks?: ThinkingBlock[];
  /** Encrypted Responses-API reasoning, replayed so a stateless (store: false) chain keeps it. */
  reasoning_items?: ReasoningItem[];
}

/** One Responses-API reasoning item: opaque to everything but the codex_responses protocol. */
export interface ReasoningItem {
  encrypted_content: string;
  summary: string[];
}

export interface ThinkingBlock {
  type: "thinking" | "redacted_thinking";
  thinking?: string;
  signature?: string;
  data?: string;
}

export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  /** Name of the tool that produced this result (kept for transcripts and summaries). */
  name?: string;
  content: string;
  /**
   * Images the tool returned (data URLs). Sent as image parts where the protocol's tool results
   * can carry them; elsewhere a one-line note says they were left out.
   */
  images?: ImagePart[];
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** OpenAI-format tool definition, as produced by the tool registry. */
export interface ToolDefinition {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  };
}

/**
 * Token counts of one call, normalised across protocols. `inputTokens` is ALL prompt tokens,
 * cached ones included (OpenAI's `prompt_tokens`; Anthropic's input + cache read + cache write), so
 * context-size maths never depends on the protocol; the cache fields say how many of them were
 * read from / written to the prompt cache.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** How hard a reasoning model should think; unset = the provider's default. */
export type ReasoningEffort = "low" | "medium" | "high";

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "aborted" | "error";

/** Everything needed to reach one model on one endpoint. */
export interface ModelTarget {
  provider: ProviderName | string;
  apiMode: ApiMode;
  model: string;
  baseUrl: string;
  apiKey: string;
  /** Output token cap sent with the request; undefined lets the server decide (Anthropic needs one). */
  maxTokens?: number;
  contextLength?: number;
  headers?: Record<string, string>;
  /** Anthropic prompt-cache TTL for the system_and_3 layout. */
  cacheTtl?: "5m" | "1h";
  /** Request timeout in ms for one call. */
  timeoutMs?: number;
  /** Reasoning effort for models that take one (agent.reasoning_effort). */
  reasoningEffort?: ReasoningEffort;
}

/**
 * Whether the model may call the offered tools: "auto" (the default when unset) lets it choose,
 * "none" forbids calls while the tools stay in the request, so the cached prompt prefix still holds.
 */
export type ToolChoice = "auto" | "none";

/** A structured answer a caller asks for: any JSON object, or one matching a JSON schema. */
export type ResponseFormat =
  | { type: "json_object" }
  | {
      type: "json_schema";
      name: string;
      schema: Record<string, unknown>;
      description?: string;
      strict?: boolean;
    };

/**
 * Sampling and output settings one caller asks for (an API server client's `max_tokens`,
 * `temperature`, ...). Unset fields leave the configured or provider's defaults. Each protocol
 * sends what its wire can carry (see `unsupportedParams`).
 */
export interface RequestParams {
  /** Output cap of each model call (instead of model.max_tokens). */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseFormat?: ResponseFormat;
}

/** One model call: sampling and format settings as RequestParams, the output cap on the target. */
export interface LlmRequest extends Omit<RequestParams, "maxTokens"> {
  target: ModelTarget;
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  /** Sent only when set and tools are offered; unset leaves the provider's default (auto). */
  toolChoice?: ToolChoice;
  signal?: AbortSignal;
}

/** Reasons a provider call failed. Closed set: the retry loop switches on it. */
export type FailoverReason =
  | "auth"
  | "auth_permanent"
  | "billing"
  | "rate_limit"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "connection_refused"
  | "context_overflow"
  | "payload_too_large"
  | "image_too_large"
  | "model_not_found"
  | "provider_policy_blocked"
  | "content_policy_blocked"
  | "format_error"
  | "invalid_encrypted_content"
  | "multimodal_tool_content_unsupported"
  | "thinking_signature"
  | "long_context_tier"
  | "oauth_long_context_beta_forbidden"
  | "llama_cpp_grammar_pattern"
  | "aborted"
  | "unknown";

export interface ClassifiedError {
  reason: FailoverReason;
  message: string;
  status?: number;
  retryable: boolean;
  shouldCompress: boolean;
  shouldRotateCredential: boolean;
  shouldFallback: boolean;
  /** Provider-supplied reset time, epoch ms. */
  resetAt?: number;
  /**
   * Retries this failure is worth, when fewer than the configured budget: a local server that
   * refuses connections is not started, so waiting minutes for it only hides that.
   */
  retryLimit?: number;
  /** Base delay of those retries (ms), instead of the configured backoff. */
  retryDelayMs?: number;
}

/** Events of one streamed model call. The stream never throws; it always ends with `done` or `error`. */
export type LlmEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; argumentsDelta: string }
  | { type: "done"; message: AssistantMessage; usage: Usage; finishReason: FinishReason }
  | { type: "error"; error: ClassifiedError; partial?: AssistantMessage; usage?: Usage };

/** One wire protocol's streaming call. Contract: never throws, never rejects; ends with done/error. */
export type StreamFn = (request: LlmRequest) => AsyncIterable<LlmEvent>;

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

export function addUsage(into: Usage, more: Usage): void {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.cacheReadTokens += more.cacheReadTokens;
  into.cacheWriteTokens += more.cacheWriteTokens;
  into.reasoningTokens += more.reasoningTokens;
}
