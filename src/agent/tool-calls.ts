import { repairToolArguments } from "../llm/json-repair.js";
import type { ToolCall } from "../llm/types.js";
import { nameVariants, repairToolName } from "./tool-name-repair.js";

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

/** How much of the cut-off text the error quotes, so the model sees where its reply stopped. */
const CUT_TAIL_CHARS = 80;

/**
 * Repairs names (case/separator slips, quoting or markup around the name, class-style spellings,
 * typos) and arguments (malformed JSON; `{}` as the last resort so the next request is valid
 * JSON). Arguments cut off (inside a value, or with brackets left open) or whose brackets do not
 * pair up never run: the call gets an error telling the model to resend it whole. The repaired
 * arguments are written back into the call so the history sent on the next request never carries
 * broken JSON.
 */
export function prepareToolCalls(
  calls: ToolCall[],
  resolveName: (name: string) => string | undefined,
  enabled: ReadonlySet<string>,
  /** Why a registered tool is not enabled here (shown instead of "unknown tool"). */
  whyDisabled?: (name: string) => string,
  /** The tools offered in this request: a name that needed guessing only ever becomes one of these. */
  offered?: Iterable<string>,
): PreparedCall[] {
  const guessable = new Set([...(offered ?? enabled)].filter((n) => enabled.has(n)));
  return calls.map((call) => {
    const raw = call.function.arguments;
    const repaired = repairToolArguments(raw);
    const argsRepaired = repaired.repaired || repaired.fallback;
    if (argsRepaired) call.function.arguments = JSON.stringify(repaired.args);
    const literal = resolveName(call.function.name);
    const resolved = literal ?? guessName(call.function.name, resolveName, guessable);
    const usable = literal !== undefined ? enabled : guessable;
    const toolName = resolved !== undefined && usable.has(resolved) ? resolved : undefined;
    if (toolName === undefined && resolved !== undefined && !enabled.has(resolved) && whyDisabled) {
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
    if (repaired.truncated) {
      return { call, toolName, args: repaired.args, argsRepaired, error: cutOffError(toolName, raw) };
    }
    if (repaired.mismatched) {
      return { call, toolName, args: repaired.args, argsRepaired, error: mismatchError(toolName, raw) };
    }
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

/**
 * A name that matches no tool as written: a reading of it the registry knows (even a disabled
 * tool, so the model hears why it cannot use it), else the one offered tool it plausibly means.
 */
function guessName(
  name: string,
  resolveName: (name: string) => string | undefined,
  offered: ReadonlySet<string>,
): string | undefined {
  for (const variant of nameVariants(name)) {
    const known = resolveName(variant);
    if (known !== undefined) return known;
  }
  return repairToolName(name, offered);
}

const tailOf = (raw: string): string =>
  raw.length > CUT_TAIL_CHARS ? `...${raw.slice(-CUT_TAIL_CHARS)}` : raw;

function mismatchError(toolName: string, raw: string): string {
  return JSON.stringify({
    error:
      `The arguments for '${toolName}' were malformed: a closing bracket does not match an opening one, so the call did not run and nothing was guessed. ` +
      `They ended with: ${tailOf(raw)}. Send the call again with the arguments as one complete JSON object.`,
  });
}

function cutOffError(toolName: string, raw: string): string {
  const tail = tailOf(raw);
  return JSON.stringify({
    error:
      `The arguments for '${toolName}' were cut off after ${raw.length} characters (your reply probably hit the output token limit), so the call did not run. ` +
      `They ended with: ${tail}. Send the complete call again; if it is long, make it shorter or split it, e.g. write a big file in several smaller steps.`,
  });
}
