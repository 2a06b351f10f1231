import type { ProviderProblem } from "../llm/detect.js";
import { fetchEndpointModels } from "../llm/models/endpoint.js";

/** What a custom endpoint's model list says when no model is configured. */
export type ModelDiscovery =
  /** The server serves exactly this model: use it. */
  | { kind: "model"; model: string; note: string }
  /** Nothing to pick automatically: one message saying what the user can do. */
  | { kind: "ask"; message: string };

/** Models listed by name before the list is cut. */
const LISTED = 20;
/** A local server answers at once; a slow one should not hold up the message for long. */
const LIST_TIMEOUT_MS = 3000;

/**
 * For a `missing_model` problem on a custom endpoint, asks its `GET /models`: the only model is
 * used; several are listed with how to choose one (-m, model.default). Undefined for any other
 * problem. Never throws.
 */
export async function discoverModel(problem: ProviderProblem): Promise<ModelDiscovery | undefined> {
  if (problem.kind !== "missing_model" || !problem.endpoint) return undefined;
  const { baseUrl, apiKey } = problem.endpoint;
  const choose = "pass -m MODEL, or set it once with 'hermes config set model.default MODEL'";
  const listed = await fetchEndpointModels({ baseUrl, apiKey }, LIST_TIMEOUT_MS);
  if (!listed.ok) {
    return {
      kind: "ask",
      message: `hermes: no model is set (model.default), and ${baseUrl}/models did not answer (${listed.reason}): ${choose}.`,
    };
  }
  const ids = Object.keys(listed.models).sort();
  if (ids.length === 1) {
    const model = ids[0]!;
    return {
      kind: "model",
      model,
      note: `hermes: using ${model}, the only model ${baseUrl} serves (-m or model.default picks another)`,
    };
  }
  if (ids.length === 0) {
    return {
      kind: "ask",
      message: `hermes: no model is set (model.default), and ${baseUrl} ${listed.noList ? "has no model list" : "lists no models"}: ${choose}.`,
    };
  }
  const shown = ids.slice(0, LISTED).map((id) => `  ${id}`);
  if (ids.length > LISTED) shown.push(`  ... and ${ids.length - LISTED} more`);
  return {
    kind: "ask",
    message: [
      `hermes: no model is set (model.default), and ${baseUrl} serves ${ids.length} models; ${choose}:`,
      ...shown,
    ].join("\n"),
  };
}
