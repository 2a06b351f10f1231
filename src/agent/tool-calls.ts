import { repairToolArguments } from "../llm/json-repair.js";
import type { ToolCall } from "../llm/types.js";

/** A model tool call after name and argument repair, ready to dispatch (or to answer with an error). */
export interface PreparedCall {
  call: ToolCall;
  /** The registered tool to run; undefined when the name matches no enabled tool. */
  toolName: string | undefined;
  args: Record<string, unknown>;
  /** Set when the call cannot run; becomes the tool result as-is. */
  error?: string;
  /** Arguments were malformed and repaired (or replaced by {}). */
  argsRepaired: boolean;
}

/**
 * Repairs names (case/separator slips) and arguments (malformed JSON; `{}` as the last resort so
 * the next request is valid JSON). The repaired arguments are written back into the call so the
 * history sent on the next request never carries broken JSON.
 */
export function prepareToolCalls(
  calls: ToolCall[],
  resolveName: (name: string) => string | undefined,
  enabled: ReadonlySet<string>,
  /** Why a registered tool is not enabled here (shown instead of "unknown tool"). */
  whyDisabled?: (name: string) => string,
): PreparedCall[] {
  return calls.map((call) => {
    const raw = call.function.arguments;
    const repaired = repairToolArguments(raw);
    const argsRepaired = repaired.repaired || repaired.fallback;
    if (argsRepaired) call.function.arguments = JSON.stringify(repaired.args);
    const resolved = resolveName(call.function.name);
    const toolName = resolved !== undefined && enabled.has(resolved) ? resolved : undefined;
    if (toolName === undefined && resolved !== undefined && whyDisabled) {
      return {
        call,
        toolName,
        args: repaired.args,
        argsRepaired,
        error: JSON.stringify({ error: `'${resolved}' is not available here: ${whyDisabled(resolved)}` }),
      };
    }
    if (toolName === undefined) {
      const available = [...enabled].sort().join(", ");
      return {
        call,
        toolName,
        args: repaired.args,
        argsRepaired,
        error: JSON.stringify({
          error: `Unknown tool '${call.function.name}'. Available tools: ${available || "(none)"}.`,
        }),
      };
    }
    if (toolName !== call.function.name) call.function.name = toolName;
    if (repaired.fallback && raw.trim() !== "") {
      const preview = raw.length > 200 ? `${raw.slice(0, 200)}...` : raw;
      return {
        call,
        toolName,
        args: repaired.args,
        argsRepaired,
        error: JSON.stringify({
          error: `The arguments for '${toolName}' were not valid JSON and could not be repaired: ${preview}. Call the tool again with a JSON object.`,
        }),
      };
    }
    return { call, toolName, args: repaired.args, argsRepaired };
  });
}
