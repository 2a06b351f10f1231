import type { ToolContext } from "../../context.js";
import { cutLine } from "../../output.js";
import { argInt, argString, toolError, toolResult } from "../util.js";
import {
  binaryError,
  binaryKindByExtension,
  decodeText,
  formatSize,
  looksBinary,
  notFoundError,
  splitLines,
} from "./common.js";
import { scopeRefusal } from "./scope-guard.js";

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/** Beyond this, reading the whole file to page it is not worth it: point at terminal tools instead. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export const READ_FILE_SCHEMA = {
  description: "Read a text file as LINE_NUMBER|content lines; next_offset is set when more remain.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string" },
      offset: { type: "integer" },
      limit: { type: "integer", description: "Default 500.", maximum: MAX_LIMIT },
    },
    required: ["path"],
  },
};

export async function handleReadFile(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const rawPath = argString(args, "path");
  if (!rawPath) return toolError("path is required.");
  const full = ctx.env.resolvePath(rawPath);
  const refused = await scopeRefusal(ctx, full, "read");
  if (refused) return toolError(refused);
  const st = await ctx.env.stat(full);
  if (!st) return toolError(await notFoundError(ctx.env, rawPath, full));
  if (st.isDirectory) {
    return toolError(
      `${full} is a directory. Use search_files with target "files" (e.g. pattern "*") to list it.`,
    );
  }
  const kind = binaryKindByExtension(full);
  if (kind) return toolError(binaryError(full, st.size, kind));
  if (st.size > MAX_FILE_BYTES) {
    return toolError(
      `${full} is ${formatSize(st.size)}, too large for read_file. Use search_files to find the ` +
        "relevant lines, or terminal with head/tail/sed -n 'A,Bp'.",
    );
  }
  const buf = await ctx.env.readFile(full);
  if (looksBinary(buf)) return toolError(binaryError(full, buf.length, "contains NUL bytes"));

  const lines = splitLines(decodeText(buf));
  const total = lines.length;
  const offset = argInt(args, "offset", 1, 1, Number.MAX_SAFE_INTEGER);
  const limit = argInt(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
  if (total === 0) {
    return toolResult({
      content: "",
      path: full,
      total_lines: 0,
      offset: 1,
      lines_returned: 0,
      note: "File is empty.",
    });
  }
  if (offset > total) {
    return toolError(
      `offset ${offset} is past the end of ${full} (${total} lines). Use an offset from 1 to ${total}.`,
    );
  }

  // The whole JSON result stays within file_read_max_chars: count lines as they will be escaped.
  const budget = ctx.config.file_read_max_chars - 300 - 2 * full.length;
  const out: string[] = [];
  let chars = 0;
  let line = offset;
  const end = Math.min(total, offset + limit - 1);
  for (; line <= end; line++) {
    const text = `${line}|${cutLine(lines[line - 1]!, MAX_LINE_CHARS)}`;
    const cost = JSON.stringify(text).length;
    if (out.length > 0 && chars + cost > budget) break;
    out.push(text);
    chars += cost;
  }
  const result: Record<string, unknown> = {
    content: out.join("\n"),
    path: full,
    total_lines: total,
    offset,
    lines_returned: out.length,
  };
  if (line <= total) result.next_offset = line;
  return toolResult(result);
}
