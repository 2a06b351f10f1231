/**
 * The tool hooks on the shared call path (the model's calls, a script's, the bridge's tool_call):
 * pre_tool_call before the dispatch, the transform hooks on its result before redaction (so a
 * hook's text is redacted like the tool's own), post_tool_call with what the model reads.
 */
import type { ToolContext } from "../tools/context.js";
import { capResult, DEFAULT_MAX_RESULT_CHARS, type ToolRegistry } from "../tools/registry.js";
import { resultText, type ToolResult, withText } from "../tools/result.js";
import type { HookBus, HookPayload } from "./hooks.js";

/** The fields every tool hook gets. */
export function toolHookPayload(
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  callId: string | undefined,
): HookPayload & { args: Record<string, unknown> } {
  return {
    tool_name: name,
    args,
    session_id: ctx.sessionId,
    task_id: ctx.taskId,
    tool_call_id: callId ?? "",
    platform: ctx.platform,
  };
}

/** True when a transform hook could change this tool's result. */
export function transformsResult(hooks: HookBus | undefined, name: string): hooks is HookBus {
  return (
    hooks !== undefined &&
    (hooks.has("transform_tool_result") || (name === "terminal" && hooks.has("transform_terminal_output")))
  );
}

/**
 * transform_terminal_output (the terminal's `output` field), then transform_tool_result (the whole
 * text). A replaced text is capped like the tool's own. Images and details stay.
 */
export async function transformToolResult(
  hooks: HookBus,
  registry: ToolRegistry<ToolContext>,
  payload: HookPayload,
  result: ToolResult,
): Promise<ToolResult> {
  const name = String(payload.tool_name);
  const cap = registry.get(name)?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const original = resultText(result);
  let text = original;
  if (name === "terminal" && hooks.has("transform_terminal_output"))
    text = await transformTerminal(hooks, payload, text);
  if (hooks.has("transform_tool_result")) {
    text = await hooks.transform(
      "transform_tool_result",
      { ...payload, result: text, is_error: result.isError === true },
      "result",
    );
  }
  return text === original ? result : withText(result, capResult(text, cap));
}

/** The terminal's JSON result with its `output` as the hooks left it (anything else is passed by). */
async function transformTerminal(hooks: HookBus, payload: HookPayload, text: string): Promise<string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    typeof (parsed as { output?: unknown }).output !== "string"
  )
    return text;
  const fields = parsed as Record<string, unknown>;
  const args = payload.args as Record<string, unknown>;
  const output = await hooks.transform(
    "transform_terminal_output",
    {
      ...payload,
      command: typeof args.command === "string" ? args.command : "",
      output: fields.output,
      exit_code: fields.exit_code ?? null,
      cwd: fields.cwd ?? "",
    },
    "output",
  );
  return output === fields.output ? text : JSON.stringify({ ...fields, output });
}
