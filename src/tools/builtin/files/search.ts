import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ToolContext } from "../../context.js";
import { argInt, argString, toolError, toolResult } from "../util.js";
import { searchRootRefusal } from "./scope-guard.js";
import { searchWithJs } from "./search-js.js";
import { findRipgrep, searchWithRipgrep } from "./search-rg.js";
import {
  type EngineResult,
  MAX_COUNTED_MATCHES,
  type OutputMode,
  renderContent,
  type SearchQuery,
} from "./search-types.js";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
const MAX_CONTEXT = 10;
/** Characters of results per call, well under the registry's result cap so the JSON stays whole. */
const RESULT_BUDGET = 60_000;

/** The longest prefix of `lines` that fits the budget (at least one line). */
function fitLines(lines: string[]): string[] {
  let chars = 0;
  let n = 0;
  while (n < lines.length && (n === 0 || chars + lines[n]!.length + 1 <= RESULT_BUDGET))
    chars += lines[n++]!.length + 1;
  return lines.slice(0, n);
}

/** Engine choice: rg when on PATH; `HERMES_SEARCH_ENGINE=js` forces the fallback (tests, debugging). */
export function pickEngine(ctx: ToolContext): "rg" | "js" {
  if (ctx.env.backend !== "local") return "rg";
  if (process.env.HERMES_SEARCH_ENGINE === "js") return "js";
  return findRipgrep() ? "rg" : "js";
}

function parseMode(raw: string | undefined): OutputMode | undefined {
  if (raw === undefined || raw === "content") return "content";
  if (raw === "files_with_matches" || raw === "files_only" || raw === "files") return "files_with_matches";
  if (raw === "count") return "count";
  return undefined;
}

export async function handleSearchFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const pattern = argString(args, "pattern");
  if (!pattern) return toolError("pattern is required (a regex for content, a glob for files).");
  const target = argString(args, "target") ?? "content";
  if (target !== "content" && target !== "files")
    return toolError(`target must be "content" or "files", not '${target}'.`);
  const mode = parseMode(argString(args, "output_mode"));
  if (!mode) return toolError('output_mode must be "content", "files_with_matches" or "count".');
  const limit = argInt(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
  const offset = argInt(args, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
  const context = argInt(args, "context", 0, 0, MAX_CONTEXT);

  const root = ctx.env.resolvePath(argString(args, "path") ?? ".");
  const refused = await searchRootRefusal(ctx, root);
  if (refused) return toolError(refused);
  const st = await ctx.env.stat(root);
  if (!st) return toolError(`Search path does not exist: ${root}`);
  const cwd = ctx.env.getCwd();
  const display = (p: string): string => {
    const abs = isAbsolute(p) ? p : resolve(cwd, p);
    const rel = relative(cwd, abs);
    return rel && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel) ? rel : abs;
  };
  const fileGlob = argString(args, "file_glob");
  const q: SearchQuery = {
    target,
    pattern,
    root,
    ...(fileGlob ? { fileGlob } : {}),
    mode,
    context,
    want: offset + limit,
    signal: ctx.signal,
  };

  let result: EngineResult;
  if (pickEngine(ctx) === "rg") {
    result = await searchWithRipgrep(ctx, q, st.isDirectory, display);
  } else {
    result = await searchWithJs(q, display);
  }
  return toolResult(shape(result, q, offset, limit));
}

function shape(result: EngineResult, q: SearchQuery, offset: number, limit: number): Record<string, unknown> {
  if (result.kind === "error") return { error: result.error };
  let total: number;
  let shown: number;
  let text: string;
  const out: Record<string, unknown> = {};
  if (result.kind === "content") {
    total = result.totalMatches;
    const r = renderContent(result.files, offset, limit, q.context, RESULT_BUDGET);
    text = r.text;
    shown = r.shown;
  } else if (result.kind === "paths") {
    total = result.paths.length;
    const page = fitLines(result.paths.slice(offset, offset + limit));
    text = page.join("\n");
    shown = page.length;
  } else {
    total = result.counts.length;
    const page = fitLines(result.counts.slice(offset, offset + limit).map((c) => `${c.path}:${c.count}`));
    text = page.join("\n");
    shown = page.length;
    out.total_matches = result.counts.reduce((s, c) => s + c.count, 0);
  }
  Object.assign(out, { total, returned: shown, offset, results: text });
  if (offset + shown < total) out.next_offset = offset + shown;
  const what = q.target === "files" ? "files" : "matches";
  if (total === 0) {
    out.note =
      q.target === "files"
        ? `No files matching '${q.pattern}' under ${q.root}.`
        : `No matches for /${q.pattern}/ under ${q.root}${q.fileGlob ? ` in files matching ${q.fileGlob}` : ""}.`;
  } else if (offset >= total) {
    out.note = `offset ${offset} is past the last result (${total} ${what}).`;
  } else if (result.capped) {
    out.note = `Search stopped early (over ${result.kind === "content" ? MAX_COUNTED_MATCHES : total} ${what}); total is a lower bound. Narrow the pattern, path or file_glob.`;
  }
  return out;
}
