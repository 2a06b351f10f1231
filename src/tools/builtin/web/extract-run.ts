/**
 * What `web_extract` does with each URL, loaded with its first call: fetch through the SSRF guard,
 * read the page as markdown, cut it to the character limit and save the full text for read_file.
 */
import type { HermesConfig } from "../../../core/config.js";
import type { ToolContext } from "../../context.js";
import { spillToFile } from "../../output.js";
import type { ExtractedPage } from "./extract.js";
import { fetchPage, PageTimeoutError } from "./fetch-page.js";
import { pageContent } from "./page-content.js";
import type { WebToolOptions } from "./types.js";
import { TooManyRedirectsError, UrlRefusedError } from "./url-guard.js";
import { guardOptionsFromSecurity } from "./website-policy.js";

const HEAD_SHARE = 0.75;

export async function extractOne(
  url: string,
  limit: number,
  web: HermesConfig["web"],
  ctx: ToolContext,
  opts: WebToolOptions,
): Promise<ExtractedPage> {
  const guard = guardOptionsFromSecurity(ctx.config.security, ctx.home);
  const maxBytes = Math.max(1, Math.floor(web.extract_max_bytes));
  try {
    const page = await fetchPage(url, {
      ...guard,
      resolve: opts.resolve,
      classify: opts.classify,
      maxBytes,
      timeoutMs: Math.max(1, web.extract_timeout * 1000),
      maxRedirects: Math.max(0, Math.floor(web.max_redirects)),
      signal: ctx.signal,
    });
    const moved = page.url !== new URL(url).href ? { final_url: page.url } : {};
    if (page.status >= 400) return { url, ...moved, error: `the server answered HTTP ${page.status}` };
    const content = await pageContent(page);
    const out: ExtractedPage = {
      url,
      ...moved,
      ...(content.title ? { title: content.title } : {}),
      ...(content.byline ? { byline: content.byline } : {}),
      type: content.kind,
      ...(content.pages ? { pages: content.pages } : {}),
    };
    const notes: string[] = [];
    if (page.capped)
      notes.push(`Only the first ${formatBytes(maxBytes)} of the page were read (web.extract_max_bytes).`);
    if (content.text.length <= limit) {
      out.content = content.text;
    } else {
      const path = await saveFullText(content.text, ctx);
      out.content = headAndTail(content.text, limit, path);
      out.truncated = true;
      out.total_chars = content.text.length;
      if (path) {
        out.full_text_path = path;
        notes.push(`Page cut to head and tail; the full text is in ${path} (read_file with offset to page).`);
      } else notes.push("Page cut to head and tail (the full text could not be saved).");
    }
    if (!content.text.trim()) notes.push("No readable text found on this page.");
    if (notes.length > 0) out.note = notes.join(" ");
    return out;
  } catch (err) {
    return { url, error: describeError(err) };
  }
}

function describeError(err: unknown): string {
  if (err instanceof UrlRefusedError) return err.reason;
  if (err instanceof TooManyRedirectsError || err instanceof PageTimeoutError) return err.message;
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === "AbortError" || e.code === "UND_ERR_ABORTED") return "interrupted";
  const code = e.code ?? e.cause?.code;
  return `could not fetch the page: ${code && !e.message.includes(code) ? `${code} ` : ""}${e.message}`;
}

/**
 * The first three quarters of the budget and the last quarter, cut at line breaks where one is
 * near, with a marker that says how much is missing and where the rest is.
 */
export function headAndTail(text: string, limit: number, path: string | undefined): string {
  const headLen = snapToLine(text, Math.floor(limit * HEAD_SHARE), "back");
  const tailStart = snapToLine(text, text.length - (limit - headLen), "forward");
  const omitted = tailStart - headLen;
  const where = path ? `; full text in ${path}` : "";
  return `${text.slice(0, headLen)}\n\n[... ${omitted} characters omitted${where} ...]\n\n${text.slice(tailStart)}`;
}

/** Moves a cut to the nearest line break within 10% of the way, so lines are not split. */
function snapToLine(text: string, at: number, direction: "back" | "forward"): number {
  const slack = Math.floor(at * 0.1) || 200;
  if (direction === "back") {
    const nl = text.lastIndexOf("\n", at);
    return nl > at - slack && nl > 0 ? nl : at;
  }
  const nl = text.indexOf("\n", at);
  return nl !== -1 && nl < at + slack ? nl + 1 : at;
}

/** The page's full text where read_file can reach it (copied into remote environments). Never throws. */
async function saveFullText(text: string, ctx: ToolContext): Promise<string | undefined> {
  let local: string;
  try {
    local = await spillToFile(ctx.home, text, "web-extract");
  } catch {
    return undefined;
  }
  if (!ctx.env?.storeOutput) return local;
  try {
    return await ctx.env.storeOutput(local);
  } catch {
    return undefined;
  }
}

function formatBytes(n: number): string {
  return n >= 1_000_000
    ? `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 1)} MB`
    : `${Math.round(n / 1000)} KB`;
}
