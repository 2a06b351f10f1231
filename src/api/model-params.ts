/**
 * The sampling and output settings of a request (`max_tokens`, `temperature`, `top_p`, `stop`,
 * `seed`, penalties, `response_format`; the Responses API's `max_output_tokens`, `text.format`),
 * checked field by field and carried to every model call of the run. A setting the server cannot
 * honour is refused with a 400 that says so (`n` above 1, `logprobs`, a `stop` the configured
 * model's protocol has no field for); `seed` is a best-effort hint, dropped where the protocol has
 * none; `response_format` where the protocol has none is asked for in words and checked (see
 * response-format.ts). Fields the server does not know are ignored.
 */

import { isRecord } from "../core/is-record.js";
import { unsupportedParams } from "../llm/request-params.js";
import type { ApiMode, RequestParams, ResponseFormat } from "../llm/types.js";
import { typeName } from "./checks.js";
import { ApiError, invalidField } from "./http.js";

function numberIn(body: Record<string, unknown>, key: string, min: number, max: number, path = key) {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max)
    throw invalidField(path, `must be a number from ${min} to ${max}, not ${JSON.stringify(v)}`);
  return v;
}

function wholeNumber(body: Record<string, unknown>, key: string, min: number, path = key) {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min)
    throw invalidField(path, `must be a whole number of at least ${min}, not ${JSON.stringify(v)}`);
  return v;
}

/** OpenAI's limit on stop sequences. */
const MAX_STOP = 4;

function stopOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const list = typeof v === "string" ? [v] : v;
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string" || s === ""))
    throw invalidField("stop", "must be a non-empty string or an array of non-empty strings");
  if (list.length > MAX_STOP) throw invalidField("stop", `may hold at most ${MAX_STOP} sequences`);
  return list.length > 0 ? (list as string[]) : undefined;
}

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A `response_format` (chat) or `text.format` (Responses) object; undefined for plain text. */
function formatOf(v: unknown, path: string, schemaAt: "json_schema" | "inline"): ResponseFormat | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw invalidField(path, `must be an object, not ${typeName(v)}`);
  const type = v.type;
  if (type === "text") return undefined;
  if (type === "json_object") return { type: "json_object" };
  if (type !== "json_schema")
    throw invalidField(
      `${path}.type`,
      `must be one of text, json_object, json_schema, not ${JSON.stringify(type)}`,
    );
  // Chat nests the schema under `json_schema`; the Responses API puts its fields beside `type`.
  const spec = schemaAt === "json_schema" ? v.json_schema : v;
  const at = schemaAt === "json_schema" ? `${path}.json_schema` : path;
  if (!isRecord(spec)) throw invalidField(at, "must be an object with name and schema");
  if (typeof spec.name !== "string" || !SCHEMA_NAME.test(spec.name))
    throw invalidField(`${at}.name`, "must be 1-64 letters, digits, underscores or dashes");
  const schema = spec.schema ?? {};
  if (!isRecord(schema))
    throw invalidField(`${at}.schema`, `must be a JSON schema object, not ${typeName(schema)}`);
  if (spec.strict !== undefined && spec.strict !== null && typeof spec.strict !== "boolean")
    throw invalidField(`${at}.strict`, "must be true or false");
  if (spec.description !== undefined && spec.description !== null && typeof spec.description !== "string")
    throw invalidField(`${at}.description`, "must be a string");
  return {
    type: "json_schema",
    name: spec.name,
    schema,
    ...(typeof spec.description === "string" ? { description: spec.description } : {}),
    ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
  };
}

/** Drops unset fields, so `{}` means "no settings". */
function compact(p: RequestParams): RequestParams {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as RequestParams;
}

/** The settings of a chat completions body. Throws ApiError (400) naming the field at fault. */
export function chatParams(body: Record<string, unknown>): RequestParams {
  const n = wholeNumber(body, "n", 1);
  if (n !== undefined && n > 1)
    throw invalidField(
      "n",
      `must be 1: this server runs one agent per request and returns one choice, not ${n}`,
    );
  if (body.logprobs === true || (body.top_logprobs !== undefined && body.top_logprobs !== null))
    throw invalidField(
      body.logprobs === true ? "logprobs" : "top_logprobs",
      "is not supported: the answer of an agent run has no token log probabilities",
    );
  const maxCompletion = wholeNumber(body, "max_completion_tokens", 1);
  return compact({
    maxTokens: maxCompletion ?? wholeNumber(body, "max_tokens", 1),
    temperature: numberIn(body, "temperature", 0, 2),
    topP: numberIn(body, "top_p", 0, 1),
    stop: stopOf(body.stop),
    seed: wholeNumber(body, "seed", Number.MIN_SAFE_INTEGER),
    presencePenalty: numberIn(body, "presence_penalty", -2, 2),
    frequencyPenalty: numberIn(body, "frequency_penalty", -2, 2),
    responseFormat: formatOf(body.response_format, "response_format", "json_schema"),
  });
}

/** The settings of a Responses body. Throws ApiError (400) naming the field at fault. */
export function responsesParams(body: Record<string, unknown>): RequestParams {
  const text = body.text;
  if (text !== undefined && text !== null && !isRecord(text))
    throw invalidField("text", `must be an object, not ${typeName(text)}`);
  return compact({
    maxTokens: wholeNumber(body, "max_output_tokens", 1),
    temperature: numberIn(body, "temperature", 0, 2),
    topP: numberIn(body, "top_p", 0, 1),
    responseFormat: isRecord(text) ? formatOf(text.format, "text.format", "inline") : undefined,
  });
}

const FIELD_NAMES: Record<keyof RequestParams, string> = {
  maxTokens: "max_tokens",
  temperature: "temperature",
  topP: "top_p",
  stop: "stop",
  seed: "seed",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
  responseFormat: "response_format",
};

/**
 * The settings as the configured model's protocol takes them: a `stop` or penalty it has no field
 * for is refused (400), `seed` dropped; `emulateFormat` says a response format must be asked for in
 * words and checked after the run.
 */
export function fitToProtocol(
  params: RequestParams,
  apiMode: ApiMode,
): { params: RequestParams; emulateFormat: boolean } {
  const missing = unsupportedParams(apiMode, params);
  const refused = missing.filter((m) => m !== "seed" && m !== "responseFormat");
  if (refused.length > 0) {
    const name = FIELD_NAMES[refused[0]!];
    throw new ApiError(
      400,
      `${name} is not supported by this server's model (its ${apiMode} protocol has no such setting)`,
      "invalid_request_error",
      "unsupported_parameter",
      name,
    );
  }
  const out = { ...params };
  if (missing.includes("seed")) delete out.seed;
  const emulateFormat = missing.includes("responseFormat");
  if (emulateFormat) delete out.responseFormat;
  return { params: out, emulateFormat };
}
