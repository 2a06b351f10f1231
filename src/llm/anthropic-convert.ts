/**
 * Internal (OpenAI-shaped) messages and tools → Anthropic Messages API request pieces.
 * Pure functions; the prompt-cache layout is applied on top by `buildAnthropicParams`.
 */
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import { applyAnthropicCacheControl } from "./caching.js";
import { repairToolArguments } from "./json-repair.js";
import { supportsReasoning, THINKING_BUDGETS, temperatureFor } from "./quirks.js";
import type { ChatMessage, ContentPart, LlmRequest, ThinkingBlock, ToolDefinition } from "./types.js";

/** Anthropic needs an output cap on every request. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/** Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; other vendors' ids (e.g. "functions.x:0") don't. */
export function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean || "toolu_missing";
}

function imageBlock(url: string): ImageBlockParam {
  const data = /^data:(image\/[a-z+]+);base64,(.*)$/is.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase() as "image/jpeg" | "image/png" | "image/gif" | "image/webp";
    return { type: "image", source: { type: "base64", media_type: mediaType, data: data[2]! } };
  }
  return { type: "image", source: { type: "url", url } };
}

/**
 * Always a block list, never a bare string: then moving cache markers (last 3 messages) only adds or
 * removes a `cache_control` key, and every request stays a byte-prefix extension of the previous one.
 */
function userContent(content: string | ContentPart[]): ContentBlockParam[] {
  if (typeof content === "string") return asBlocks(content);
  const blocks: ContentBlockParam[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text) blocks.push({ type: "text", text: part.text });
    } else {
      blocks.push(imageBlock(part.image_url.url));
    }
  }
  return blocks;
}

/** Only signed thinking (or redacted data) can be replayed; anything else is rejected with 400. */
function thinkingBlocks(blocks: readonly ThinkingBlock[] | undefined): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of blocks ?? []) {
    if (b.type === "thinking" && b.signature) {
      out.push({ type: "thinking", thinking: b.thinking ?? "", signature: b.signature });
    } else if (b.type === "redacted_thinking" && b.data) {
      out.push({ type: "redacted_thinking", data: b.data });
    }
  }
  return out;
}

function asBlocks(content: string | ContentBlockParam[]): ContentBlockParam[] {
  if (typeof content !== "string") return content;
  return content ? [{ type: "text", text: content }] : [];
}

/**
 * Splits out system text and converts the rest. Tool results become `tool_result` blocks in a user
 * turn, and consecutive same-role turns are merged, because Anthropic wants strict alternation
 * with all results for one assistant turn in a single user message.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): {
  system: TextBlockParam[];
  messages: MessageParam[];
} {
  const system: TextBlockParam[] = [];
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", content: string | ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) {
      last.content = [...asBlocks(last.content), ...asBlocks(content)];
    } else {
      out.push({ role, content });
    }
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        if (m.content) system.push({ type: "text", text: m.content });
        break;
      case "user":
        push("user", userContent(m.content));
        break;
      case "assistant": {
        const blocks = thinkingBlocks(m.thinking_blocks);
        if (m.content) blocks.push({ type: "text", text: m.content });
        for (const call of m.tool_calls ?? []) {
          blocks.push({
            type: "tool_use",
            id: anthropicToolId(call.id),
            name: call.function.name,
            input: repairToolArguments(call.function.arguments).args,
          });
        }
        // An empty assistant turn is rejected by the API and carries nothing: drop it.
        if (blocks.length > 0) push("assistant", blocks);
        break;
      }
      case "tool": {
        const block: ContentBlockParam = {
          type: "tool_result",
          tool_use_id: anthropicToolId(m.tool_call_id),
        };
        if (m.images?.length)
          block.content = [
            ...(m.content ? [{ type: "text" as const, text: m.content }] : []),
            ...m.images.map((i) => imageBlock(i.image_url.url)),
          ];
        else if (m.content) block.content = m.content;
        push("user", [block]);
        break;
      }
    }
  }
  return { system, messages: out };
}

export function toAnthropicTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: { type: "object", ...t.function.parameters } as Tool.InputSchema,
  }));
}

/**
 * The SDK's types no longer list `temperature` and `top_p` (newer Claude models fix them), but
 * compatible endpoints still honour them, so they are sent only when the caller asks for them.
 */
export type AnthropicStreamParams = MessageCreateParamsStreaming & { temperature?: number; top_p?: number };

/** The full streaming request body, with the system_and_3 cache layout applied. */
export function buildAnthropicParams(request: LlmRequest): AnthropicStreamParams {
  const { target } = request;
  const converted = toAnthropicMessages(request.messages);
  const cached = applyAnthropicCacheControl(converted.system, converted.messages, target.cacheTtl);
  const params: AnthropicStreamParams = {
    model: target.model,
    max_tokens: target.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: cached.messages,
    stream: true,
  };
  if (cached.system.length > 0) params.system = cached.system;
  if (request.tools.length > 0) {
    params.tools = toAnthropicTools(request.tools);
    if (request.toolChoice) params.tool_choice = { type: request.toolChoice };
  }
  const effort = target.reasoningEffort;
  if (effort && supportsReasoning(target.model)) {
    const budget = THINKING_BUDGETS[effort];
    if (target.maxTokens === undefined) {
      // The output cap must exceed the thinking budget and still leave room for the answer.
      params.max_tokens = Math.max(params.max_tokens, budget + DEFAULT_ANTHROPIC_MAX_TOKENS);
      params.thinking = { type: "enabled", budget_tokens: budget };
    } else if (target.maxTokens > MIN_THINKING_BUDGET) {
      // The user's cap wins: the budget shrinks to fit under it.
      const fitted = Math.min(budget, target.maxTokens - 1);
      params.thinking = { type: "enabled", budget_tokens: Math.max(MIN_THINKING_BUDGET, fitted) };
    }
  }
  // Extended thinking rejects any temperature but the default.
  const temperature = params.thinking ? undefined : temperatureFor(target.model, request.temperature);
  if (temperature !== undefined) params.temperature = temperature;
  if (request.topP !== undefined && !params.thinking) params.top_p = request.topP;
  if (request.stop?.length) params.stop_sequences = request.stop;
  return params;
}

/** Anthropic's smallest accepted thinking budget. */
const MIN_THINKING_BUDGET = 1024;
