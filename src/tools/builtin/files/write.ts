import type { ToolContext } from "../../context.js";
import { argString, toolError, toolResult } from "../util.js";
import { checkWritable, decodeText } from "./common.js";
import { languageOf, MAX_CHECK_BYTES, newSyntaxWarnings } from "./syntax-check.js";

const countLines = (s: string): number => (s === "" ? 0 : s.split("\n").length - (s.endsWith("\n") ? 1 : 0));

export async function handleWriteFile(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const rawPath = argString(args, "path");
  if (!rawPath) return toolError("path is required.");
  const raw = args.content;
  if (raw === undefined || raw === null) return toolError('content is required (use "" for an empty file).');
  // Models sometimes send a JSON file's content as an object: write it as formatted JSON.
  const content = typeof raw === "string" ? raw : `${JSON.stringify(raw, null, 2)}\n`;
  const full = ctx.env.resolvePath(rawPath);
  const refused = await checkWritable(ctx, full);
  if (refused) return toolError(refused);
  const st = await ctx.env.stat(full);
  if (st?.isDirectory) return toolError(`${full} is a directory; give a file path.`);
  // The old text, to tell errors this write introduces from ones the file already had.
  const checked = languageOf(full) !== undefined;
  const before =
    checked && st && st.size <= MAX_CHECK_BYTES ? decodeText(await ctx.env.readFile(full)) : undefined;
  await ctx.env.writeFile(full, content);
  const result: Record<string, unknown> = {
    success: true,
    path: full,
    bytes_written: Buffer.byteLength(content, "utf8"),
    lines: countLines(content),
  };
  const warnings = checked ? await newSyntaxWarnings(full, before, content) : [];
  if (warnings.length > 0) result.syntax_warnings = warnings;
  return toolResult(result);
}
