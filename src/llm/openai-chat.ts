/**
 * chat_completions protocol: OpenAI, OpenRouter, Nous, Ollama, vLLM, llama.cpp and every other
 * OpenAI-compatible server. Requests and errors follow the `openai` SDK (its types, its error
 * classes); the wire is openai-wire.ts, so the SDK's client is never loaded.
 */
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { baseUrlHostMatches } from "./detect.js";
import { streamOpenAIEvents } from "./openai-wire.js";
import { temperatureFor } from "./quirks.js";
import { assistantMessage, runProviderStream } from "./stream-common.js";
import type {
  AssistantMessage,
  ChatMessage,
  FinishReason,
  LlmEvent,
  LlmRequest,
  ModelTarget,
  StreamFn,
  ToolCall,
  Usage,
} from "./types.js";
import { emptyUsage } from "./types.js";

/** Models that weigh the `developer` role above `system` (seed 004 §12.10). */
export function usesDeveloperRole(model: string): boolean {
  const m = model.toLowerCase();
  return m.includes("gpt-5") || m.includes("codex");
}

/** OpenAI's reasoning models reject `max_tokens` and want `max_completion_tokens`. */
export function usesMaxCompletionTokens(target: ModelTarget): boolean {
  const model = target.model.toLowerCase().replace(/^openai\//, "");
  return baseUrlHostMatches(target.baseUrl, "api.openai.com") && /^(gpt-5|o\d)/.test(model);
}

/** Internal messages → wire messages. Only the fields the protocol knows are sent. */
export function toOpenAIMessages(
  messages: readonly ChatMessage[],
  model: string,
): ChatCompletionMessageParam[] {
  const developer = usesDeveloperRole(model);
  return messages.map((m) => toOpenAIMessage(m, developer));
}

function toOpenAIMessage(m: ChatMessage, developer: boolean): ChatCompletionMessageParam {
  switch (m.role) {
    case "system":
      return { role: developer ? "developer" : "system", content: m.content };
    case "user":
      return {
        role: "user",
        content: typeof m.content === "string" ? m.content : m.content.map((p) => ({ ...p })),
      };
    case "assistant": {
      const out: ChatCompletionMessageParam = { role: "assistant", content: m.content };
      if (m.tool_calls && m.tool_calls.length > 0) out.tool_calls = m.tool_calls.map((c) => ({ ...c }));
      return out;
    }
    case "tool":
      return {
        role: "tool",
        tool_call_id: m.tool_call_id,
        content: toolText(m.content, m.images?.length ?? 0),
      };
  }
}

/** Tool messages carry text only in this protocol: a tool's images become a note saying so. */
function toolText(content: string, images: number): string {
  if (images === 0) return content;
  const what = images === 1 ? "1 image" : `${images} images`;
  return `${content}\n\n[${what} from this tool left out: tool results carry text only on this provider.]`;
}

export function buildChatParams(request: LlmRequest): ChatCompletionCreateParamsStreaming {
  const { target } = request;
  const params: ChatCompletionCreateParamsStreaming = {
    model: target.model,
    messages: toOpenAIMessages(request.messages, target.model),
    stream: true,
    stream_options: { include_usage: true },
  };
  // Some servers reject an empty tools array.
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({ ...t }));
    if (request.toolChoice) params.tool_choice = request.toolChoice;
  }
  const temperature = temperatureFor(target.model, request.temperature);
  if (temperature !== undefined) params.temperature = temperature;
  if (request.topP !== undefined) params.top_p = request.topP;
  if (request.stop?.length) params.stop = request.stop;
  if (request.seed !== undefined) params.seed = request.seed;
  if (request.presencePenalty !== undefined) params.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) params.frequency_penalty = request.frequencyPenalty;
  const format = request.responseFormat;
  if (format?.type === "json_object") params.response_format = { type: "json_object" };
  else if (format?.type === "json_schema") {
    const { name, schema, description, strict } = format;
    params.response_format = {
      type: "json_schema",
      json_schema: {
        name,
        schema,
        ...(description !== undefined ? { description } : {}),
        ...(strict !== undefined ? { strict } : {}),
      },
    };
  }
  if (target.maxTokens !== undefined) {
    if (usesMaxCompletionTokens(target)) params.max_completion_tokens = target.maxTokens;
    else params.max_tokens = target.maxTokens;
  }
  if (target.reasoningEffort) {
    // OpenRouter normalises reasoning across vendors through its own `reasoning` object.
    if (baseUrlHostMatches(target.baseUrl, "openrouter.ai")) {
      (params as ChatParamsWithReasoning).reasoning = { effort: target.reasoningEffort };
    } else params.reasoning_effort = target.reasoningEffort;
  }
  return params;
}

type ChatParamsWithReasoning = ChatCompletionCreateParamsStreaming & { reasoning?: { effort: string } };

interface ToolSlot {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/** Assembles streamed chunks into events and the final message. */
class ChatAssembler {
  text = "";
  reasoning = "";
  usage: Usage | undefined;
  finish: string | undefined;
  private readonly slots: ToolSlot[] = [];
  private readonly slotByIndex = new Map<number, number>();

  *accept(chunk: ChatCompletionChunk): Generator<LlmEvent> {
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.finish = choice.finish_reason;
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & Record<string, unknown>;
    if (!delta) return;
    // Non-standard reasoning fields: DeepSeek/vLLM use reasoning_content, OpenRouter uses reasoning.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning) {
      this.reasoning += reasoning;
      yield { type: "reasoning_delta", text: reasoning };
    }
    if (typeof delta.content === "string" && delta.content) {
      this.text += delta.content;
      yield { type: "text_delta", text: delta.content };
    }
    for (const call of delta.tool_calls ?? []) yield* this.acceptToolCall(call);
  }

  private *acceptToolCall(call: ChatCompletionChunk.Choice.Delta.ToolCall): Generator<LlmEvent> {
    const key = call.index ?? 0;
    let pos = this.slotByIndex.get(key);
    // A new id at a used index means the server numbers every call 0 (seen with some proxies).
    if (pos === undefined || (call.id && this.slots[pos]!.id && call.id !== this.slots[pos]!.id)) {
      pos = this.slots.push({ id: "", name: "", args: "", started: false }) - 1;
      this.slotByIndex.set(key, pos);
    }
    const slot = this.slots[pos]!;
    if (call.id && !slot.id) slot.id = call.id;
    // Names arrive once; some servers repeat them in later chunks, so never concatenate.
    if (call.function?.name && !slot.name) slot.name = call.function.name;
    const piece = call.function?.arguments ?? "";
    slot.args += piece;
    if (!slot.started && slot.name) {
      slot.started = true;
      slot.id ||= `call_${pos}_${Date.now().toString(36)}`;
      yield { type: "tool_call_start", index: pos, id: slot.id, name: slot.name };
      if (slot.args) yield { type: "tool_call_delta", index: pos, argumentsDelta: slot.args };
    } else if (slot.started && piece) {
      yield { type: "tool_call_delta", index: pos, argumentsDelta: piece };
    }
  }

  toolCalls(): ToolCall[] {
    return this.slots
      .filter((s) => s.name)
      .map((s) => ({ id: s.id, type: "function" as const, function: { name: s.name, arguments: s.args } }));
  }

  message(): AssistantMessage {
    const message = assistantMessage(this.text, this.reasoning);
    const calls = this.toolCalls();
    if (calls.length > 0) message.tool_calls = calls;
    return message;
  }

  finishReason(): FinishReason {
    if (this.toolCalls().length > 0 && (this.finish === undefined || this.finish === "stop"))
      return "tool_calls";
    switch (this.finish) {
      case "tool_calls":
      case "function_call":
        return "tool_calls";
      case "length":
        return "length";
      case "content_filter":
        return "content_filter";
      default:
        return "stop";
    }
  }
}

type WireUsage = NonNullable<ChatCompletionChunk["usage"]>;

/** prompt_tokens already includes cached tokens on every OpenAI-compatible server we know. */
export function toUsage(u: WireUsage): Usage {
  const details = u.prompt_tokens_details as
    | (typeof u.prompt_tokens_details & { cache_write_tokens?: number })
    | undefined;
  const usage = emptyUsage();
  usage.inputTokens = u.prompt_tokens ?? 0;
  usage.outputTokens = u.completion_tokens ?? 0;
  usage.cacheReadTokens = details?.cached_tokens ?? 0;
  usage.cacheWriteTokens = details?.cache_write_tokens ?? 0;
  usage.reasoningTokens = u.completion_tokens_details?.reasoning_tokens ?? 0;
  return usage;
}

/**
 * Streams one chat completion. Never throws: every failure (HTTP error, refused connection, reset,
 * idle timeout, abort) ends the stream with an `error` event carrying a ClassifiedError.
 */
export const streamOpenAIChat: StreamFn = (request) =>
  runProviderStream(request, new ChatAssembler(), (signal) =>
    streamOpenAIEvents<ChatCompletionChunk>(
      request.target,
      "/chat/completions",
      buildChatParams(request),
      signal,
    ),
  );
