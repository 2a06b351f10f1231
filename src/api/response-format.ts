/**
 * Structured answers (`response_format` / `text.format`). The answer of a run that asked for one
 * is checked before it is sent: JSON (a fenced block is unwrapped), an object, and valid against
 * the caller's schema (ajv). A model whose protocol cannot take the format is asked for it in
 * words; any model whose answer fails the check gets one repair turn that names the problems, and
 * an answer still wrong after it is an error rather than text that `parse()` would choke on.
 */
import type { ValidateFunction } from "ajv";
import { loadAjv } from "../core/ajv.js";
import type { ResponseFormat } from "../llm/types.js";
import { invalidField } from "./http.js";

export type FormatCheck = { ok: true; text: string } | { ok: false; problems: string };

/** Compiled schemas by their JSON text (clients send the same schema with every request). */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 64;

/** The validator of a schema; throws (with ajv's reason) when the schema itself is invalid. */
export async function validatorFor(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const AjvCtor = await loadAjv();
  // One ajv per schema: ajv keeps every schema it compiled, so a shared one would only grow.
  const ajv = new AjvCtor({ allErrors: true, strict: false, logger: false });
  const validate = ajv.compile(schema);
  compiled.set(key, validate);
  if (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  return validate;
}

/** The JSON text of an answer: the whole text, or the one fenced block it is wrapped in. */
function jsonText(answer: string): string {
  const trimmed = answer.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  return (fenced ? fenced[1]! : trimmed).trim();
}

/** Checks an answer against the format; the text to send is the bare JSON. */
export async function checkAnswer(answer: string, format: ResponseFormat): Promise<FormatCheck> {
  const text = jsonText(answer);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: `it is not valid JSON (${(err as Error).message})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, problems: "it is not a JSON object" };
  if (format.type === "json_object") return { ok: true, text };
  const validate = await validatorFor(format.schema);
  if (validate(value)) return { ok: true, text };
  const problems = (validate.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || "(the object)"} ${e.message ?? "is invalid"}`)
    .join("; ");
  return { ok: false, problems: `it does not match the schema: ${problems}` };
}

/** What the model is told when its protocol cannot carry the format. */
export function formatInstruction(format: ResponseFormat): string {
  const what =
    format.type === "json_object"
      ? "one JSON object"
      : `one JSON object that matches this JSON schema (${format.name}):\n${JSON.stringify(format.schema)}`;
  return `<response_format>\nAnswer with ${what}\nThe answer is parsed by a program: no other text, no code fences.\n</response_format>`;
}

/** The repair turn after an answer that failed the check. */
export function repairRequest(problems: string, format: ResponseFormat): string {
  return `Your answer cannot be used: ${problems}. Reply again with only the corrected answer: ${
    format.type === "json_object" ? "one JSON object" : `one JSON object matching the ${format.name} schema`
  }, no other text.`;
}

/** Refuses (400, naming the field) a schema ajv cannot compile, before anything runs. */
export async function checkSchema(format: ResponseFormat | undefined, path: string): Promise<void> {
  if (format?.type !== "json_schema") return;
  try {
    await validatorFor(format.schema);
  } catch (err) {
    throw invalidField(`${path}.schema`, `is not a usable JSON schema: ${(err as Error).message}`);
  }
}
