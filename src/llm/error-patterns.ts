/**
 * Phrases vendors use in error bodies, grouped by what they mean. Matched case-insensitively
 * against ErrorFacts.text. Each list names where its phrases come from, so a new vendor wording
 * is one line here rather than a new branch in the classifier.
 */

export const hasAny = (text: string, patterns: readonly string[]): boolean =>
  patterns.some((p) => text.includes(p));

/** Anthropic: a replayed thinking block was altered or its signature no longer verifies. */
export const THINKING_PATTERNS = ["signature", "cannot be modified", "must remain as they were"];

/** llama.cpp's json-schema-to-grammar rejects regex features in tool parameter schemas. */
export const GRAMMAR_PATTERNS = [
  "error parsing grammar",
  "failed to parse grammar",
  "json-schema-to-grammar",
  "json schema conversion failed",
  "unable to generate parser",
];

/** OpenRouter: the account's privacy / guardrail settings exclude every endpoint of the model. */
export const POLICY_PATTERNS = [
  "no endpoints found matching your data policy",
  "no endpoints available matching your data policy",
  "no endpoints available matching your guardrail",
  "matching your data policy",
];

/**
 * The provider's safety system refused this prompt (OpenAI moderation and `content_policy_violation`,
 * Azure's content management policy / `content_filter`, Anthropic's content filtering, OpenRouter
 * moderation). The same request is refused again, so it is never retried. Underscore and policy
 * forms only: a bare "content filter" also appears in harmless settings text.
 */
export const CONTENT_POLICY_PATTERNS = [
  "content_policy_violation",
  "content_filter",
  "responsibleaipolicyviolation",
  "content management policy",
  "content filtering policy",
  "violates our usage polic",
  "violating our usage polic",
  "violates openai's usage polic",
  "violates anthropic's usage polic",
  "your request was flagged",
  "your prompt was flagged",
  "your input was flagged",
  "flagged by our safety",
  "requires moderation",
  "flagged for possible cybersecurity risk",
];

/**
 * OpenAI Responses: replayed encrypted reasoning (or a reasoning item) the server cannot verify,
 * e.g. after a change of key, organisation or model. Dropping the replay fixes it.
 */
export const ENCRYPTED_REPLAY_PATTERNS = [
  "invalid_encrypted_content",
  "encrypted content",
  "reasoning item",
  "of type 'reasoning' was provided without",
  "reasoning signature",
];

/**
 * Servers that take text only in tool results (strict OpenAI-compatible servers, some Chinese
 * vendors' endpoints) and refuse the images sent with them.
 */
export const TOOL_CONTENT_PATTERNS = [
  "tool messages must contain text only",
  "tool message content must be a string",
  "tool content must be a string",
  "tool message must be a string",
  "tool_call.content must be string",
  "not supported in tool result",
  "image content is not supported in tool",
  "images are not supported in tool",
  "only allowed for messages with role 'user'",
  "expected string, got list",
  "expected string, got array",
];

/** Money, not time: out of credits, spending caps, plans (OpenAI, Anthropic, OpenRouter, Z.AI, Nous). */
export const BILLING_PATTERNS = [
  "insufficient credits",
  "insufficient_credits",
  "insufficient_quota",
  "insufficient balance",
  "credit balance",
  "credits exhausted",
  "credits have been exhausted",
  "no usable credits",
  "out of credits",
  "top up",
  "payment required",
  "billing",
  "exceeded your current quota",
  "spending limit",
  "key limit exceeded",
  "out of funds",
  "balance_depleted",
  "no resource package",
  "your extra usage",
  "out of extra usage",
  "your free tier",
  "on the free tier",
  "model_not_supported_on_free_tier",
  "upgrade your plan",
  "plan does not include",
];

/** Throttling that resets by itself (OpenAI, Anthropic, Google, Bedrock, DashScope). */
export const RATE_LIMIT_PATTERNS = [
  "rate limit",
  "rate_limit",
  "ratelimit",
  "too many requests",
  "throttl",
  "requests per minute",
  "tokens per minute",
  "resource_exhausted",
  "resource has been exhausted",
  "resource exhausted",
  "rate increased too quickly",
  "too many concurrent requests",
];

/** A quota or usage cap; rate limit or billing depending on TRANSIENT_PATTERNS (§4.3). */
export const USAGE_LIMIT_PATTERNS = [
  "usage limit",
  "usage_limit_reached",
  "limit reached",
  "quota",
  "limit exceeded",
];

/** Words saying a limit will lift on its own. */
export const TRANSIENT_PATTERNS = [
  "try again",
  "please wait",
  "wait a ",
  "wait for",
  "wait until",
  "wait before",
  "slow down",
  "retry in",
  "retry after",
  "please retry",
  "resets",
  "reset at",
  "reset in",
  "per minute",
  "per day",
  "window",
];

/** Server-wide overload reported with a rate-limit status (Z.AI, Anthropic, Google UNAVAILABLE). */
export const OVERLOADED_PATTERNS = [
  "overloaded",
  "over capacity",
  "at capacity",
  "temporarily unavailable",
  "service unavailable",
];

/** The prompt does not fit (OpenAI, Anthropic, vLLM, Ollama, llama.cpp, Gemini, Bedrock). */
export const CONTEXT_PATTERNS = [
  "maximum context length",
  "context_length_exceeded",
  "context length",
  "context window",
  "context size",
  "prompt is too long",
  "prompt too long",
  "too many tokens",
  "input is too long",
  "exceeds the context",
  "reduce the length",
  "max_model_len",
  "maximum model length",
  "n_ctx",
  "slot context",
  "input token count",
  "exceeds the maximum number of tokens",
  "maximum number of tokens",
  "token limit",
  // Z.AI / Zhipu, DashScope, Bedrock
  "more than max tokens allowed",
  "prompt exceeds max length",
  "range of input length",
  "max input token",
  // The same in the languages vendors answer in: Chinese (simplified and traditional), Japanese,
  // Korean, Russian, Spanish, Portuguese, French, German, Italian.
  "超过最大长度",
  "超出最大长度",
  "上下文长度",
  "上下文窗口",
  "超出上下文",
  "超过上下文",
  "输入长度超过",
  "输入过长",
  "超過最大長度",
  "上下文長度",
  "超出上下文長度",
  "輸入過長",
  "コンテキスト長",
  "コンテキストの長さ",
  "最大コンテキスト",
  "コンテキストウィンドウ",
  "入力が長すぎ",
  "컨텍스트 길이",
  "최대 컨텍스트",
  "컨텍스트 창",
  "입력이 너무 깁니다",
  "длина контекста",
  "длину контекста",
  "контекстного окна",
  "контекстное окно",
  "longitud máxima del contexto",
  "longitud del contexto",
  "ventana de contexto",
  "comprimento máximo do contexto",
  "janela de contexto",
  "longueur maximale du contexte",
  "fenêtre de contexte",
  "kontextlänge",
  "kontextfenster",
  "lunghezza massima del contesto",
  "finestra di contesto",
];

/**
 * Anthropic: the subscription behind the key does not include the 1M-token context beta that the
 * request (or a relay in front of the API) asked for. Its own class: not the key's fault, and the
 * same request fails again.
 */
export const LONG_CONTEXT_BETA_PATTERNS = ["long context beta", "1m context beta", "context-1m"];
export const NOT_AVAILABLE_PATTERNS = [
  "not yet available",
  "not available",
  "forbidden",
  "not allowed",
  "not enabled",
];

export const IMAGE_PATTERNS = [
  "image exceeds",
  "image too large",
  "image is too large",
  "image_too_large",
  "image size exceeds",
  "image dimensions",
];

export const PAYLOAD_PATTERNS = ["request entity too large", "payload too large", "request_too_large"];

/** The model id is wrong or not installed (OpenAI, OpenRouter, Ollama "pull it first", vLLM). */
export const MODEL_MISSING_PATTERNS = [
  "model not found",
  "model_not_found",
  "does not exist",
  "not a valid model",
  "invalid model",
  "unknown model",
  "no such model",
  "try pulling it first",
  "pull it first",
  "no endpoints found for",
];

/** A malformed request that fails identically on every retry (sometimes sent as a 5xx). */
export const REQUEST_VALIDATION_PATTERNS = [
  "unknown parameter",
  "unsupported parameter",
  "unrecognized request argument",
  "unknown_parameter",
  "unsupported_parameter",
];

/** Credential problems in bodies without a status (in-stream errors). */
export const AUTH_PATTERNS = [
  "invalid api key",
  "invalid_api_key",
  "incorrect api key",
  "authentication",
  "unauthorized",
  "invalid x-api-key",
  "api key not valid",
  "api_key_invalid",
  "permission denied",
];

/** Account-level refusals that another key of the same account cannot fix. */
export const AUTH_PERMANENT_PATTERNS = [
  "unsupported_country_region_territory",
  "not available in your region",
  "account is deactivated",
  "account has been disabled",
  "organization has been disabled",
];

/** OpenSSL / Node TLS failures: transport noise, never context overflow (§4.4). */
export const SSL_PATTERNS = [
  "ssl",
  "tls",
  "certificate",
  "cert_",
  "eproto",
  "bad record mac",
  "bad_record_mac",
];

/** A server closing the connection mid-response. */
export const DISCONNECT_PATTERNS = [
  "terminated",
  "other side closed",
  "socket hang up",
  "premature close",
  "connection reset",
  "server disconnected",
  "unexpected eof",
  "peer closed connection",
  "incomplete chunked read",
  "connection was closed",
];
export const DISCONNECT_CODES = ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ECONNABORTED"];
export const TIMEOUT_CODES = [
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
];
export const TIMEOUT_PATTERNS = ["timed out", "timeout", "deadline exceeded"];

/** In-stream error `type`/`code` values → the HTTP status they stand for (step 3 of §4.2). */
export const CODE_STATUS: Readonly<Record<string, number>> = {
  overloaded_error: 529,
  unavailable: 503,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  resource_exhausted: 429,
  usage_limit_reached: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  internal: 500,
  authentication_error: 401,
  invalid_api_key: 401,
  unauthenticated: 401,
  permission_error: 403,
  permission_denied: 403,
  billing_error: 402,
  payment_required: 402,
  insufficient_credits: 402,
  not_found_error: 404,
  model_not_found: 404,
  not_found: 404,
  request_too_large: 413,
  invalid_request_error: 400,
  invalid_argument: 400,
  context_length_exceeded: 400,
  timeout_error: 504,
  deadline_exceeded: 504,
};
