/**
 * Token estimation without a tokenizer (seed 004 §7). A byte-class heuristic: prose runs at about
 * four characters per token, code and JSON denser, CJK close to one token per character. Each
 * message pays a small framing overhead, tool schemas count too. Real prompt counts reported by the
 * provider recalibrate the estimate (a running correction factor), so it tracks the model's tokenizer.
 */
import type { ChatMessage, ToolDefinition } from "../../llm/types.js";

/** Framing tokens per message (role markers, separators) and per request. */
const PER_MESSAGE = 4;
const PER_REQUEST = 3;
const PER_TOOL = 8;

/** Tokens for one string: counted per character class in a single pass (fast on megabytes). */
export function estimateTextTokens(text: string): number {
  let letters = 0;
  let symbols = 0;
  let spaces = 0;
  let wide = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x2e80) wide += 1;
    else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) letters += 1;
    else if (c >= 48 && c <= 57) digits += 1;
    else if (c === 32) spaces += 1;
    else if (c === 10 || c === 9 || c === 13) symbols += 1;
    else if (c >= 0x80) wide += 0.5;
    else symbols += 1;
  }
  // Words of letters merge into ~4.2 chars per token; punctuation (JSON, code) is close to 1:1 but
  // often fused with neighbours; digits tokenise in groups of up to three.
  return Math.ceil(letters / 4.2 + digits / 3.2 + symbols * 0.65 + spaces * 0.2 + wide * 0.8);
}

function contentText(m: ChatMessage): string {
  if (typeof m.content === "string") return m.content;
  if (m.content === null) return "";
  return m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

/** Images are billed by the provider's own rules; a flat figure keeps the estimate from ignoring them. */
const IMAGE_TOKENS = 800;

/**
 * Messages of a conversation are estimated again before every model call: each one's figure is
 * kept, so a long history (an API client's megabytes) is read once, not twice per call.
 */
const messageEstimates = new WeakMap<ChatMessage, number>();

export function estimateMessageTokens(m: ChatMessage): number {
  let n = messageEstimates.get(m);
  if (n === undefined) {
    n = countMessageTokens(m);
    messageEstimates.set(m, n);
  }
  return n;
}

function countMessageTokens(m: ChatMessage): number {
  let n = PER_MESSAGE + estimateTextTokens(contentText(m));
  if (m.role === "user" && Array.isArray(m.content)) {
    for (const p of m.content) if (p.type === "image_url") n += IMAGE_TOKENS;
  }
  if (m.role === "assistant" && m.tool_calls) {
    for (const tc of m.tool_calls) {
      n += PER_MESSAGE + estimateTextTokens(tc.function.name) + estimateTextTokens(tc.function.arguments);
    }
  }
  if (m.role === "tool") n += 2;
  return n;
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  let n = PER_REQUEST;
  for (const m of messages) n += estimateMessageTokens(m);
  return n;
}

/**
 * A session's tool definitions are the same objects from request to request: each one's estimate
 * is computed once, not by serializing every schema on every model call.
 */
const toolEstimates = new WeakMap<ToolDefinition, number>();

export function estimateToolsTokens(tools: readonly ToolDefinition[]): number {
  let n = 0;
  for (const t of tools) {
    let own = toolEstimates.get(t);
    if (own === undefined) {
      own = PER_TOOL + estimateTextTokens(JSON.stringify(t.function));
      toolEstimates.set(t, own);
    }
    n += own;
  }
  return n;
}

/**
 * The estimator with a correction learned from real usage: after a call whose prompt the provider
 * counted, `calibrate(estimate, actual)` moves the factor toward actual/estimate (bounded, smoothed).
 */
export class TokenEstimator {
  private factor = 1;

  get correction(): number {
    return this.factor;
  }

  /** Estimated prompt tokens for a request of `messages` plus `tools`. */
  request(messages: readonly ChatMessage[], tools: readonly ToolDefinition[] = []): number {
    return Math.ceil((estimateMessagesTokens(messages) + estimateToolsTokens(tools)) * this.factor);
  }

  messages(messages: readonly ChatMessage[]): number {
    return Math.ceil(estimateMessagesTokens(messages) * this.factor);
  }

  calibrate(rawEstimate: number, actual: number): void {
    if (rawEstimate <= 0 || actual <= 0) return;
    const ratio = Math.min(2, Math.max(0.5, actual / rawEstimate));
    this.factor = this.factor * 0.5 + ratio * 0.5;
  }

  /** Uncorrected estimate (what `calibrate` compares with the provider's count). */
  raw(messages: readonly ChatMessage[], tools: readonly ToolDefinition[] = []): number {
    return estimateMessagesTokens(messages) + estimateToolsTokens(tools);
  }
}
