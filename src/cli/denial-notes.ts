import type { AgentEvent } from "../agent/events.js";

/** How to let such commands run when nobody is there to approve them. */
const ALLOW =
  "to allow such commands: --yolo, approvals.mode: off, or their rules in command_allowlist (config.yaml)";

/** Why a command was not run, by the `blocked` field of its tool result. */
const WHY: Readonly<Record<string, string>> = {
  needs_approval: "it needs approval and nobody can answer in this run",
  approval_model: "the approval check refused it",
};

/** The tool search bridge's caller: the tool it runs reports itself as an inner_tool event. */
const BRIDGED_CALL = "tool_call";

/** Longest command shown; the rest is cut (one line per denial). */
const MAX_COMMAND_CHARS = 120;

function blockedKind(result: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(result);
    const blocked = (parsed as { blocked?: unknown } | null)?.blocked;
    return typeof blocked === "string" && blocked in WHY ? blocked : undefined;
  } catch {
    return undefined;
  }
}

function oneLine(command: string): string {
  const flat = command.replace(/\s+/g, " ").trim();
  return flat.length > MAX_COMMAND_CHARS ? `${flat.slice(0, MAX_COMMAND_CHARS - 1)}…` : flat;
}

/**
 * A listener for runs where nobody can approve a command (-z, chat -q without a terminal): each
 * command denied for want of approval becomes one line for stderr, with how to allow it. Tool
 * calls of scripts (execute_code) count too.
 */
export function createDenialNotes(write: (line: string) => void): (e: AgentEvent) => void {
  const commands = new Map<string, string>();
  const report = (result: string, command: string | undefined, tool: string): void => {
    const kind = blockedKind(result);
    if (!kind) return;
    const what = command ? `'${oneLine(command)}'` : `a ${tool} call`;
    write(`hermes: did not run ${what}: ${WHY[kind]}; ${ALLOW}`);
  };
  return (e) => {
    if (e.type === "tool_start" && typeof e.args.command === "string") commands.set(e.callId, e.args.command);
    else if (e.type === "tool_end") {
      // A bridged call (tool_call) was reported by the inner_tool event of the tool it ran.
      if (e.name !== BRIDGED_CALL) report(e.result, commands.get(e.callId), e.name);
      commands.delete(e.callId);
    } else if (e.type === "inner_tool") {
      report(e.result, typeof e.args.command === "string" ? e.args.command : undefined, e.name);
    }
  };
}
