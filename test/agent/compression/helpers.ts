import type { ChatMessage } from "../../../src/llm/types.js";

/** A coding-style transcript: `turns` user requests, each answered through `toolsPerTurn` tool calls. */
export function transcript(turns: number, toolsPerTurn = 2, outputChars = 3000): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: "You are a coding agent. Be careful." }];
  let id = 0;
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `Request ${t}: please inspect module ${t} and fix the bug.` });
    for (let k = 0; k < toolsPerTurn; k++) {
      const callId = `call_${id++}`;
      const path = `src/mod${t}_${k}.ts`;
      out.push({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: callId,
            type: "function",
            function: { name: "read_file", arguments: JSON.stringify({ path }) },
          },
        ],
      });
      const body = `export function f${t}_${k}(x: number): number {\n  return x * ${t + k};\n}\n`;
      out.push({
        role: "tool",
        tool_call_id: callId,
        name: "read_file",
        content: body.repeat(Math.ceil(outputChars / body.length)),
      });
    }
    out.push({ role: "assistant", content: `Fixed module ${t}.` });
  }
  return out;
}

/** No two user-side turns in a row and no two plain assistant turns in a row (tool results excepted). */
export function alternates(messages: readonly ChatMessage[]): boolean {
  for (let i = 1; i < messages.length; i++) {
    const a = messages[i - 1]!.role;
    const b = messages[i]!.role;
    if (a === "user" && b === "user") return false;
  }
  return true;
}
