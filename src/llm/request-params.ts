/**
 * A caller's per-request settings (RequestParams) on a model request, and which of them each wire
 * protocol can carry. What a protocol cannot carry is left out of its request; front ends read
 * `unsupportedParams` to refuse (or emulate) those settings instead of dropping them unseen.
 */
import type { ApiMode, LlmRequest, RequestParams } from "./types.js";

/** `request` with `params` applied: the output cap replaces the target's, the rest are set as given. */
export function withRequestParams(request: LlmRequest, params: RequestParams | undefined): LlmRequest {
  if (!params) return request;
  const out: LlmRequest = { ...request };
  if (params.maxTokens !== undefined) out.target = { ...request.target, maxTokens: params.maxTokens };
  if (params.temperature !== undefined) out.temperature = params.temperature;
  if (params.topP !== undefined) out.topP = params.topP;
  if (params.stop !== undefined) out.stop = params.stop;
  if (params.seed !== undefined) out.seed = params.seed;
  if (params.presencePenalty !== undefined) out.presencePenalty = params.presencePenalty;
  if (params.frequencyPenalty !== undefined) out.frequencyPenalty = params.frequencyPenalty;
  if (params.responseFormat !== undefined) out.responseFormat = params.responseFormat;
  return out;
}

type ParamName = keyof RequestParams;

/** Settings each protocol's wire has no field for. */
const UNSUPPORTED: Record<ApiMode, readonly ParamName[]> = {
  chat_completions: [],
  anthropic_messages: ["seed", "presencePenalty", "frequencyPenalty", "responseFormat"],
  codex_responses: ["stop", "seed", "presencePenalty", "frequencyPenalty"],
  bedrock_converse: ["seed", "presencePenalty", "frequencyPenalty", "responseFormat"],
};

/** The settings of `params` that `apiMode` cannot send to the model. */
export function unsupportedParams(apiMode: ApiMode, params: RequestParams): ParamName[] {
  return UNSUPPORTED[apiMode].filter((name) => params[name] !== undefined);
}
