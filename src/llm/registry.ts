/**
 * Stream function per wire protocol. The protocol modules load their SDKs lazily, so importing
 * this registry costs nothing at startup.
 */
import { streamAnthropic } from "./anthropic.js";
import { classified } from "./errors.js";
import { streamOpenAIChat } from "./openai-chat.js";
import { streamResponses } from "./responses.js";
import type { ApiMode, LlmEvent, LlmRequest, StreamFn } from "./types.js";

/** A StreamFn for a protocol this build cannot speak: fails at once, non-retryably. */
function unsupported(apiMode: ApiMode): StreamFn {
  return async function* (request: LlmRequest): AsyncGenerator<LlmEvent> {
    yield {
      type: "error",
      error: classified(
        "format_error",
        `API mode ${apiMode} (model ${request.target.model}) is not supported in this build. ` +
          "Set model.api_mode to chat_completions, codex_responses or anthropic_messages if the endpoint speaks one of them.",
      ),
    };
  };
}

/** The stream function for `apiMode`. Total over ApiMode; never throws. */
export function getStreamFn(apiMode: ApiMode): StreamFn {
  switch (apiMode) {
    case "chat_completions":
      return streamOpenAIChat;
    case "anthropic_messages":
      return streamAnthropic;
    case "codex_responses":
      return streamResponses;
    case "bedrock_converse":
      // The AWS SDK and SigV4 signing are not part of this build.
      return unsupported(apiMode);
  }
}

/** Streams `request` with the protocol its target names. Never throws. */
export function streamLlm(request: LlmRequest): AsyncIterable<LlmEvent> {
  return getStreamFn(request.target.apiMode)(request);
}
