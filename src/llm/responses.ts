/**
 * codex_responses protocol: the OpenAI Responses API (GPT-5 and later, o-series and Codex models on
 * api.openai.com; ChatGPT's Codex backend; other Responses-compatible servers), with the `openai`
 * SDK's types and errors over openai-wire.ts. Produces the same LlmEvent stream as the other
 * protocols.
 */
import type {
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import { streamOpenAIEvents } from "./openai-wire.js";
import { buildResponsesParams } from "./responses-convert.js";
import { assistantMessage, runProviderStream } from "./stream-common.js";
import type {
  AssistantMessage,
  FinishReason,
  LlmEvent,
  ReasoningItem,
  StreamFn,
  ToolCall,
  Usage,
} from "./types.js";
import { emptyUsage } from "./types.js";

/**
 * A `response.failed` event, thrown so the shared stream loop classifies it like any API error
 * (the `error` body carries the code: rate_limit_exceeded, server_error, ...).
 */
export class ResponseFailedError extends Error {
  readonly error: { code: string; message: string };
  constructor(error: { code?: string | null; message?: string | null } | null | undefined) {
    const message = error?.message || "The response failed";
    super(message);
    this.name = "ResponseFailedError";
    this.error = { code: error?.code ?? "server_error", message };
  }
}

interface CallSlot {
  slot: number;
  call: ToolCall;
  started: boolean;
}

/** Folds Responses stream events into LlmEvents and the final message. */
class ResponsesAssembler {
  text = "";
  reasoning = "";
  usage: Usage | undefined;
  private readonly calls: CallSlot[] = [];
  private readonly callByItem = new Map<string, CallSlot>();
  private readonly reasoningItems: ReasoningItem[] = [];
  /** Items whose text arrived as deltas; their `done` event must not add it again. */
  private readonly streamedItems = new Set<string>();
  private status: string | undefined;
  private incompleteReason: string | undefined;
  private refused = false;

  *accept(event: ResponseStreamEvent): Generator<LlmEvent> {
    switch (event.type) {
      case "response.output_item.added":
        yield* this.itemAdded(event.item);
        break;
      case "response.output_text.delta":
        this.streamedItems.add(event.item_id);
        yield* this.addText(event.delta);
        break;
      case "response.refusal.delta":
        this.refused = true;
        this.streamedItems.add(event.item_id);
        yield* this.addText(event.delta);
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.streamedItems.add(event.item_id);
        yield* this.addReasoning(event.delta);
        break;
      case "response.reasoning_summary_part.added":
        // Summary parts are separate paragraphs.
        if (event.summary_index > 0) yield* this.addReasoning("\n\n");
        break;
      case "response.function_call_arguments.delta": {
        const slot = this.callByItem.get(event.item_id);
        if (slot && event.delta) {
          slot.call.function.arguments += event.delta;
          yield { type: "tool_call_delta", index: slot.slot, argumentsDelta: event.delta };
        }
        break;
      }
      case "response.function_call_arguments.done": {
        // The final arguments are authoritative (a server may skip or coalesce deltas).
        const slot = this.callByItem.get(event.item_id);
        if (slot) slot.call.function.arguments = event.arguments;
        break;
      }
      case "response.output_item.done":
        yield* this.itemDone(event.item);
        break;
      case "response.completed":
      case "response.incomplete":
        this.status = event.response.status ?? event.type.slice("response.".length);
        this.incompleteReason = event.response.incomplete_details?.reason ?? undefined;
        if (event.response.usage) this.usage = toUsage(event.response.usage);
        break;
      case "response.failed":
        if (event.response.usage) this.usage = toUsage(event.response.usage);
        throw new ResponseFailedError(event.response.error);
      default:
        break;
    }
  }

  private *itemAdded(item: ResponseOutputItem): Generator<LlmEvent> {
    if (item.type !== "function_call") return;
    const slot = this.slotFor(item.id ?? item.call_id);
    slot.call.id ||= item.call_id;
    slot.call.function.name ||= item.name;
    slot.call.function.arguments += item.arguments ?? "";
    yield* this.start(slot);
  }

  private *itemDone(item: ResponseOutputItem): Generator<LlmEvent> {
    if (item.type === "function_call") {
      const slot = this.slotFor(item.id ?? item.call_id);
      slot.call.id ||= item.call_id;
      slot.call.function.name ||= item.name;
      if (item.arguments) slot.call.function.arguments = item.arguments;
      yield* this.start(slot);
    } else if (item.type === "message") {
      // Servers that send whole items without deltas: the text arrives here once.
      if (this.streamedItems.has(item.id)) return;
      for (const part of item.content) {
        if (part.type === "output_text") yield* this.addText(part.text);
        else if (part.type === "refusal") {
          this.refused = true;
          yield* this.addText(part.refusal);
        }
      }
    } else if (item.type === "reasoning") {
      const summary = item.summary.map((s) => s.text);
      if (!this.streamedItems.has(item.id) && summary.length > 0)
        yield* this.addReasoning(summary.join("\n\n"));
      if (item.encrypted_content)
        this.reasoningItems.push({ encrypted_content: item.encrypted_content, summary });
    }
  }

  private slotFor(itemId: string): CallSlot {
    let slot = this.callByItem.get(itemId);
    if (!slot) {
      slot = {
        slot: this.calls.length,
        call: { id: "", type: "function", function: { name: "", arguments: "" } },
        started: false,
      };
      this.calls.push(slot);
      this.callByItem.set(itemId, slot);
    }
    return slot;
  }

  private *start(slot: CallSlot): Generator<LlmEvent> {
    if (slot.started || !slot.call.function.name) return;
    slot.started = true;
    slot.call.id ||= `call_${slot.slot}_${Date.now().toString(36)}`;
    yield { type: "tool_call_start", index: slot.slot, id: slot.call.id, name: slot.call.function.name };
    const args = slot.call.function.arguments;
    if (args) yield { type: "tool_call_delta", index: slot.slot, argumentsDelta: args };
  }

  private *addText(text: string): Generator<LlmEvent> {
    if (!text) return;
    this.text += text;
    yield { type: "text_delta", text };
  }

  private *addReasoning(text: string): Generator<LlmEvent> {
    if (!text) return;
    this.reasoning += text;
    yield { type: "reasoning_delta", text };
  }

  message(): AssistantMessage {
    const message = assistantMessage(this.text, this.reasoning);
    const calls = this.calls
      .filter((s) => s.call.function.name)
      .map((s) => ({ ...s.call, function: { ...s.call.function } }));
    if (calls.length > 0) message.tool_calls = calls;
    if (this.reasoningItems.length > 0) message.reasoning_items = this.reasoningItems.map((r) => ({ ...r }));
    return message;
  }

  finishReason(): FinishReason {
    if (this.status === "incomplete") {
      if (this.incompleteReason === "content_filter") return "content_filter";
      return "length";
    }
    if (this.calls.some((s) => s.call.function.name)) return "tool_calls";
    return this.refused ? "content_filter" : "stop";
  }
}

/** input_tokens already includes the cached ones, as on chat completions. */
export function toUsage(u: ResponseUsage): Usage {
  const usage = emptyUsage();
  usage.inputTokens = u.input_tokens ?? 0;
  usage.outputTokens = u.output_tokens ?? 0;
  usage.cacheReadTokens = u.input_tokens_details?.cached_tokens ?? 0;
  usage.cacheWriteTokens = u.input_tokens_details?.cache_write_tokens ?? 0;
  usage.reasoningTokens = u.output_tokens_details?.reasoning_tokens ?? 0;
  return usage;
}

/**
 * Streams one Responses API call. Never throws: HTTP errors, in-stream `error` and
 * `response.failed` events, resets, idle timeouts and aborts all end with an `error` event.
 */
export const streamResponses: StreamFn = (request) =>
  runProviderStream(request, new ResponsesAssembler(), (signal) =>
    streamOpenAIEvents<ResponseStreamEvent>(
      request.target,
      "/responses",
      buildResponsesParams(request),
      signal,
    ),
  );
