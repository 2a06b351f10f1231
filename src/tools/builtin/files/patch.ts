import type { ToolContext } from "../../context.js";
import { shQuote } from "../../environments/shell-state.js";
import { argBool, argString, toolError, toolResult } from "../util.js";
import { checkWritable, decodeText, detectEol, looksBinary, notFoundError, splitLines } from "./common.js";
import { unifiedDiff } from "./diff.js";
import { applyHunks } from "./patch-apply.js";
import { type FilePatch, parsePatch } from "./patch-parse.js";
import { applyReplace } from "./replace.js";

export const PATCH_SCHEMA = {
  description:
    "Edit files. mode=replace (default): replace old_string with new_string in path; old_string must " +
    "match exactly once unless replace_all (whitespace/indentation differences are tolerated when " +
    "unambiguous). mode=patch: apply a unified diff or '*** Begin Patch' block that may add, modify " +
    "or delete several files. Returns a unified diff of the change.",
  parameters: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["replace", "patch"], description: "Default replace." },
      path: { type: "string", description: "File to edit (replace mode)." },
      old_string: { type: "string", description: "Exact text to replace, with enough context to be unique." },
      new_string: { type: "string", description: "Replacement text (may be empty)." },
      replace_all: { type: "boolean", description: "Replace every occurrence (default false)." },
      patch: { type: "string", description: "Patch text (patch mode)." },
    },
  },
};

/** `raw` is the text without a BOM; `bom` is put back on write. */
type Loaded = { ok: true; full: string; raw: string; bom: string } | { ok: false; error: string };

/** Reads an existing text file for editing, or says why it cannot be edited. */
async function loadForEdit(ctx: ToolContext, rawPath: string): Promise<Loaded> {
  const full = ctx.env.resolvePath(rawPath);
  const refused = await checkWritable(ctx, full);
  if (refused) return { ok: false, error: refused };
  const st = await ctx.env.stat(full);
  if (!st) return { ok: false, error: await notFoundError(ctx.env, rawPath, full) };
  if (st.isDirectory) return { ok: false, error: `${full} is a directory, not a file.` };
  const buf = await ctx.env.readFile(full);
  if (looksBinary(buf)) return { ok: false, error: `${full} is a binary file; patch edits text files only.` };
  const raw = decodeText(buf);
  return { ok: true, full, raw, bom: buf.toString("utf8", 0, 3) === "\uFEFF" ? "\uFEFF" : "" };
}

const toLf = (s: string): string => s.replace(/\r\n/g, "\n");

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
  if (outcome.tolerance) result.note = `No exact match; matched ignoring ${outcome.tolerance}.`;
  return toolResult(result);
}

interface Planned {
  patch: FilePatch;
  full: string;
  /** New content; undefined for a deletion. */
  content?: string;
  added: number;
  removed: number;
  /** Path to remove after writing (deletions and renames). */
  removePath?: string;
}

/** Works out one file's result in memory; nothing is written until every file has applied. */
async function planFile(ctx: ToolContext, fp: FilePatch): Promise<Planned | string> {
  const full = ctx.env.resolvePath(fp.path);
  if (fp.kind === "add") {
    const refused = await checkWritable(ctx, full);
    if (refused) return refused;
    if (await ctx.env.stat(full))
      return `${full} already exists; use a modify hunk (--- a/path) instead of /dev/null.`;
    const applied = applyHunks("", fp.hunks);
    if (!applied.ok) return applied.error;
    return { patch: fp, full, content: applied.text, added: applied.added, removed: 0 };
  }
  const loaded = await loadForEdit(ctx, fp.path);
  if (!loaded.ok) return loaded.error;
  if (fp.kind === "delete") {
    return { patch: fp, full, added: 0, removed: splitLines(loaded.raw).length, removePath: full };
  }
  const applied = applyHunks(toLf(loaded.raw), fp.hunks);
  if (!applied.ok) return applied.error;
  const eol = detectEol(loaded.raw);
  const content = loaded.bom + (eol === "\r\n" ? applied.text.replace(/\n/g, "\r\n") : applied.text);
  const plan: Planned = { patch: fp, full, content, added: applied.added, removed: applied.removed };
  if (fp.moveTo) {
    const target = ctx.env.resolvePath(fp.moveTo);
    const refused = await checkWritable(ctx, target);
    if (refused) return refused;
    plan.full = target;
    plan.removePath = full;
  }
  return plan;
}

async function removeFile(ctx: ToolContext, full: string): Promise<void> {
  // The environment interface has no unlink; a shell rm works on every backend.
  const res = await ctx.env.run(`rm -f -- ${shQuote(full)}`, { timeoutMs: 30_000, signal: ctx.signal });
  if (res.exitCode !== 0) throw new Error(`could not delete ${full}: ${res.output.trim()}`);
}

async function handlePatchMode(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const text = argString(args, "patch");
  if (!text) return toolError("patch is required in patch mode (a unified diff or '*** Begin Patch' block).");
  const parsed = parsePatch(text);
  if (!parsed.ok) return toolError(parsed.error);

  const plans: Planned[] = [];
  const failures: { path: string; error: string }[] = [];
  for (const fp of parsed.files) {
    const plan = await planFile(ctx, fp);
    if (typeof plan === "string") failures.push({ path: fp.path, error: plan });
    else plans.push(plan);
  }
  if (failures.length > 0) {
    return toolError(
      `Patch not applied (no files were changed): ${failures.length} of ${parsed.files.length} file(s) failed.`,
      { files: failures },
    );
  }
  const files: Record<string, unknown>[] = [];
  for (const plan of plans) {
    if (plan.content !== undefined) await ctx.env.writeFile(plan.full, plan.content);
    if (plan.removePath && (plan.content === undefined || plan.removePath !== plan.full)) {
      await removeFile(ctx, plan.removePath);
    }
    const action =
      plan.patch.kind === "add"
        ? "added"
        : plan.patch.kind === "delete"
          ? "deleted"
          : plan.patch.moveTo
            ? "moved"
            : "modified";
    files.push({ path: plan.full, action, added: plan.added, removed: plan.removed });
  }
  return toolResult({ success: true, files });
}

export async function handlePatch(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const mode =
    argString(args, "mode") ?? (argString(args, "patch") && !args.old_string ? "patch" : "replace");
  if (mode === "replace") return handleReplace(args, ctx);
  if (mode === "patch") return handlePatchMode(args, ctx);
  return toolError(`Unknown mode '${mode}': use "replace" or "patch".`);
}
