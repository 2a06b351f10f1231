import type { LlmEvent, LlmRequest, ModelTarget, StreamFn, ToolDefinition } from "../../src/llm/types.js";

export interface Collected {
  events: LlmEvent[];
  text: string;
  reasoning: string;
  last: LlmEvent;
  /** Set when the generator threw: the contract says it never may. */
  thrown?: unknown;
}

/** Drains a stream; records (rather than propagates) a throw so tests can assert it never happens. */
export async function collect(stream: AsyncIterable<LlmEvent>): Promise<Collected> {
  const events: LlmEvent[] = [];
  let thrown: unknown;
  try {
    for await (const e of stream) events.push(e);
  } catch (err) {
    thrown = err ?? new Error("thrown undefined");
  }
  const text = events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
  const reasoning = events.map((e) => (e.type === "reasoning_delta" ? e.text : "")).join("");
  const last = events[events.length - 1] ?? { type: "text_delta", text: "<no events>" };
  return thrown === undefined ? { events, text, reasoning, last } : { events, text, reasoning, last, thrown };
}

export function done(c: Collected): Extract<LlmEvent, { type: "done" }> {
  if (c.thrown) throw new Error(`stream threw: ${String(c.thrown)}`);
  if (c.last.type !== "done") throw new Error(`expected done, got ${JSON.stringify(c.last)}`);
  return c.last;
}

export function failed(c: Collected): Extract<LlmEvent, { type: "error" }> {
  if (c.thrown) throw new Error(`stream threw: ${String(c.thrown)}`);
  if (c.last.type !== "error") throw new Error(`expected error, got ${JSON.stringify(c.last)}`);
  return c.last;
}

export const READ_FILE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "read_file",
    description: "Read a text file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

export function request(target: ModelTarget, over: Partial<LlmRequest> = {}): LlmRequest {
  return {
    target,
    messages: [
      { role: "system", content: "You are Hermes." },
      { role: "user", content: "Hello" },
    ],
    tools: [READ_FILE_TOOL],
    ...over,
  };
}

export function run(fn: StreamFn, req: LlmRequest): Promise<Collected> {
  return collect(fn(req));
}
