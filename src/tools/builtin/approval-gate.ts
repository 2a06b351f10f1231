import type { CommandPlace, GateResult } from "../approval/gate.js";
import type { ToolContext } from "../context.js";

/**
 * The approval gate for commands the terminal and process tools run, loaded with the first command:
 * its screening (patterns, the bash grammar's loader, decoders: ~150 KB) is not on the path to the
 * first model request, and a run that never runs a command never loads it.
 */
export async function checkCommandApproval(
  command: string,
  ctx: ToolContext,
  where: CommandPlace = {},
): Promise<GateResult> {
  const gate = await import("../approval/gate.js");
  return gate.checkCommandApproval(command, ctx, where);
}
