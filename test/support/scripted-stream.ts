import type {
  AssistantMessage,
  LlmEvent,
  LlmRequest,
  StreamFn,
  ToolCall,
  Usage,
} from "../../src/llm/types.js";

/** One scripted model reply for loop unit tests (the HTTP-level fake is fake-llm.ts). */
export interface StreamTurn {
  text?: string;
  toolCalls?: Array<{ name: string; arguments: string | Record<string, unknown>; id?: string }>;
  /** End with this error instead of a reply (after streaming `text`, if given, as a partial answer). */
  error?: Extract<LlmEvent, { type: "error" }>["error"];
  /** Wait for the request's abort signal before answering (simulates a hung provider). */
  hang?: boolean;
}

export interface ScriptedStream {
  streamFn: StreamFn;
  requests: LlmRequest[];
  /** Snapshots of each request's messages (the array itself keeps growing after the call). */
  snapshots: string[];
}

const usage = (input: number, output: number): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});

/** A StreamFn that plays `turns` in order; `fallback` answers once the script is used up. */
export function scriptedStream(
  turns: StreamTurn[],
  fallback?: (req: LlmRequest) => StreamTurn,
): ScriptedStream {
  const requests: LlmRequest[] = [];
  const snapshots: string[] = [];
  let n = 0;
  const streamFn: StreamFn = async function* (req) {
    requests.push(req);
    snapshots.push(JSON.stringify(req.messages));
    const turn = turns.shift() ?? fallback?.(req);
    if (!turn) {
      yield {
        type: "error",
        error: {
          reason: "unknown",
          message: "script exhausted",
          retryable: false,
          shouldCompress: false,
          shouldRotateCredential: false,
          shouldFallback: false,
        },
      };
      return;
    }
    if (turn.hang) {
      await new Promise<void>((resolve) => {
        if (req.signal?.aborted) resolve();
        req.signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      yield {
        type: "error",
        error: {
          reason: "aborted",
          message: "aborted",
          retryable: false,
          shouldCompress: false,
          shouldRotateCredential: false,
          shouldFallback: false,
        },
      };
      return;
    }
    if (turn.error) {
      // Text with an error: the provider failed mid-answer, after streaming part of it.
      for (const piece of turn.text?.match(/.{1,5}/gs) ?? []) yield { type: "text_delta", text: piece };
      yield turn.text
        ? { type: "error", error: turn.error, partial: { role: "assistant", content: turn.text } }
        : { type: "error", error: turn.error };
      return;
    }
    if (turn.text) {
      for (const piece of turn.text.match(/.{1,5}/gs) ?? []) yield { type: "text_delta", text: piece };
    }
    const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map((tc) => ({
      id: tc.id ?? `call_${++n}`,
      type: "function",
      function: {
        name: tc.name,
        arguments: typeof tc.arguments === "string" ? tc.arguments : JSON.stringify(tc.arguments),
      },
    }));
    const message: AssistantMessage = { role: "assistant", content: turn.text ?? null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    yield {
      type: "done",
      message,
      usage: usage(100, 10),
      finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
    };
  };
  return { streamFn, requests, snapshots };
}
