/**
 * The `web_extract` tool: pages (HTML, PDF, text) fetched through the SSRF guard and returned as
 * markdown. A page over the character limit comes back as head + tail, its full text saved to a
 * file the model can page through with read_file.
 */
import { DEFAULT_CONFIG, type HermesConfig } from "../../../core/config.js";
import type { ToolContext } from "../../context.js";
import type { ToolRegistration } from "../../registry.js";
import { argInt, toolError, toolResult } from "../util.js";
import type { WebToolOptions } from "./types.js";

export const MAX_URLS = 5;
/** All pages of one call share this many characters, so the JSON result is never cut mid-way. */
const RESULT_BUDGET = 95_000;
const MIN_CHAR_LIMIT = 1_000;

const WEB_EXTRACT_SCHEMA = {
  description:
    "Read web pages (HTML, PDF) as markdown. Over char_limit: head and tail, the full text saved to " +
    "a file for read_file.",
  parameters: {
    type: "object",
    properties: {
      urls: {
        type: "array",
        items: { type: "string" },
        description: `At most ${MAX_URLS}.`,
      },
      char_limit: {
        type: "integer",
        minimum: MIN_CHAR_LIMIT,
      },
    },
    required: ["urls"],
  },
};

export interface ExtractedPage {
  url: string;
  final_url?: string;
  title?: string;
  byline?: string;
  type?: string;
  pages?: number;
  content?: string;
  truncated?: boolean;
  total_chars?: number;
  full_text_path?: string;
  note?: string;
  error?: string;
}

function readUrls(args: Record<string, unknown>): string[] {
  const raw = Array.isArray(args.urls) ? args.urls : typeof args.urls === "string" ? [args.urls] : [];
  const urls = raw.filter((u): u is string => typeof u === "string").map((u) => u.trim());
  return [...new Set(urls.filter((u) => u !== ""))];
}

export function webExtractRegistration(
  config: HermesConfig | undefined,
  opts: WebToolOptions,
): ToolRegistration<ToolContext> {
  return {
    name: "web_extract",
    toolset: "web",
    emoji: "📄",
    parallelSafe: true,
    maxResultChars: RESULT_BUDGET + 5_000,
    schema: WEB_EXTRACT_SCHEMA,
    handler: async (args, ctx) => {
      const urls = readUrls(args);
      if (urls.length === 0) return toolError("urls must list at least one http(s) URL");
      if (urls.length > MAX_URLS)
        return toolError(
          `at most ${MAX_URLS} URLs per call (got ${urls.length}); split them over several calls`,
        );
      const web = ctx.config.web ?? config?.web ?? DEFAULT_CONFIG.web;
      const wanted = argInt(args, "char_limit", web.extract_char_limit, MIN_CHAR_LIMIT, RESULT_BUDGET);
      const limit = Math.max(MIN_CHAR_LIMIT, Math.min(wanted, Math.floor(RESULT_BUDGET / urls.length)));
      // Fetching, the SSRF guard and the HTML/PDF readers load with the first call.
      const { extractOne } = await import("./extract-run.js");
      const results = await Promise.all(urls.map((url) => extractOne(url, limit, web, ctx, opts)));
      return toolResult({ results });
    },
  };
}
