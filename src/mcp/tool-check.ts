/**
 * A server's tool list, tool by tool. The SDK's `listTools` refuses the whole list when one tool is
 * malformed, which cost the server every tool; here each tool is checked on its own and a bad one
 * is left out with a reason naming it. A tool's input schema must be one a provider accepts: an
 * object schema whose properties are schemas and that ajv compiles (a provider refuses a request
 * with a broken schema in it, which would break every request of the session, not just the tool).
 * ajv is imported here, when a server's tools are listed, never at start-up.
 */
import type { Ajv, ErrorObject } from "ajv";
import { isRecord } from "../core/is-record.js";
import type { ServerTool } from "./connection.js";

export interface RejectedTool {
  /** The tool's name, or `#<position>` for a tool without one. */
  name: string;
  reason: string;
}

export interface CheckedTools {
  tools: ServerTool[];
  rejected: RejectedTool[];
}

type Schema = Record<string, unknown>;
type Draft = "07" | "2019" | "2020" | "other";

const kindOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "a list" : `a ${typeof v}`);

/** The JSON Schema draft a schema declares (none: draft-07, ajv's default, which accepts most). */
function draftOf(schema: Schema): Draft {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (!declared || /draft-0[67]\b/.test(declared)) return "07";
  if (declared.includes("2020-12")) return "2020";
  if (declared.includes("2019-09")) return "2019";
  return "other";
}

/** One ajv per draft, made on first need for one listing (their compiled schemas go with them). */
class Compilers {
  private readonly made = new Map<Draft, Ajv>();

  async for(draft: Draft): Promise<Ajv> {
    const have = this.made.get(draft);
    if (have) return have;
    const options = {
      strict: false,
      allErrors: false,
      validateFormats: false,
      logger: false as const,
      // A draft ajv has no meta-schema for (draft-04, ...) is compiled without checking against one.
      validateSchema: draft !== "other",
    };
    // ajv is CommonJS: the bundle hands its exports over as `default` only, and Node as `default`
    // too (besides the named ones); its own `default` is the class.
    let ajv: Ajv;
    if (draft === "2020") ajv = new (await import("ajv/dist/2020.js")).default.default(options);
    else if (draft === "2019") ajv = new (await import("ajv/dist/2019.js")).default.default(options);
    else ajv = new (await import("ajv")).default.default(options);
    this.made.set(draft, ajv);
    return ajv;
  }
}

/** Keywords whose values the meta-schema cannot check: only compiling shows they are broken. */
const COMPILE_CHECKED = /"(?:\$ref|\$dynamicRef|\$recursiveRef|pattern|patternProperties)"\s*:/;

const firstError = (errors: ErrorObject[] | null | undefined): string => {
  const e = errors?.[0];
  if (!e) return "ajv refuses it";
  return `${e.instancePath || "the schema"} ${e.message ?? "is invalid"}`.trim();
};

/** Why a tool's input schema cannot be offered to a model, or undefined when it can. */
async function schemaProblem(schema: unknown, compilers: Compilers): Promise<string | undefined> {
  // A tool that declares no schema takes no arguments.
  if (schema === undefined) return undefined;
  if (!isRecord(schema)) return `its input schema is ${kindOf(schema)}, not an object`;
  if (schema.type !== undefined && schema.type !== "object")
    return `its input schema has type ${JSON.stringify(schema.type)}, not "object"`;
  const { properties, required } = schema;
  if (properties !== undefined) {
    if (!isRecord(properties))
      return `the 'properties' of its input schema is ${kindOf(properties)}, not an object`;
    for (const [name, value] of Object.entries(properties))
      if (!isRecord(value))
        return `the property '${name}' of its input schema is ${kindOf(value)}, not a schema`;
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string")))
    return "the 'required' of its input schema is not a list of property names";
  const { $schema: _draft, $id: _id, ...body } = schema;
  const ajv = await compilers.for(draftOf(schema));
  try {
    if (ajv.opts.validateSchema && !ajv.validateSchema(body))
      return `its input schema is not valid JSON Schema: ${firstError(ajv.errors)}`;
    // Compiling costs ~1 ms a tool (300 ms for a server of 300): done only where a schema valid by
    // the meta-schema can still fail, a reference that points nowhere or a pattern that is no regex.
    if (COMPILE_CHECKED.test(JSON.stringify(body))) ajv.compile(body);
    return undefined;
  } catch (err) {
    return `its input schema is not valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    // Ids inside one tool's schema must not clash with the next tool's.
    ajv.removeSchema();
  }
}

/** Splits a server's raw tool list into the tools that can be offered and those left out (and why). */
export async function checkTools(raw: readonly unknown[]): Promise<CheckedTools> {
  const tools: ServerTool[] = [];
  const rejected: RejectedTool[] = [];
  const seen = new Set<string>();
  const compilers = new Compilers();
  for (const [index, item] of raw.entries()) {
    const label = `#${index + 1}`;
    if (!isRecord(item)) {
      rejected.push({
        name: label,
        reason: `the tool at position ${index + 1} is ${kindOf(item)}, not an object`,
      });
      continue;
    }
    const name = item.name;
    if (typeof name !== "string" || !name.trim()) {
      rejected.push({ name: label, reason: `the tool at position ${index + 1} has no name` });
      continue;
    }
    if (seen.has(name)) {
      rejected.push({ name, reason: "the server lists it twice; the first one is kept" });
      continue;
    }
    const problem = await schemaProblem(item.inputSchema, compilers);
    if (problem) {
      rejected.push({ name, reason: problem });
      continue;
    }
    seen.add(name);
    tools.push({
      name,
      description: typeof item.description === "string" ? item.description : undefined,
      inputSchema: (item.inputSchema as Schema | undefined) ?? { type: "object", properties: {} },
    });
  }
  return { tools, rejected };
}
