import { join } from "node:path";
import { ApprovalSession } from "../../src/tools/approval/session.js";
import type { ApprovalMode, ApprovalRequest } from "../../src/tools/approval/types.js";
import type { ToolContext, UserScope } from "../../src/tools/context.js";
import type { ToolHarness } from "./helpers.js";

/** HERMES_HOME/users/telegram/<id>: a Telegram chat user's folder in a harness's HERMES_HOME. */
export const chatUserDir = (h: ToolHarness, id: number): string =>
  join(h.home, "users", "telegram", String(id));

/** The scope the gateway gives Telegram user `id` (gateway defaults: a working folder of their own). */
export function chatUserScope(h: ToolHarness, id: number): UserScope {
  const dir = chatUserDir(h, id);
  return {
    userKey: `telegram:${id}`,
    workdir: join(dir, "work"),
    memoryDir: join(dir, "memories"),
    own: { work: join(dir, "work"), dir, workRoot: join(h.home, "users") },
  };
}

/**
 * A context whose user approves every prompt (each one recorded in `asked`): a command refused
 * under it is refused outright, not for want of an answer.
 */
export function approvingContext(
  h: ToolHarness,
  asked: ApprovalRequest[],
  mode: ApprovalMode = "manual",
  extra: Partial<ToolContext> = {},
): ToolContext {
  return {
    ...h.ctx,
    approvals: new ApprovalSession({ mode, timeoutSeconds: 60 }),
    interactive: true,
    approve: async (req) => {
      asked.push(req);
      return "once";
    },
    ...extra,
  };
}

/** Runs the terminal tool and parses its result. */
export const runTerminal = async (
  h: ToolHarness,
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> =>
  JSON.parse(await h.registry.dispatch("terminal", args, ctx)) as Record<string, unknown>;
