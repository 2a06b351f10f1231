/**
 * anthropic_messages protocol: api.anthropic.com and Anthropic-compatible endpoints (base URLs
 * ending in /anthropic), through `@anthropic-ai/sdk` (loaded on first call: ~200 ms to import).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { RawMessageStreamEvent, StopReason } from "@anthropic-ai/sdk/resources/messages";
import { buildAnthropicParams } from "./anthropic-convert.js";
import { proxyTransportFor } from "./proxy.js";
import {
  assistantMessage,
  clientKey,
  createClientCache,
  DEFAULT_TIMEOUT_MS,
  runProviderStream,
} from "./stream-common.js";
import type {
  AssistantMessage,
  FinishReason,
  LlmEvent,
  ModelTarget,
  StreamFn,
  ThinkingBlock,
  ToolCall,
  Usage,
} from "./types.js";
import { emptyUsage } from "./types.js";

let sdk: Promise<typeof import("@anthropic-ai/sdk")> | undefined;
const clients = createClientCache<Anthropic>();

async function clientFor(target: ModelTarget): Promise<Anthropic> {
  sdk ??= import("@anthropic-ai/sdk");
  const { default: AnthropicClient } = await sdk;
  const proxy = await proxyTransportFor(target.baseUrl);
  return clients(clientKey(target, proxy?.proxyUrl), () => {
    const apiKey = target.apiKey || "not-needed";
    return new AnthropicClient({
      baseURL: target.baseUrl,
      // Always explicit: without it the SDK goes looking for profiles and env credentials.
      apiKey,
      maxRetries: 0, // the agent owns retries, with classification and backoff
      timeout: target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      // The SDK sends the key as a Bearer token; Anthropic-compatible gateways often only read x-api-key.
      defaultHeaders: { "x-api-key": apiKey, ...target.headers },
      ...(proxy ? { fetch: proxy.fetch, fetchOptions: proxy.fetchOptions } : {}),
    });
  });
}

type Block =
  | { kind: "text" }
  | { kind: "thinking"; block: ThinkingBlock }
  | { kind: "tool"; call: ToolCall; slot: number; initialInput: string }
  | { kind: "other" };

/** Folds stream events into LlmEvents and the final message. */
class MessageAssembler {
  text = "";
  reasoning = "";
  usage: Usage | undefined;
  stopReason: StopReason | null = null;
  readonly thinking: ThinkingBlock[] = [];
  readonly calls: ToolCall[] = [];
  /** Uncached input tokens, kept apart because usage events may update the parts separately. */
  private freshInput = 0;
  private readonly blocks = new Map<number, Block>();

  *accept(event: RawMessageStreamEvent): Generator<LlmEvent> {
    switch (event.type) {
      case "message_start":
        this.mergeUsage(event.message.usage);
        break;
      case "message_delta":
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        break;
      case "content_block_start":
        yield* this.startBlock(event.index, event.content_block);
        break;
      case "content_block_delta":
        yield* this.delta(event.index, event.delta);
        break;
      case "content_block_stop": {
        const block = this.blocks.get(event.index);
        // A tool called with no arguments streams no input_json_delta at all.
        if (block?.kind === "tool" && block.call.function.arguments === "") {
          block.call.function.arguments = block.initialInput;
        }
        break;
      }
      case "message_stop":
        break;
    }
  }

  private *startBlock(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"],
  ): Generator<LlmEvent> {
    if (block.type === "text") {
      this.blocks.set(index, { kind: "text" });
      if (block.text) yield* this.addText(block.text);
    } else if (block.type === "thinking") {
      const thinking: ThinkingBlock = { type: "thinking", thinking: "", signature: block.signature };
      this.thinking.push(thinking);
      this.blocks.set(index, { kind: "thinking", block: thinking });
      if (block.thinking) yield* this.addReasoning(thinking, block.thinking);
    } else if (block.type === "redacted_thinking") {
      this.thinking.push({ type: "redacted_thinking", data: block.data });
      this.blocks.set(index, { kind: "other" });
    } else if (block.type === "tool_use") {
      const call: ToolCall = {
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: "" },
      };
      const slot = this.calls.push(call) - 1;
      const initialInput = JSON.stringify(block.input ?? {});
      this.blocks.set(index, { kind: "tool", call, slot, initialInput });
      yield { type: "tool_call_start", index: slot, id: call.id, name: call.function.name };
    } else {
      this.blocks.set(index, { kind: "other" });
    }
  }

  private *delta(
    index: number,
    delta: Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"],
  ): Generator<LlmEvent> {
    const block = this.blocks.get(index);
    if (delta.type === "text_delta") yield* this.addText(delta.text);
    else if (delta.type === "thinking_delta" && block?.kind === "thinking")
      yield* this.addReasoning(block.block, delta.thinking);
    else if (delta.type === "signature_delta" && block?.kind === "thinking")
      block.block.signature = delta.signature;
    else if (delta.type === "input_json_delta" && block?.kind === "tool" && delta.partial_json) {
      block.call.function.arguments += delta.partial_json;
      yield { type: "tool_call_delta", index: block.slot, argumentsDelta: delta.partial_json };
    }
  }

  private *addText(text: string): Generator<LlmEvent> {
    this.text += text;
    yield { type: "text_delta", text };
  }

  private *addReasoning(block: ThinkingBlock, text: string): Generator<LlmEvent> {
    block.thinking = (block.thinking ?? "") + text;
    this.reasoning += text;
    yield { type: "reasoning_delta", text };
  }

  /** Anthropic reports input in three disjoint parts; Usage.inputTokens is their sum. */
  private mergeUsage(u: {
    input_tokens?: number | null;
    output_tokens?: number | null;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
    output_tokens_details?: { thinking_tokens?: number } | null;
  }): void {
    this.usage ??= emptyUsage();
    const usage = this.usage;
    // message_delta counts are cumulative; nulls mean "unchanged", not zero.
    const fresh = u.input_tokens ?? null;
    const read = u.cache_read_input_tokens ?? null;
    const write = u.cache_creation_input_tokens ?? null;
    if (read !== null) usage.cacheReadTokens = read;
    if (write !== null) usage.cacheWriteTokens = write;
    if (fresh !== null) this.freshInput = fresh;
    usage.inputTokens = this.freshInput + usage.cacheReadTokens + usage.cacheWriteTokens;
    if (u.output_tokens !== null && u.output_tokens !== undefined) usage.outputTokens = u.output_tokens;
    const thinkingTokens = u.output_tokens_details?.thinking_tokens;
    if (thinkingTokens !== undefined) usage.reasoningTokens = thinkingTokens;
  }

  message(): AssistantMessage {
    const message = assistantMessage(this.text, this.reasoning);
    if (this.calls.length > 0)
      message.tool_calls = this.calls.map((c) => ({ ...c, function: { ...c.function } }));
    if (this.thinking.length > 0) message.thinking_blocks = this.thinking.map((b) => ({ ...b }));
    return message;
  }

  finishReason(): FinishReason {
    switch (this.stopReason) {
      case "tool_use":
        return "tool_calls";
      case "max_tokens":
      case "model_context_window_exceeded":
        return "length";
      case "refusal":
        return "content_filter";
      default:
        return this.calls.length > 0 ? "tool_calls" : "stop";
    }
  }
}

/**
 * Streams one Messages API call. Never throws: every failure (HTTP error, in-stream error event,
 * refused connection, reset, idle timeout, abort) ends the stream with an `error` event.
 */
export const streamAnthropic: StreamFn = (request) =>
  runProviderStream(request, new MessageAssembler(), async (signal) => {
    const client = await clientFor(request.target);
    return client.messages.create(buildAnthropicParams(request), { signal });
  });
