/**
 * Checks a tool call's arguments against the tool's JSON schema (ajv) before the handler runs.
 * Arguments that fail get one round of repairs (coerce-args.ts) and are checked again; what still
 * fails becomes an error naming each argument, what was expected and what was given. The check is
 * about shape (required arguments, types, enums, nesting, `additionalProperties: false`); limits
 * such as `maximum` or `maxItems` stay the tool's business, as tools clamp them or answer in their
 * own words. ajv is imported on the first check (it costs ~50 ms to load, too much for startup),
 * and each tool's validator is compiled once per registry generation. Imports nothing from the
 * project but the coercion rules and core's ajv loader.
 */
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { loadAjv } from "../core/ajv.js";
import { coerceArgs } from "./coerce-args.js";

export type ArgCheck = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

type Schema = Record<string, unknown>;

/** Errors listed in one message; more only repeat the lesson. */
const MAX_ERRORS = 5;
const PREVIEW_CHARS = 60;

/** Keys that need no validator: a schema made only of these accepts any arguments object. */
const OPEN_KEYS = new Set([
  "type",
  "properties",
  "description",
  "title",
  "$schema",
  "additionalProperties",
  "required",
]);

/** Limits a model is told about but a tool enforces itself (mostly by clamping). */
const LIMIT_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
]);

/** The schema's shape without its limits (a copy; the registered schema is never touched). */
function shapeOf(schema: unknown, top = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => shapeOf(s));
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (LIMIT_KEYWORDS.has(key) && typeof value !== "object") continue;
    // The draft and id a schema declares only matter to ajv's own registry, where they could clash.
    if (top && (key === "$schema" || key === "$id")) continue;
    // Values under these keys are data (enum members, defaults, examples), not schemas.
    out[key] =
      key === "enum" || key === "const" || key === "default" || key === "examples" ? value : shapeOf(value);
  }
  return out;
}

function isOpenSchema(schema: Schema): boolean {
  for (const key of Object.keys(schema)) if (!OPEN_KEYS.has(key)) return false;
  if (schema.type !== undefined && schema.type !== "object") return false;
  if (schema.additionalProperties === false) return false;
  if (Array.isArray(schema.required) && schema.required.length > 0) return false;
  const props = schema.properties;
  return (
    props === undefined || (typeof props === "object" && props !== null && Object.keys(props).length === 0)
  );
}

/** One validator per tool, rebuilt when the registry changes. Never throws. */
export class ArgValidator {
  private ajv: Ajv | undefined;
  private generation = -1;
  private readonly validators = new Map<string, { schema: Schema; validate: ValidateFunction | undefined }>();

  /**
   * Checks (and if need be repairs) `args`; a schema ajv cannot compile lets everything through.
   * Synchronous once the tool's validator is built, so a handler starts in the caller's tick.
   */
  check(
    tool: string,
    schema: Schema,
    args: Record<string, unknown>,
    generation: number,
  ): ArgCheck | Promise<ArgCheck> {
    if (isOpenSchema(schema)) return { ok: true, args };
    if (generation !== this.generation) {
      // Replaced or removed tools must not keep their compiled code (and ajv's cache) alive.
      this.generation = generation;
      this.validators.clear();
      this.ajv = undefined;
    }
    const cached = this.validators.get(tool);
    if (cached && cached.schema === schema) return run(tool, schema, args, cached.validate);
    return this.compile(tool, schema, generation).then((validate) => run(tool, schema, args, validate));
  }

  private async compile(
    tool: string,
    schema: Schema,
    generation: number,
  ): Promise<ValidateFunction | undefined> {
    let validate: ValidateFunction | undefined;
    try {
      const AjvCtor = await loadAjv();
      this.ajv ??= new AjvCtor({
        allErrors: true,
        strict: false,
        validateSchema: false,
        validateFormats: false,
        verbose: true,
        logger: false,
      });
      validate = this.ajv.compile(shapeOf(schema, true) as Schema);
    } catch {
      // An unresolvable $ref or a clash in ajv's registry: the tool checks its own arguments, as before.
      validate = undefined;
    }
    if (generation === this.generation) this.validators.set(tool, { schema, validate });
    return validate;
  }
}

function run(
  tool: string,
  schema: Schema,
  args: Record<string, unknown>,
  validate: ValidateFunction | undefined,
): ArgCheck {
  if (!validate || validate(args)) return { ok: true, args };
  const repaired = coerceArgs(args, schema);
  if (repaired !== args && validate(repaired)) return { ok: true, args: repaired };
  return { ok: false, error: describeErrors(tool, validate.errors ?? []) };
}

/** `/todos/0/content` → `todos[0].content`. */
function argPath(pointer: string, child?: string): string {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");
}

const named = (path: string): string => (path ? `'${path}'` : "the arguments");

function preview(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}...` : text;
}

const withArticle = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** What a schema accepts, in a few words: `string`, `integer or null`, `one of "a", "b"`. */
function expected(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const s = schema as Schema;
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (typeof s.type === "string") {
    if (s.type === "array" && typeof s.items === "object" && s.items !== null) {
      const item = (s.items as Schema).type;
      if (typeof item === "string") return `array of ${item}s`;
    }
    return s.type;
  }
  if (Array.isArray(s.type)) return s.type.join(" or ");
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const each = branches.map(expected);
    if (each.every((x) => x !== undefined)) return each.join(" or ");
  }
  return undefined;
}

function describeError(e: ErrorObject): string {
  const at = argPath(e.instancePath);
  const got = `got ${preview(e.data)}`;
  switch (e.keyword) {
    case "required": {
      const missing = String(e.params.missingProperty);
      const props = (e.parentSchema?.properties ?? {}) as Schema;
      const want = expected(props[missing]);
      return `${named(argPath(e.instancePath, missing))} is required${want ? ` (${want})` : ""}`;
    }
    case "type":
      return `${named(at)} must be ${String(e.params.type).split(",").map(withArticle).join(" or ")}, ${got}`;
    case "enum":
      return `${named(at)} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}, ${got}`;
    case "additionalProperties": {
      const extra = String(e.params.additionalProperty);
      const known = Object.keys((e.parentSchema?.properties ?? {}) as Schema);
      return `unknown argument ${named(argPath(e.instancePath, extra))}${known.length ? ` (accepted: ${known.join(", ")})` : ""}`;
    }
    case "anyOf":
    case "oneOf": {
      const want = expected(e.parentSchema) ?? "one of the allowed forms";
      return `${named(at)} does not match ${want}, ${got}`;
    }
    default:
      return `${named(at)} ${(e.message ?? "is invalid").replace(/\bNOT\b/g, "not")}, ${got}`;
  }
}

/** The message the model reads: every distinct problem, in the schema's order. */
export function describeErrors(tool: string, errors: readonly ErrorObject[]): string {
  // Inside a union, each branch's complaint is noise: the union's own error says it.
  const unions = errors
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .map((e) => `${e.schemaPath}/`);
  const kept = errors.filter((e) => !unions.some((u) => e.schemaPath.startsWith(u)));
  const lines = [...new Set(kept.map(describeError))].slice(0, MAX_ERRORS);
  return `Invalid arguments for ${tool}: ${lines.join("; ") || "they do not match the tool's schema"}.`;
}
