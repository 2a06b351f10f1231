import type { ToolContext } from "../../context.js";
import { argBool, argString, toolError, toolResult } from "../util.js";
import { loadForEdit, toLf } from "./common.js";
import { unifiedDiff } from "./diff.js";
import { handlePatchMode } from "./patch-mode.js";
import { applyReplace } from "./replace.js";
import { STRATEGY_LABELS } from "./strategies.js";
import { newSyntaxWarnings } from "./syntax-check.js";

async function handleReplace(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const rawPath = argString(args, "path");
  if (!rawPath) return toolError("path is required in replace mode.");
  const oldString = typeof args.old_string === "string" ? args.old_string : "";
  if (oldString === "")
    return toolError("old_string is required (to create or overwrite a file use write_file).");
  if (typeof args.new_string !== "string")
    return toolError('new_string is required (use "" to delete the text).');
  const newString = args.new_string;
  if (oldString === newString)
    return toolError("old_string and new_string are identical; nothing to change.");
  const loaded = await loadForEdit(ctx, rawPath);
  if (!loaded.ok) return toolError(loaded.error);
  const outcome = applyReplace(loaded.raw, oldString, newString, argBool(args, "replace_all"), loaded.full);
  if (!outcome.ok) return toolError(outcome.error);
  await ctx.env.writeFile(loaded.full, loaded.bom + outcome.text);
  const result: Record<string, unknown> = {
    success: true,
    path: loaded.full,
    replacements: outcome.replacements,
    diff: unifiedDiff(toLf(loaded.raw), toLf(outcome.text), rawPath),
  };
  if (outcome.strategy !== "exact") {
    result.strategy = outcome.strategy;
    result.note = `No exact match; matched ignoring ${STRATEGY_LABELS[outcome.strategy]}.`;
  }
  const warnings = await newSyntaxWarnings(loaded.full, loaded.raw, outcome.text);
  if (warnings.length > 0) result.syntax_warnings = warnings;
  return toolResult(result);
}

export async function handlePatch(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const mode =
    argString(args, "mode") ?? (argString(args, "patch") && !args.old_string ? "patch" : "replace");
  if (mode === "replace") return handleReplace(args, ctx);
  if (mode === "patch") return handlePatchMode(args, ctx);
  return toolError(`Unknown mode '${mode}': use "replace" or "patch".`);
}
