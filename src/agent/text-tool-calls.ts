/**
 * Tool calls a model wrote as text. Local servers whose chat template does not map a model's
 * native tool-call format (Hermes/Qwen `<tool_call>` tags, Llama's `<|python_tag|>`, Mistral's
 * `[TOOL_CALLS]`, or a reply that is nothing but a call object) return them as plain content, and
 * the call is never run. Recognised only in those exact shapes, naming a tool the session offers,
 * so a model explaining JSON to the user is left alone.
 */
import { randomUUID } from "node:crypto";
import { repairToolArguments } from "../llm/json-repair.js";
import type { AssistantMessage, ToolCall, ToolDefinition } from "../llm/types.js";
import type { AgentEvent } from "./events.js";

export interface RecoveredCalls {
  calls: ToolCall[];
  /** The content with the call markup removed (null when nothing else was said). */
  content: string | null;
}

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
const PYTHON_TAG = /<\|python_tag\|>\s*([\s\S]*?)\s*(?:<\|eom_id\|>|<\|eot_id\|>|$)/;
const MISTRAL = /\[TOOL_CALLS\]\s*(\[[\s\S]*\])\s*$/;
const FENCE = /^```(?:json)?\s*([\s\S]*?)\s*```$/;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const repaired = repairToolArguments(text);
    return repaired.fallback ? undefined : repaired.args;
  }
}

/** `{"name": ..., "arguments"|"parameters": {...}}` naming an offered tool, as a ToolCall. */
function toCall(value: unknown, offered: (name: string) => string | undefined): ToolCall | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const name = typeof v.name === "string" ? offered(v.name) : undefined;
  if (!name) return undefined;
  const keys = Object.keys(v).filter((k) => k !== "name" && k !== "id" && k !== "type");
  if (keys.length > 1) return undefined;
  const raw = keys.length === 0 ? {} : v[keys[0]!];
  if (keys.length === 1 && keys[0] !== "arguments" && keys[0] !== "parameters") return undefined;
  let args: unknown = raw;
  if (typeof raw === "string") args = parseJson(raw);
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  return {
    id: `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  };
}

/** Every element must be a call: a half-recognised list is not a tool call. */
function callsFrom(value: unknown, offered: (name: string) => string | undefined): ToolCall[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return undefined;
  const calls = items.map((item) => toCall(item, offered));
  return calls.every((c): c is ToolCall => c !== undefined) ? calls : undefined;
}

/**
 * The calls written in `content`, or undefined when it holds none. `offered` maps a name the model
 * used to the session's tool (undefined for anything else).
 */
export function recoverTextToolCalls(
  content: string,
  offered: (name: string) => string | undefined,
): RecoveredCalls | undefined {
  const text = content.trim();
  if (!text) return undefined;
  if (text.includes("<tool_call>")) {
    const calls: ToolCall[] = [];
    for (const m of text.matchAll(TAGGED)) {
      const found = callsFrom(parseJson(m[1] ?? ""), offered);
      if (!found) return undefined;
      calls.push(...found);
    }
    if (calls.length === 0) return undefined;
    const rest = text.replace(TAGGED, "").trim();
    return { calls, content: rest || null };
  }
  const python = PYTHON_TAG.exec(text);
  if (python) {
    const calls = callsFrom(parseJson(python[1] ?? ""), offered);
    const rest = text.slice(0, python.index).trim();
    return calls ? { calls, content: rest || null } : undefined;
  }
  const mistral = MISTRAL.exec(text);
  if (mistral) {
    const calls = callsFrom(parseJson(mistral[1] ?? ""), offered);
    const rest = text.slice(0, mistral.index).trim();
    return calls ? { calls, content: rest || null } : undefined;
  }
  // A reply that is nothing but a call object (or a list of them), optionally in a code fence.
  const body = FENCE.exec(text)?.[1] ?? text;
  if (!body.startsWith("{") && !body.startsWith("[")) return undefined;
  const calls = callsFrom(parseJson(body), offered);
  return calls ? { calls, content: null } : undefined;
}

/** `message` with the tool calls it wrote as text made real (and a status line saying so). */
export function withTextToolCalls(
  message: AssistantMessage,
  tools: readonly ToolDefinition[],
  resolveName: (name: string) => string | undefined,
  emit: (event: AgentEvent) => void,
): AssistantMessage {
  if (message.tool_calls?.length || !message.content || tools.length === 0) return message;
  const offered = new Set(tools.map((t) => t.function.name));
  const recovered = recoverTextToolCalls(message.content, (name) => {
    const resolved = resolveName(name);
    return resolved !== undefined && offered.has(resolved) ? resolved : undefined;
  });
  if (!recovered) return message;
  const n = recovered.calls.length;
  emit({
    type: "status",
    kind: "info",
    message: `Ran ${n} tool call${n === 1 ? "" : "s"} the model wrote as text (its server did not parse ${n === 1 ? "it" : "them"})`,
  });
  return { ...message, content: recovered.content, tool_calls: recovered.calls };
}
