/**
 * Internal (OpenAI chat-shaped) messages and tools → OpenAI Responses API request. The
 * conversation is kept client-side: every request carries the whole history with `store: false`,
 * so nothing depends on server-side state (no previous_response_id), exactly like the other
 * protocols. Pure functions.
 */
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputContent,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import { baseUrlHostMatches } from "./detect.js";
import { isOpenAIReasoningModel, supportsReasoning, temperatureFor } from "./quirks.js";
import type {
  ChatMessage,
  ContentPart,
  LlmRequest,
  ModelTarget,
  ReasoningItem,
  ToolDefinition,
  ToolMessage,
} from "./types.js";

function userContent(content: string | ContentPart[]): string | ResponseInputContent[] {
  if (typeof content === "string") return content;
  return content.map(
    (part): ResponseInputContent =>
      part.type === "text"
        ? { type: "input_text", text: part.text }
        : { type: "input_image", image_url: part.image_url.url, detail: "auto" },
  );
}

/** A tool's text, or text and images as output items when it returned images. */
function toolOutput(m: ToolMessage): string | ResponseFunctionCallOutputItemList {
  if (!m.images?.length) return m.content;
  const items: ResponseFunctionCallOutputItemList = m.content
    ? [{ type: "input_text", text: m.content }]
    : [];
  for (const image of m.images)
    items.push({ type: "input_image", image_url: image.image_url.url, detail: "auto" });
  return items;
}

/**
 * A reasoning item for replay. The id is left out on purpose: with `store: false` the server has
 * no item to resolve it against, and the encrypted content alone carries the reasoning.
 */
function reasoningInput(item: ReasoningItem): ResponseInputItem {
  return {
    type: "reasoning",
    encrypted_content: item.encrypted_content,
    summary: item.summary.map((text) => ({ type: "summary_text" as const, text })),
  } as unknown as ResponseInputItem;
}

/**
 * Splits system text into `instructions` and converts the rest into input items: user/assistant
 * messages, `function_call` items for the assistant's tool calls and `function_call_output` items
 * for tool results (matched by call id, as the protocol requires).
 */
export function toResponsesInput(messages: readonly ChatMessage[]): {
  instructions: string;
  input: ResponseInputItem[];
} {
  const system: string[] = [];
  const input: ResponseInputItem[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        if (m.content) system.push(m.content);
        break;
      case "user":
        input.push({ type: "message", role: "user", content: userContent(m.content) });
        break;
      case "assistant":
        for (const item of m.reasoning_items ?? []) input.push(reasoningInput(item));
        if (m.content) input.push({ type: "message", role: "assistant", content: m.content });
        for (const call of m.tool_calls ?? []) {
          input.push({
            type: "function_call",
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          });
        }
        break;
      case "tool":
        input.push({ type: "function_call_output", call_id: m.tool_call_id, output: toolOutput(m) });
        break;
    }
  }
  return { instructions: system.join("\n\n"), input };
}

export function toResponsesTools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.function.name,
    description: t.function.description,
    parameters: t.function.parameters,
    // Strict mode would reject the optional parameters most tool schemas have.
    strict: false,
  }));
}

/** ChatGPT's Codex backend (provider openai-codex) rather than the public Responses API. */
export function isCodexBackend(target: Pick<ModelTarget, "provider" | "baseUrl">): boolean {
  return (
    target.provider === "openai-codex" ||
    target.baseUrl.toLowerCase().includes("/backend-api/codex") ||
    baseUrlHostMatches(target.baseUrl, "chatgpt.com")
  );
}

/** The full streaming request body. */
export function buildResponsesParams(request: LlmRequest): ResponseCreateParamsStreaming {
  const { target } = request;
  const { instructions, input } = toResponsesInput(request.messages);
  const params: ResponseCreateParamsStreaming = {
    model: target.model,
    input,
    stream: true,
    store: false,
  };
  if (instructions) params.instructions = instructions;
  if (request.tools.length > 0) {
    params.tools = toResponsesTools(request.tools);
    if (request.toolChoice) params.tool_choice = request.toolChoice;
  }
  const codex = isCodexBackend(target);
  // The Codex backend fixes the output cap itself and rejects the parameter.
  if (target.maxTokens !== undefined && !codex) params.max_output_tokens = target.maxTokens;
  const temperature = temperatureFor(target.model, request.temperature);
  if (temperature !== undefined) params.temperature = temperature;
  if (request.topP !== undefined && temperature !== undefined) params.top_p = request.topP;
  const format = request.responseFormat;
  if (format?.type === "json_object") params.text = { format: { type: "json_object" } };
  else if (format?.type === "json_schema") {
    const { name, schema, description, strict } = format;
    params.text = {
      format: {
        type: "json_schema",
        name,
        schema,
        ...(description !== undefined ? { description } : {}),
        ...(strict !== undefined ? { strict } : {}),
      },
    };
  }
  if (target.reasoningEffort) params.reasoning = { effort: target.reasoningEffort, summary: "auto" };
  // Stateless reasoning: ask for the encrypted reasoning so the next request can carry it back.
  if (codex || isOpenAIReasoningModel(target.model) || supportsReasoning(target.model))
    params.include = ["reasoning.encrypted_content"];
  return params;
}
