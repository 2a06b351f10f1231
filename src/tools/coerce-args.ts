/**
 * Repairs of the argument slips models make, guided by the tool's JSON schema: "5" for an
 * integer, "true" for a boolean, a JSON-encoded array or object inside a string, one value where
 * a list is expected (and a list of one where the value is), null for an optional argument,
 * "Python" for the enum's "python", a number or an object where text is expected. Applied only to arguments that failed validation, and
 * silently. A value that cannot be repaired is left as it was, so validation reports it. Pure;
 * imports only core's plain-object guard.
 */
import { isRecord } from "../core/is-record.js";

type Schema = Record<string, unknown>;

/** The JSON types a schema names, through `anyOf`/`oneOf` branches; undefined when it names none. */
function typesOf(schema: Schema): Set<string> | undefined {
  const out = new Set<string>();
  const t = schema.type;
  if (typeof t === "string") out.add(t);
  else if (Array.isArray(t)) for (const x of t) if (typeof x === "string") out.add(x);
  if (schema.nullable === true) out.add("null");
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const b of branches) {
      if (!isRecord(b)) continue;
      const inner = typesOf(b);
      if (!inner) return undefined; // an untyped branch admits anything
      for (const x of inner) out.add(x);
    }
  }
  return out.size > 0 ? out : undefined;
}

/** The branch of a union that admits `type`, for descending into items and properties. */
function branchFor(schema: Schema, type: string): Schema {
  if (typesOf({ type: schema.type })?.has(type)) return schema;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const b of branches) if (isRecord(b) && typesOf(b)?.has(type)) return b;
  }
  return schema;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function fromString(text: string, types: Set<string>): unknown {
  const s = text.trim();
  if (types.has("integer") || types.has("number")) {
    if (NUMBER.test(s)) {
      const n = Number(s);
      if (Number.isFinite(n) && (types.has("number") || Number.isInteger(n))) return n;
    }
  }
  if (types.has("boolean")) {
    const low = s.toLowerCase();
    if (low === "true") return true;
    if (low === "false") return false;
  }
  if (types.has("null") && s.toLowerCase() === "null") return null;
  if ((types.has("array") && s.startsWith("[")) || (types.has("object") && s.startsWith("{"))) {
    try {
      const parsed: unknown = JSON.parse(s);
      if (Array.isArray(parsed) ? types.has("array") : isRecord(parsed) && types.has("object")) return parsed;
    } catch {
      // not JSON after all: validation will say what was expected
    }
  }
  return text;
}

/** The one enum member that differs only in case or surrounding spaces ("Python" for "python"). */
function fromEnum(text: string, members: readonly unknown[]): unknown {
  if (members.includes(text)) return text;
  const wanted = text.trim().toLowerCase();
  const hits = members.filter((m) => typeof m === "string" && m.toLowerCase() === wanted);
  return hits.length === 1 ? hits[0] : text;
}

/** Whether `v` is what the list branch of `schema` holds (any value when its items are untyped). */
function fitsItems(v: unknown, schema: Schema): boolean {
  const items = branchFor(schema, "array").items;
  const types = isRecord(items) ? typesOf(items) : undefined;
  return !types || admits(v, types);
}

/** Text is all that fits (null aside): the only reading of a number or an object is its text. */
const onlyText = (types: Set<string>): boolean =>
  types.has("string") && [...types].every((t) => t === "string" || t === "null");

/** Whether `v` already has one of the JSON types in `types`. */
function admits(v: unknown, types: Set<string>): boolean {
  if (v === null) return types.has("null");
  if (Array.isArray(v)) return types.has("array");
  switch (typeof v) {
    case "string":
      return types.has("string");
    case "boolean":
      return types.has("boolean");
    case "number":
      return types.has("number") || (types.has("integer") && Number.isInteger(v));
    case "object":
      return types.has("object");
    default:
      return false;
  }
}

/** One value against its schema; returns the same value (by identity) when nothing changed. */
function coerceValue(value: unknown, schema: unknown): unknown {
  if (!isRecord(schema)) return value;
  if (typeof value === "string" && Array.isArray(schema.enum)) {
    const member = fromEnum(value, schema.enum);
    if (member !== value) return member;
  }
  const types = typesOf(schema);
  let v = value;
  if (types && !admits(v, types)) {
    if (typeof v === "string") v = fromString(v, types);
    else if (onlyText(types) && (typeof v === "number" || typeof v === "boolean")) return String(v);
    // A lone value wrapped in a list where the value itself fits: the value.
    else if (Array.isArray(v) && v.length === 1 && admits(v[0], types)) return coerceValue(v[0], schema);
    // An object where only text fits (a JSON file's content sent as an object): its JSON text.
    else if (onlyText(types) && isRecord(v)) return `${JSON.stringify(v, null, 2)}\n`;
    // One value where a list of such values fits: a list of one.
    if (types.has("array") && v !== null && !admits(v, types) && fitsItems(v, schema)) v = [v];
  }
  if (Array.isArray(v)) {
    const items = branchFor(schema, "array").items;
    if (!isRecord(items)) return v;
    let changed = v !== value;
    const out = v.map((item) => {
      const next = coerceValue(item, items);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (isRecord(v)) return coerceObject(v, branchFor(schema, "object"));
  return v;
}

/** An arguments object against an object schema (nulls of optional properties are dropped). */
function coerceObject(args: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const props = isRecord(schema.properties) ? schema.properties : undefined;
  if (!props) return args;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(args)) {
    const prop = props[key];
    if (!isRecord(prop)) continue;
    const types = typesOf(prop);
    if (value === null && !required.has(key) && types && !types.has("null")) {
      // An optional argument sent as null means "not given".
      out ??= { ...args };
      delete out[key];
      continue;
    }
    const next = coerceValue(value, prop);
    if (next !== value) {
      out ??= { ...args };
      out[key] = next;
    }
  }
  return out ?? args;
}

/**
 * `args` with the repairs applied, as a new object; the same object when nothing needed repair.
 * Properties the schema does not name pass through untouched.
 */
export function coerceArgs(
  args: Record<string, unknown>,
  schema: Record<string, unknown>,
): Record<string, unknown> {
  return coerceObject(args, schema);
}
