/**
 * Provider error responses as vendors really send them (status, headers, JSON body), for the
 * classifier table in errors.test.ts. Each case is served by the fake LLM server and read through
 * the real SDK, so the classifier sees exactly what it sees in production.
 */
import type { ClassifiedError, FailoverReason } from "../../src/llm/types.js";

export interface ErrorBodyCase {
  vendor: string;
  what: string;
  /** Which SDK reads it: OpenAI-compatible servers or Anthropic's Messages API. */
  protocol: "openai" | "anthropic";
  status: number;
  /** Replaces the fake server's default `retry-after: 1` on a 429. */
  headers?: Record<string, string>;
  body: unknown;
  reason: FailoverReason;
  flags?: Partial<
    Pick<ClassifiedError, "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback">
  >;
  /** Expected resetAt, as ms after the request (a delta) or an absolute epoch ms. */
  resetIn?: number;
  resetAt?: number;
}

const oa = (message: string, type: string | null, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code },
});
const an = (type: string, message: string) => ({ type: "error", error: { type, message } });
const or = (message: string, code: number, metadata?: Record<string, unknown>) => ({
  error: { message, code, ...(metadata ? { metadata } : {}) },
});
const google = (code: number, status: string, message: string, details?: unknown[]) => ({
  error: { code, message, status, ...(details ? { details } : {}) },
});
const noRetryAfter = {};

// biome-ignore format: one line per case keeps the table scannable
export const ERROR_BODY_CASES: ErrorBodyCase[] = [
  // OpenAI
  { vendor: "OpenAI", what: "bad key", protocol: "openai", status: 401, body: oa("Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"), reason: "auth", flags: { shouldRotateCredential: true, shouldFallback: true, retryable: false } },
  { vendor: "OpenAI", what: "quota = billing", protocol: "openai", status: 429, headers: noRetryAfter, body: oa("You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota", "insufficient_quota"), reason: "billing", flags: { retryable: false, shouldRotateCredential: true } },
  { vendor: "OpenAI", what: "TPM rate limit", protocol: "openai", status: 429, headers: { "x-ratelimit-reset-tokens": "1.4s" }, body: oa("Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more.", "tokens", "rate_limit_exceeded"), reason: "rate_limit", flags: { retryable: true, shouldRotateCredential: true }, resetIn: 1400 },
  { vendor: "OpenAI", what: "context length", protocol: "openai", status: 400, body: oa("This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens (129910 in the messages, 622 in the functions). Please reduce the length of the messages or functions.", "invalid_request_error", "context_length_exceeded", "messages"), reason: "context_overflow", flags: { shouldCompress: true } },
  { vendor: "OpenAI", what: "unknown model", protocol: "openai", status: 404, body: oa("The model `gpt-9` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"), reason: "model_not_found", flags: { shouldFallback: true, retryable: false } },
  { vendor: "OpenAI", what: "unsupported max_tokens is not overflow", protocol: "openai", status: 400, body: oa("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "invalid_request_error", "unsupported_parameter", "max_tokens"), reason: "format_error", flags: { retryable: false, shouldCompress: false } },
  { vendor: "OpenAI", what: "invalid tool schema", protocol: "openai", status: 400, body: oa("Invalid schema for function 'read_file': In context=(), 'required' is required to be supplied.", "invalid_request_error", "invalid_function_parameters", "tools[0].function.parameters"), reason: "format_error" },
  { vendor: "OpenAI", what: "server error", protocol: "openai", status: 500, body: oa("The server had an error while processing your request. Sorry about that!", "server_error", null), reason: "server_error", flags: { retryable: true } },
  { vendor: "OpenAI", what: "engine overloaded", protocol: "openai", status: 503, body: oa("The engine is currently overloaded, please try again later", "server_error", null), reason: "overloaded", flags: { retryable: true, shouldRotateCredential: false } },
  { vendor: "OpenAI", what: "unsupported country", protocol: "openai", status: 403, body: { error: { code: "unsupported_country_region_territory", message: "Country, region, or territory not supported", param: null, type: "request_forbidden" } }, reason: "auth_permanent", flags: { shouldRotateCredential: false, shouldFallback: true } },
  { vendor: "OpenAI-compatible", what: "403 carrying server_error is not auth", protocol: "openai", status: 403, body: oa("An error occurred while processing your request.", "server_error", "server_error"), reason: "server_error", flags: { shouldRotateCredential: false, retryable: true } },
  { vendor: "nginx", what: "413 HTML page", protocol: "openai", status: 413, body: "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", reason: "payload_too_large", flags: { shouldCompress: true } },
  { vendor: "Cloudflare", what: "502 plain text", protocol: "openai", status: 502, body: "error code: 502", reason: "server_error" },
  { vendor: "Cloudflare", what: "524 origin timeout", protocol: "openai", status: 524, body: "error code: 524", reason: "timeout" },

  // Anthropic
  { vendor: "Anthropic", what: "bad key", protocol: "anthropic", status: 401, body: an("authentication_error", "invalid x-api-key"), reason: "auth" },
  { vendor: "Anthropic", what: "permission", protocol: "anthropic", status: 403, body: an("permission_error", "Your API key does not have permission to use the specified resource."), reason: "auth" },
  { vendor: "Anthropic", what: "prompt is too long", protocol: "anthropic", status: 400, body: an("invalid_request_error", "prompt is too long: 215337 tokens > 200000 maximum"), reason: "context_overflow", flags: { shouldCompress: true } },
  { vendor: "Anthropic", what: "invalid thinking signature", protocol: "anthropic", status: 400, body: an("invalid_request_error", "messages.1.content.0: Invalid `signature` in `thinking` block"), reason: "thinking_signature" },
  { vendor: "Anthropic", what: "modified thinking block", protocol: "anthropic", status: 400, body: an("invalid_request_error", "messages.3.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."), reason: "thinking_signature" },
  { vendor: "Anthropic", what: "ITPM rate limit + retry-after", protocol: "anthropic", status: 429, headers: { "retry-after": "17", "anthropic-ratelimit-input-tokens-remaining": "0" }, body: an("rate_limit_error", "This request would exceed the rate limit for your organization (8c2b...) of 40,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."), reason: "rate_limit", resetIn: 17_000 },
  { vendor: "Anthropic", what: "long-context tier gate", protocol: "anthropic", status: 429, headers: noRetryAfter, body: an("rate_limit_error", "Extra usage is required for long context requests."), reason: "long_context_tier", flags: { shouldCompress: true, shouldRotateCredential: false } },
  { vendor: "Anthropic", what: "529 overloaded", protocol: "anthropic", status: 529, body: an("overloaded_error", "Overloaded"), reason: "overloaded", flags: { retryable: true, shouldFallback: false } },
  { vendor: "Anthropic", what: "500 api_error", protocol: "anthropic", status: 500, body: an("api_error", "Internal server error"), reason: "server_error" },
  { vendor: "Anthropic", what: "413 request_too_large", protocol: "anthropic", status: 413, body: an("request_too_large", "Request exceeds the maximum allowed number of bytes."), reason: "payload_too_large" },
  { vendor: "Anthropic", what: "image over 5 MB", protocol: "anthropic", status: 400, body: an("invalid_request_error", "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes"), reason: "image_too_large", flags: { retryable: false } },
  { vendor: "Anthropic", what: "credit balance (a 400)", protocol: "anthropic", status: 400, body: an("invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."), reason: "billing" },
  { vendor: "Anthropic", what: "third-party extra usage (a 400)", protocol: "anthropic", status: 400, body: an("invalid_request_error", "Third-party apps now draw from your extra usage, not your plan limits. Add more at claude.ai/settings/usage and keep going."), reason: "billing" },
  { vendor: "Anthropic", what: "unknown model", protocol: "anthropic", status: 404, body: an("not_found_error", "model: claude-opus-9-0"), reason: "model_not_found" },

  // OpenRouter
  { vendor: "OpenRouter", what: "upstream 429 keeps the key", protocol: "openai", status: 429, headers: noRetryAfter, body: or("Provider returned error", 429, { raw: "deepseek/deepseek-r1:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations", provider_name: "Chutes" }), reason: "rate_limit", flags: { shouldRotateCredential: false, shouldFallback: true, retryable: true } },
  { vendor: "OpenRouter", what: "account 429 with reset in metadata", protocol: "openai", status: 429, headers: noRetryAfter, body: or("Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day", 429, { headers: { "X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1767225600000" } }), reason: "rate_limit", flags: { shouldRotateCredential: true }, resetAt: 1_767_225_600_000 },
  { vendor: "OpenRouter", what: "402 no credits", protocol: "openai", status: 402, body: or("Insufficient credits. This account never purchased credits. Make sure your key is on the correct account or org, and if so, purchase more at https://openrouter.ai/settings/credits", 402), reason: "billing", flags: { retryable: false, shouldRotateCredential: true } },
  { vendor: "OpenRouter", what: "402 can only afford fewer tokens", protocol: "openai", status: 402, body: or("This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 1234. To increase, visit https://openrouter.ai/settings/keys and create a key with a higher total limit", 402), reason: "billing" },
  { vendor: "OpenRouter", what: "data policy 404", protocol: "openai", status: 404, body: or("No endpoints found matching your data policy (Free model publication). Configure: https://openrouter.ai/settings/privacy", 404), reason: "provider_policy_blocked", flags: { shouldFallback: false, retryable: false } },
  { vendor: "OpenRouter", what: "no endpoints for model", protocol: "openai", status: 404, body: or("No endpoints found for mistralai/mistral-9b.", 404), reason: "model_not_found" },
  { vendor: "OpenRouter", what: "upstream context error in metadata.raw", protocol: "openai", status: 400, body: or("Provider returned error", 400, { raw: JSON.stringify({ error: { message: "This endpoint's maximum context length is 163840 tokens. However, you requested about 170000 tokens.", code: 400 } }), provider_name: "DeepInfra" }), reason: "context_overflow" },
  { vendor: "OpenRouter", what: "key limit (a 403) is billing", protocol: "openai", status: 403, body: or("Key limit exceeded (total limit). Manage it using https://openrouter.ai/settings/keys", 403), reason: "billing" },
  { vendor: "OpenRouter", what: "no auth", protocol: "openai", status: 401, body: or("No auth credentials found", 401), reason: "auth" },

  // Google Gemini (OpenAI-compatible endpoint and proxies)
  { vendor: "Gemini", what: "free-tier quota with RetryInfo", protocol: "openai", status: 429, headers: noRetryAfter, body: google(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-pro\nPlease retry in 37.647s.", [{ "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }] }, { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }]), reason: "rate_limit", resetIn: 37_000 },
  { vendor: "Gemini", what: "list-shaped RESOURCE_EXHAUSTED", protocol: "openai", status: 429, headers: noRetryAfter, body: [google(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")], reason: "rate_limit" },
  { vendor: "Gemini", what: "input token limit (list-shaped)", protocol: "openai", status: 400, body: [google(400, "INVALID_ARGUMENT", "The input token count (1250000) exceeds the maximum number of tokens allowed (1048576).")], reason: "context_overflow", flags: { shouldCompress: true } },
  { vendor: "Gemini", what: "bad key is a 400", protocol: "openai", status: 400, body: google(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }]), reason: "auth" },
  { vendor: "Gemini", what: "503 UNAVAILABLE", protocol: "openai", status: 503, body: google(503, "UNAVAILABLE", "The model is overloaded. Please try again later."), reason: "overloaded" },
  { vendor: "gemini-cli proxy", what: "JSON document inside the message", protocol: "openai", status: 429, headers: noRetryAfter, body: { error: { message: '{\n  "error": {\n    "code": 429,\n    "message": "Resource has been exhausted (e.g. check quota).",\n    "status": "RESOURCE_EXHAUSTED"\n  }\n}\n', code: 429, status: "Too Many Requests" } }, reason: "rate_limit" },

  // Local servers: Ollama, llama.cpp, vLLM
  { vendor: "Ollama", what: "model not pulled", protocol: "openai", status: 404, body: oa('model "llama9" not found, try pulling it first', "api_error", null), reason: "model_not_found", flags: { shouldFallback: true } },
  { vendor: "Ollama (native)", what: "bare string error", protocol: "openai", status: 404, body: { error: 'model "qwen9:8b" not found, try pulling it first' }, reason: "model_not_found" },
  { vendor: "Ollama", what: "context size exceeded", protocol: "openai", status: 400, body: oa("context size exceeded", "invalid_request_error", null), reason: "context_overflow" },
  { vendor: "llama.cpp", what: "exceeds context size", protocol: "openai", status: 400, body: { error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 8192 } }, reason: "context_overflow", flags: { shouldCompress: true } },
  { vendor: "llama.cpp", what: "regex pattern in tool schema", protocol: "openai", status: 400, body: { error: { code: 400, message: 'JSON schema conversion failed:\nUnrecognized schema: {"pattern":"^\\\\d{4}-\\\\d{2}-\\\\d{2}$","type":"string"}', type: "invalid_request_error" } }, reason: "llama_cpp_grammar_pattern" },
  { vendor: "llama.cpp", what: "grammar parse error (500)", protocol: "openai", status: 500, body: { error: { code: 500, message: 'parse: error parsing grammar: unknown escape at \\d{4}-\\d{2}-\\d{2}"', type: "server_error" } }, reason: "llama_cpp_grammar_pattern" },
  { vendor: "vLLM", what: "maximum context length", protocol: "openai", status: 400, body: { error: { message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", type: "BadRequestError", param: null, code: 400 } }, reason: "context_overflow" },
  { vendor: "vLLM (old)", what: "top-level error object", protocol: "openai", status: 400, body: { object: "error", message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages, Please reduce the length of the messages.", type: "BadRequestError", param: null, code: 400 }, reason: "context_overflow" },
  { vendor: "vLLM", what: "unknown model", protocol: "openai", status: 404, body: { error: { message: "The model `llama-70b` does not exist.", type: "NotFoundError", param: null, code: 404 } }, reason: "model_not_found" },

  // Quota windows that are not billing and not auth (§4.3, issue #32790)
  { vendor: "Nous/Codex-style", what: "402 usage limit that resets", protocol: "openai", status: 402, body: oa("Usage limit reached, try again in 5 minutes", "usage_limit_reached", null), reason: "rate_limit", flags: { retryable: true }, resetIn: 300_000 },
  { vendor: "Codex-style", what: "429 usage limit with resets_in_seconds", protocol: "openai", status: 429, headers: noRetryAfter, body: { error: { type: "usage_limit_reached", message: "The usage limit has been reached", plan_type: "plus", resets_in_seconds: 30995 } }, reason: "rate_limit", resetIn: 30_995_000 },
  { vendor: "subscription proxy", what: "quota sent as 401", protocol: "openai", status: 401, body: oa("You have hit your usage limit. Try again at 2026-05-26T14:00:00Z", "invalid_request_error", null), reason: "rate_limit", resetAt: Date.parse("2026-05-26T14:00:00Z") },
  { vendor: "Z.AI", what: "balance exhausted (a 429)", protocol: "openai", status: 429, headers: noRetryAfter, body: { error: { code: "1113", message: "Insufficient balance or no resource package. Please recharge." } }, reason: "billing" },
  { vendor: "Z.AI", what: "overload sent as 429", protocol: "openai", status: 429, headers: noRetryAfter, body: { error: { code: "1305", message: "The service may be temporarily overloaded, please try again later" } }, reason: "overloaded", flags: { shouldRotateCredential: false } },

  // Content-policy refusals: the same prompt is refused again, so no retry and no fallback loop
  { vendor: "OpenAI", what: "content_policy_violation", protocol: "openai", status: 400, body: oa("Your request was rejected by the safety system. The prompt may contain text that is not allowed.", "invalid_request_error", "content_policy_violation"), reason: "content_policy_blocked", flags: { retryable: false, shouldFallback: false, shouldRotateCredential: false, shouldCompress: false } },
  { vendor: "OpenAI", what: "reasoning-model prompt flagged", protocol: "openai", status: 400, body: oa("Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.", "invalid_request_error", "invalid_prompt"), reason: "content_policy_blocked", flags: { retryable: false } },
  { vendor: "Azure OpenAI", what: "content management policy", protocol: "openai", status: 400, body: { error: { message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.", type: null, param: "prompt", code: "content_filter", status: 400, innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: { violence: { filtered: true, severity: "medium" } } } } }, reason: "content_policy_blocked", flags: { retryable: false, shouldFallback: false } },
  { vendor: "OpenRouter", what: "moderation 403", protocol: "openai", status: 403, body: or('openai/gpt-4o requires moderation on OpenRouter. Your input was flagged for "violence".', 403, { reasons: ["violence"], flagged_input: "how do I...", provider_name: "OpenAI", model_slug: "openai/gpt-4o" }), reason: "content_policy_blocked", flags: { shouldRotateCredential: false, shouldFallback: false } },
  { vendor: "Anthropic", what: "output blocked by content filtering", protocol: "anthropic", status: 400, body: an("invalid_request_error", "Output blocked by content filtering policy"), reason: "content_policy_blocked" },
  { vendor: "OpenAI-compatible", what: "violates our usage policy", protocol: "openai", status: 400, body: oa("This request violates our usage policy and was not processed.", "invalid_request_error", null), reason: "content_policy_blocked" },

  // Replayed reasoning the server cannot verify: dropped and sent again once by the model call
  { vendor: "OpenAI Responses", what: "encrypted content not verified", protocol: "openai", status: 400, body: oa("The encrypted content for item rs_68a1c0ffee could not be verified.", "invalid_request_error", "invalid_encrypted_content"), reason: "invalid_encrypted_content", flags: { retryable: false, shouldCompress: false, shouldRotateCredential: false } },
  { vendor: "OpenAI Responses", what: "encrypted content not decrypted (no code)", protocol: "openai", status: 400, body: oa("Encrypted content could not be decrypted or parsed.", "invalid_request_error", null, "input"), reason: "invalid_encrypted_content" },
  { vendor: "OpenAI Responses", what: "orphaned reasoning item", protocol: "openai", status: 400, body: oa("Item 'rs_68a1c0ffee' of type 'reasoning' was provided without its required following item.", "invalid_request_error", null, "input"), reason: "invalid_encrypted_content" },

  // Servers that take text only in tool results
  { vendor: "OpenAI-compatible", what: "tool messages text only", protocol: "openai", status: 400, body: oa("Invalid 'messages[3]': tool messages must contain text only.", "invalid_request_error", null, "messages"), reason: "multimodal_tool_content_unsupported", flags: { retryable: false, shouldCompress: false } },
  { vendor: "vLLM", what: "image in tool results", protocol: "openai", status: 400, body: { error: { message: "Image content is not supported in tool results for this model.", type: "BadRequestError", param: null, code: 400 } }, reason: "multimodal_tool_content_unsupported" },
  { vendor: "Anthropic-compatible", what: "images in tool results", protocol: "anthropic", status: 400, body: an("invalid_request_error", "messages.2.content.1: images are not supported in tool results"), reason: "multimodal_tool_content_unsupported" },
  { vendor: "DashScope-style", what: "tool content must be a string (422)", protocol: "openai", status: 422, body: oa("tool message content must be a string", "invalid_request_error", null), reason: "multimodal_tool_content_unsupported" },

  // Plan and free-tier limits are money: another key or provider, never a blind retry
  { vendor: "OpenAI-compatible", what: "free tier used up (a 429)", protocol: "openai", status: 429, headers: noRetryAfter, body: oa("You have used up your free tier allowance for this month. Upgrade your plan to continue.", "requests", null), reason: "billing", flags: { retryable: false, shouldRotateCredential: true, shouldFallback: true } },
  { vendor: "Anthropic", what: "out of extra usage (a 400)", protocol: "anthropic", status: 400, body: an("invalid_request_error", "You're out of extra usage. Add more at claude.ai/settings/usage and keep going."), reason: "billing", flags: { retryable: false } },
  { vendor: "Nous", what: "paid model on the free tier (a 404)", protocol: "openai", status: 404, body: { status: 404, message: "Model 'hermes-5-405b' is not available on the Free Tier. Upgrade at https://portal.nousresearch.com or pick a free model." }, reason: "billing" },
  { vendor: "proxy", what: "402 plain text", protocol: "openai", status: 402, body: "Payment Required", reason: "billing", flags: { retryable: false, shouldFallback: true } },

  // Context overflows said in other languages, and vendor wordings without "context"
  { vendor: "Zhipu", what: "prompt over the maximum length (Chinese)", protocol: "openai", status: 400, body: { error: { code: "1261", message: "Prompt 超过最大长度限制" } }, reason: "context_overflow", flags: { shouldCompress: true } },
  { vendor: "DashScope-style", what: "input over the context length (Chinese)", protocol: "openai", status: 400, body: oa("输入长度超过模型最大上下文长度", "invalid_request_error", null), reason: "context_overflow" },
  { vendor: "OpenAI-compatible", what: "context length (Japanese)", protocol: "openai", status: 400, body: oa("入力がモデルの最大コンテキスト長を超えています", "invalid_request_error", null), reason: "context_overflow" },
  { vendor: "OpenAI-compatible", what: "context length (Korean)", protocol: "openai", status: 400, body: oa("입력이 모델의 최대 컨텍스트 길이를 초과했습니다", "invalid_request_error", null), reason: "context_overflow" },
  { vendor: "OpenAI-compatible", what: "context length (Russian)", protocol: "openai", status: 400, body: oa("Длина запроса превышает максимальную длину контекста модели", "invalid_request_error", null), reason: "context_overflow" },
  { vendor: "OpenAI-compatible", what: "context length (Spanish)", protocol: "openai", status: 400, body: oa("La solicitud supera la longitud máxima del contexto del modelo", "invalid_request_error", null), reason: "context_overflow" },
  { vendor: "Z.AI", what: "more tokens than allowed", protocol: "openai", status: 400, body: { error: { code: "1210", message: "tokens in request more than max tokens allowed" } }, reason: "context_overflow" },

  // A usage cap is money unless it says when it lifts; "please wait" says it lifts
  { vendor: "OpenAI-compatible", what: "usage limit reached (a 429, no reset)", protocol: "openai", status: 429, headers: noRetryAfter, body: oa("usage limit reached", "usage_limit_reached", null), reason: "billing", flags: { retryable: false, shouldRotateCredential: true, shouldFallback: true } },
  { vendor: "Anthropic-compatible", what: "account usage limit (a 429, no reset)", protocol: "anthropic", status: 429, headers: noRetryAfter, body: an("usage_limit_reached", "Your account has reached its usage limit."), reason: "billing" },
  { vendor: "OpenAI-compatible", what: "usage limit with a retry-after header", protocol: "openai", status: 429, headers: { "retry-after": "3600" }, body: oa("usage limit reached", "usage_limit_reached", null), reason: "rate_limit", flags: { retryable: true } },
  { vendor: "OpenAI-compatible", what: "usage limit (a 403, no reset)", protocol: "openai", status: 403, body: oa("Usage limit reached for this key.", "permission_error", null), reason: "billing" },
  { vendor: "OpenRouter-style", what: "key limit, please wait (a 429)", protocol: "openai", status: 429, headers: noRetryAfter, body: or("Key limit exceeded, please wait", 429), reason: "rate_limit", flags: { retryable: true } },
  { vendor: "OpenRouter-style", what: "key limit, please wait (a 403)", protocol: "openai", status: 403, body: or("Key limit exceeded, please wait a moment before the next request", 403), reason: "rate_limit", flags: { retryable: true } },

  // The 1M-context beta the subscription lacks: not the key's fault, the same request fails again
  { vendor: "Anthropic", what: "long context beta not available (a 400)", protocol: "anthropic", status: 400, body: an("invalid_request_error", "The long context beta is not yet available for this subscription."), reason: "oauth_long_context_beta_forbidden", flags: { retryable: false, shouldRotateCredential: false, shouldCompress: false, shouldFallback: true } },
  { vendor: "Anthropic relay", what: "long context beta not available (a 403)", protocol: "anthropic", status: 403, body: an("permission_error", "long context beta is not yet available for this subscription"), reason: "oauth_long_context_beta_forbidden", flags: { retryable: false, shouldRotateCredential: false } },

  // A normal validation error stays a plain request error
  { vendor: "OpenAI", what: "string too long stays a request error", protocol: "openai", status: 400, body: oa("Invalid 'messages[1].name': string too long. Expected a string with maximum length 64.", "invalid_request_error", "string_above_max_length", "messages[1].name"), reason: "format_error", flags: { retryable: false, shouldCompress: false } },
];
