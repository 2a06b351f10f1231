/**
 * The route table: path pattern, then one handler per method. Unknown paths are 404, a known
 * path with another method 405 (with `Allow`).
 */
import { handleChatCompletions } from "./chat-completions.js";
import type { RouteContext, RouteHandler, RouteRequest } from "./context.js";
import { ApiError, sendJson } from "./http.js";
import { handleCreateResponse, handleDeleteResponse, handleGetResponse } from "./responses.js";
import { handleDeleteSession, handleGetSession, handleListSessions } from "./sessions.js";

export interface Route {
  pattern: RegExp;
  /** Reachable without the key (health checks of load balancers and supervisors). */
  open?: boolean;
  /** POST handlers get the parsed JSON body. */
  methods: Partial<Record<"GET" | "POST" | "DELETE", RouteHandler>>;
}

const health: RouteHandler = async (_ctx, r) => sendJson(r.res, 200, { status: "ok" });

const modelJson = (ctx: RouteContext) => ({
  id: ctx.options.modelName,
  object: "model",
  created: ctx.startedAt,
  owned_by: "hermes",
});

const listModels: RouteHandler = async (ctx, r) =>
  sendJson(r.res, 200, { object: "list", data: [modelJson(ctx)] });

const getModel: RouteHandler = async (ctx, r: RouteRequest) => {
  if (r.params[0] !== ctx.options.modelName)
    throw new ApiError(
      404,
      `No model ${JSON.stringify(r.params[0])}; this server offers ${JSON.stringify(ctx.options.modelName)}`,
      "not_found_error",
      "model_not_found",
    );
  sendJson(r.res, 200, modelJson(ctx));
};

const ID = "([^/]+)";

export const ROUTES: readonly Route[] = [
  { pattern: /^\/health$/, open: true, methods: { GET: health } },
  { pattern: /^\/v1\/health$/, open: true, methods: { GET: health } },
  { pattern: /^\/v1\/models$/, methods: { GET: listModels } },
  { pattern: new RegExp(`^/v1/models/${ID}$`), methods: { GET: getModel } },
  { pattern: /^\/v1\/chat\/completions$/, methods: { POST: handleChatCompletions } },
  { pattern: /^\/v1\/responses$/, methods: { POST: handleCreateResponse } },
  {
    pattern: new RegExp(`^/v1/responses/${ID}$`),
    methods: { GET: handleGetResponse, DELETE: handleDeleteResponse },
  },
  { pattern: /^\/api\/sessions$/, methods: { GET: handleListSessions } },
  {
    pattern: new RegExp(`^/api/sessions/${ID}$`),
    methods: { GET: handleGetSession, DELETE: handleDeleteSession },
  },
];

/** The route of a path and its decoded parameters, or undefined. */
export function matchRoute(path: string): { route: Route; params: string[] } | undefined {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    try {
      return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    } catch {
      throw new ApiError(400, `The path ${path} is not validly encoded`, "invalid_request_error");
    }
  }
  return undefined;
}
