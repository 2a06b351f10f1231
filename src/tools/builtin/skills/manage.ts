import type { ApprovalChoice } from "../../approval/types.js";
import type { ToolContext } from "../../context.js";
import type { SkillWriteOp } from "../../skills-service.js";
import { applyReplace } from "../files/replace.js";
import { argBool, argString, toolError, toolResult } from "../util.js";
import { NO_SKILLS } from "./read.js";

const ACTIONS = ["create", "patch", "edit", "delete", "write_file", "remove_file"] as const;
type Action = (typeof ACTIONS)[number];

export const SKILL_MANAGE_SCHEMA = {
  description:
    "Once a task is done, save a non-obvious procedure worth reusing, or fix a wrong skill. " +
    "create/edit: content = full SKILL.md (frontmatter name, description; then " +
    "steps). patch: old_string → new_string in SKILL.md or file_path. write_file/remove_file: " +
    "file_path in references/, templates/, scripts/, assets/.",
  parameters: {
    type: "object",
    properties: {
      action: { type: "string", enum: [...ACTIONS] },
      name: { type: "string" },
      content: { type: "string" },
      old_string: { type: "string" },
      new_string: { type: "string" },
      replace_all: { type: "boolean" },
      category: { type: "string" },
      file_path: { type: "string" },
      file_content: { type: "string" },
    },
    required: ["action", "name"],
  },
};

/** Conversations where the user approved skill writes for the rest of the session. */
const approvedConversations = new Set<string>();

/** With skills.write_approval: asks the user; returns an error text when the write may not happen. */
async function askApproval(ctx: ToolContext, summary: string): Promise<string | undefined> {
  if (ctx.config.skills?.write_approval !== true) return undefined;
  const conversation = ctx.conversationId ?? ctx.sessionId;
  if (approvedConversations.has(conversation)) return undefined;
  if (!ctx.approve || ctx.interactive === false) {
    return "skills.write_approval is on and nobody can approve here, so the skill was not changed.";
  }
  const timeoutMs = Math.max(1, ctx.config.approvals?.timeout ?? 60) * 1000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let choice: ApprovalChoice;
  try {
    choice = await Promise.race([
      ctx.approve({
        command: summary,
        reasons: [
          {
            key: "skill_write",
            description: "changes a saved skill (skills.write_approval)",
            class: "system_config",
            severity: "dangerous",
            command: summary,
          },
        ],
        timeoutMs,
        signal,
      }),
      new Promise<ApprovalChoice>((resolve) => signal.addEventListener("abort", () => resolve("deny"))),
    ]);
  } catch {
    choice = "deny";
  }
  if (choice === "deny") return "The user did not approve this skill change; it was not made.";
  if (choice === "session" || choice === "always") approvedConversations.add(conversation);
  return undefined;
}

/** Turns the arguments into one write, computing a patch's result first. */
function planWrite(
  action: Action,
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): SkillWriteOp | string {
  const filePath = argString(args, "file_path")?.trim();
  switch (action) {
    case "create":
      if (typeof args.content !== "string" || !args.content.trim())
        return "content is required for create: the whole SKILL.md text (frontmatter + procedure).";
      return {
        action,
        name,
        content: args.content,
        ...(argString(args, "category") ? { category: argString(args, "category") } : {}),
      };
    case "edit":
      if (typeof args.content !== "string" || !args.content.trim())
        return "content is required for edit: the new SKILL.md text. For small changes use patch.";
      return { action, name, content: args.content };
    case "delete":
      return { action, name };
    case "write_file":
      if (!filePath) return "file_path is required for write_file (e.g. references/notes.md).";
      if (typeof args.file_content !== "string") return "file_content is required for write_file.";
      return { action, name, filePath, content: args.file_content };
    case "remove_file":
      if (!filePath) return "file_path is required for remove_file.";
      return { action, name, filePath };
    case "patch": {
      const oldString = typeof args.old_string === "string" ? args.old_string : "";
      if (!oldString) return "old_string is required for patch: the exact text to replace.";
      if (typeof args.new_string !== "string")
        return "new_string is required for patch (may be empty to delete).";
      const source = ctx.skills!.source(name, filePath);
      if (!source.ok) return source.error;
      const replaced = applyReplace(
        source.text,
        oldString,
        args.new_string,
        argBool(args, "replace_all"),
        source.rel,
      );
      if (!replaced.ok) return replaced.error;
      return source.rel === "SKILL.md"
        ? { action: "edit", name, content: replaced.text }
        : { action: "write_file", name, filePath: source.rel, content: replaced.text };
    }
  }
}

export async function handleSkillManage(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  if (!ctx.skills) return toolError(NO_SKILLS);
  const action = args.action as Action;
  if (!ACTIONS.includes(action)) {
    return toolError(`Unknown action '${String(args.action)}'. Use one of: ${ACTIONS.join(", ")}.`);
  }
  const name = argString(args, "name")?.trim();
  if (!name) return toolError("name is required.");
  const op = planWrite(action, name, args, ctx);
  if (typeof op === "string") return toolError(op);
  const target = "filePath" in op ? ` ${op.filePath}` : "";
  const refusal = await askApproval(ctx, `skill_manage ${action} ${name}${target}`);
  if (refusal) return toolError(refusal);
  const outcome = await ctx.skills.write(op);
  if (!outcome.ok) return toolError(outcome.error);
  return toolResult({
    success: true,
    action,
    name,
    path: outcome.path,
    message: outcome.message,
    note: "Saved. The skills list in your instructions updates from the next session; skill_view sees it now.",
  });
}
