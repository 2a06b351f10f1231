/**
 * The `web_search` tool: one query to the configured backend, results as title, URL and snippet.
 */
import { DEFAULT_CONFIG, type HermesConfig } from "../../../core/config.js";
import type { ToolContext } from "../../context.js";
import type { ToolRegistration } from "../../registry.js";
import { argInt, argString, toolError, toolResult } from "../util.js";
import { chooseSearchBackend } from "./search-backends.js";
import { type SearchBackendOptions, SearchError } from "./search-types.js";
import type { WebToolOptions } from "./types.js";

const DEFAULT_LIMIT = 5;

type WebSettings = HermesConfig["web"];

function backendOptions(web: WebSettings, opts: WebToolOptions): SearchBackendOptions {
  return { env: opts.env ?? process.env, searxngUrl: web.searxng_url, endpoints: opts.endpoints };
}

const configured = (web: WebSettings): string => web.search_backend || web.backend;

/** The backend's limits when one is known (they change how often and how widely to search). */
function description(limits: string | undefined, canExtract: boolean): string {
  return (
    "Web search: title, URL, snippet per result." +
    (limits ? ` Backend: ${limits}.` : "") +
    (canExtract ? " Read pages with web_extract." : "")
  );
}

export function webSearchRegistration(
  config: HermesConfig | undefined,
  opts: WebToolOptions,
): ToolRegistration<ToolContext> {
  const startup = config?.web ?? DEFAULT_CONFIG.web;
  const choose = () => chooseSearchBackend(configured(startup), backendOptions(startup, opts));
  return {
    name: "web_search",
    toolset: "web",
    emoji: "🔎",
    parallelSafe: true,
    schema: {
      description: description(undefined, true),
      parameters: {
        type: "object",
        properties: {
          query: { type: "string" },
          limit: { type: "integer", description: `Default ${DEFAULT_LIMIT}.` },
        },
        required: ["query"],
      },
    },
    checkFn: () => choose().ok,
    dynamicSchemaOverrides: (available) => {
      const choice = choose();
      return choice.ok
        ? { description: description(choice.backend.limits, available.includes("web_extract")) }
        : undefined;
    },
    handler: async (args, ctx) => {
      const query = argString(args, "query")?.trim();
      if (!query) return toolError("query must be a non-empty string");
      const web = ctx.config.web ?? startup;
      const choice = chooseSearchBackend(configured(web), backendOptions(web, opts));
      if (!choice.ok) return toolError(`web search is not available: ${choice.reason}`);
      const { backend } = choice;
      const limit = argInt(args, "limit", DEFAULT_LIMIT, 1, backend.maxResults);
      try {
        const results = await backend.search(query, limit, ctx.signal);
        return toolResult({
          backend: backend.name,
          query,
          results,
          ...(results.length === 0 ? { note: "No results. Try fewer or different words." } : {}),
        });
      } catch (err) {
        if (err instanceof SearchError) return toolError(err.message, { backend: backend.name });
        return toolError(`${backend.name} search failed: ${(err as Error).message}`, {
          backend: backend.name,
        });
      }
    },
  };
}
