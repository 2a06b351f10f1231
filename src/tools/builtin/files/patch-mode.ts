import type { ToolContext } from "../../context.js";
import { shQuote } from "../../environments/shell-state.js";
import { argString, toolError, toolResult } from "../util.js";
import { checkWritable, detectEol, loadForEdit, splitLines, toLf } from "./common.js";
import { unifiedDiff } from "./diff.js";
import { applyHunks } from "./patch-apply.js";
import { type FilePatch, parsePatch } from "./patch-parse.js";
import { newSyntaxWarnings } from "./syntax-check.js";

/**
 * patch mode: a multi-file unified diff or `*** Begin Patch` block. Every file is worked out in
 * memory first; nothing is written unless all of them apply. Writes then happen one by one, and if
 * one fails (disk full, permissions) the files already written are put back, so a patch never
 * lands halfway.
 */

const MAX_DIFF_CHARS = 40_000;

interface Planned {
  patch: FilePatch;
  /** Where the content goes (the rename target for moves). */
  full: string;
  /** New content (BOM and line endings restored); undefined for a deletion. */
  content?: string;
  /** The old text (BOM removed), for the diff, syntax comparison and rollback; undefined for new files. */
  before?: string;
  bom: string;
  added: number;
  removed: number;
  /** Path to remove after writing (deletions and renames). */
  removePath?: string;
  notes: string[];
}

/** Joins sections that update the same file (V4A lets a model write two); anything else twice is an error. */
function mergeSections(ctx: ToolContext, files: readonly FilePatch[]): FilePatch[] | string {
  const byPath = new Map<string, FilePatch>();
  const out: FilePatch[] = [];
  for (const fp of files) {
    const full = ctx.env.resolvePath(fp.path);
    const prev = byPath.get(full);
    if (!prev) {
      const copy = { ...fp, hunks: [...fp.hunks] };
      byPath.set(full, copy);
      out.push(copy);
    } else if (prev.kind === "modify" && fp.kind === "modify" && !prev.moveTo && !fp.moveTo) {
      prev.hunks.push(...fp.hunks);
    } else {
      return `The patch changes ${fp.path} twice (${prev.kind} and ${fp.kind}); give each file one section.`;
    }
  }
  return out;
}

/** Works out one file's result in memory. A string is the reason it cannot apply. */
async function planFile(ctx: ToolContext, fp: FilePatch): Promise<Planned | string> {
  const full = ctx.env.resolvePath(fp.path);
  if (fp.kind === "add") {
    const refused = await checkWritable(ctx, full);
    if (refused) return refused;
    if (await ctx.env.stat(full))
      return `${full} already exists; use a modify hunk (--- a/path) instead of /dev/null.`;
    const applied = applyHunks("", fp.hunks);
    if (!applied.ok) return applied.error;
    return { patch: fp, full, content: applied.text, bom: "", added: applied.added, removed: 0, notes: [] };
  }
  const loaded = await loadForEdit(ctx, fp.path);
  if (!loaded.ok) return loaded.error;
  const base = { patch: fp, full, before: loaded.raw, bom: loaded.bom };
  if (fp.kind === "delete") {
    // A deletion that lists the file's lines must match them: deleting a file that changed is refused.
    if (fp.hunks.some((h) => h.lines.length > 0)) {
      const applied = applyHunks(toLf(loaded.raw), fp.hunks);
      if (!applied.ok || applied.text.trim() !== "")
        return `${full} does not match the deletion in the patch (its content changed); re-read it before deleting.`;
    }
    return { ...base, added: 0, removed: splitLines(loaded.raw).length, removePath: full, notes: [] };
  }
  const applied = applyHunks(toLf(loaded.raw), fp.hunks);
  if (!applied.ok) return applied.error;
  const eol = detectEol(loaded.raw);
  const content = loaded.bom + (eol === "\r\n" ? applied.text.replace(/\n/g, "\r\n") : applied.text);
  const plan: Planned = {
    ...base,
    content,
    added: applied.added,
    removed: applied.removed,
    notes: applied.notes,
  };
  if (fp.moveTo) {
    const target = ctx.env.resolvePath(fp.moveTo);
    const refused = await checkWritable(ctx, target);
    if (refused) return refused;
    if (target !== full && (await ctx.env.stat(target)))
      return `cannot move ${full} to ${target}: the target already exists.`;
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

/** Writes every plan; on a failure restores what was already changed and rethrows. */
async function commit(ctx: ToolContext, plans: readonly Planned[]): Promise<void> {
  const undo: (() => Promise<void>)[] = [];
  try {
    for (const plan of plans) {
      if (plan.content !== undefined) {
        const existed = plan.before !== undefined && plan.removePath === undefined;
        await ctx.env.writeFile(plan.full, plan.content);
        const original = plan.bom + (plan.before ?? "");
        undo.push(existed ? () => ctx.env.writeFile(plan.full, original) : () => removeFile(ctx, plan.full));
      }
      if (plan.removePath && (plan.content === undefined || plan.removePath !== plan.full)) {
        await removeFile(ctx, plan.removePath);
        const original = plan.bom + (plan.before ?? "");
        const path = plan.removePath;
        undo.push(() => ctx.env.writeFile(path, original));
      }
    }
  } catch (err) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
}

const actionOf = (p: Planned): string =>
  p.patch.kind === "add"
    ? "added"
    : p.patch.kind === "delete"
      ? "deleted"
      : p.patch.moveTo
        ? "moved"
        : "modified";

export async function handlePatchMode(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const text = argString(args, "patch");
  if (!text) return toolError("patch is required in patch mode (a unified diff or '*** Begin Patch' block).");
  const parsed = parsePatch(text);
  if (!parsed.ok) return toolError(parsed.error);
  const files = mergeSections(ctx, parsed.files);
  if (typeof files === "string") return toolError(files);

  const plans: Planned[] = [];
  const failures: { path: string; error: string }[] = [];
  for (const fp of files) {
    const plan = await planFile(ctx, fp);
    if (typeof plan === "string") failures.push({ path: fp.path, error: plan });
    else plans.push(plan);
  }
  if (failures.length > 0) {
    return toolError(
      `Patch not applied (no files were changed): ${failures.length} of ${files.length} file(s) failed.`,
      { files: failures },
    );
  }
  try {
    await commit(ctx, plans);
  } catch (err) {
    return toolError(`Patch not applied (changes rolled back): ${(err as Error).message}`);
  }

  let diff = "";
  const warnings: string[] = [];
  const notes: string[] = [];
  for (const plan of plans) {
    const after = plan.content === undefined ? "" : toLf(plan.content.slice(plan.bom.length));
    diff += unifiedDiff(toLf(plan.before ?? ""), after, plan.patch.moveTo ?? plan.patch.path);
    for (const n of plan.notes) notes.push(`${plan.patch.path}: ${n}`);
    if (plan.content !== undefined) {
      const found = await newSyntaxWarnings(plan.full, plan.before, plan.content.slice(plan.bom.length));
      for (const w of found) warnings.push(`${plan.patch.moveTo ?? plan.patch.path}: ${w}`);
    }
  }
  const result: Record<string, unknown> = {
    success: true,
    files: plans.map((p) => ({ path: p.full, action: actionOf(p), added: p.added, removed: p.removed })),
    diff:
      diff.length > MAX_DIFF_CHARS
        ? `${diff.slice(0, MAX_DIFF_CHARS)}\n[... diff cut at ${MAX_DIFF_CHARS} chars ...]\n`
        : diff,
  };
  if (notes.length > 0) result.note = notes.join("; ");
  if (warnings.length > 0) result.syntax_warnings = warnings;
  return toolResult(result);
}
