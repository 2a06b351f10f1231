/**
 * Arguments are checked against the tool's schema before its handler runs: calls that do not fit
 * come back as errors naming the argument, what was expected and what was given (the handler never
 * runs), and the slips models make are repaired silently.
 */
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/tools/registry.js";

const READ_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    offset: { type: "integer", minimum: 1 },
    limit: { type: "integer", maximum: 2000 },
    verbose: { type: "boolean" },
    mode: { type: "string", enum: ["text", "binary"] },
  },
  required: ["path"],
};

/** A registry with one tool whose handler records the arguments it was given. */
function tool(parameters: Record<string, unknown>, name = "read_file") {
  const registry = new ToolRegistry<unknown>();
  const seen: Record<string, unknown>[] = [];
  registry.register({
    name,
    toolset: "t",
    schema: { description: "d", parameters },
    handler: (args) => {
      seen.push(args);
      return JSON.stringify({ ok: true });
    },
  });
  /** Runs the tool and returns the arguments its handler saw (undefined when it did not run). */
  const received = async (args: Record<string, unknown>) => {
    const before = seen.length;
    const out = await registry.dispatchResult(name, args, {});
    if (seen.length === before) throw new Error(`handler did not run: ${JSON.stringify(out)}`);
    return seen[seen.length - 1]!;
  };
  return { registry, seen, received };
}

describe("argument validation", () => {
  it("answers a missing required argument with a schema error, without running the handler", async () => {
    const { registry, seen } = tool(READ_SCHEMA);
    const text = await registry.dispatch("read_file", { offset: 3 }, {});
    expect(text).toBe(`{"error":"Invalid arguments for read_file: 'path' is required (string)."}`);
    const result = await registry.dispatchResult("read_file", {}, {});
    expect(result.isError).toBe(true);
    expect(seen).toEqual([]);
  });

  it("says what was expected and what was given, for every bad argument", async () => {
    const { registry, seen } = tool(READ_SCHEMA);
    const error = JSON.parse(
      await registry.dispatch("read_file", { path: ["a", "b"], offset: "soon", mode: "hex" }, {}),
    ).error as string;
    expect(error).toMatch(/^Invalid arguments for read_file: /);
    expect(error).toContain(`'path' must be a string, got ["a","b"]`);
    expect(error).toContain(`'offset' must be an integer, got "soon"`);
    expect(error).toContain(`'mode' must be one of "text", "binary", got "hex"`);
    expect(error.endsWith(".")).toBe(true);
    // A fraction is no integer: it is not rounded behind the model's back.
    const fraction = JSON.parse(await registry.dispatch("read_file", { path: "a", offset: "2.5" }, {}));
    expect(fraction.error).toContain(`'offset' must be an integer, got "2.5"`);
    expect(seen).toEqual([]);
  });

  it("names nested arguments by their path", async () => {
    const { registry } = tool(
      {
        type: "object",
        properties: {
          todos: {
            type: "array",
            items: {
              type: "object",
              properties: { id: { type: "string" }, content: { type: "string" } },
              required: ["id", "content"],
            },
          },
        },
        required: ["todos"],
      },
      "todo",
    );
    const out = JSON.parse(
      await registry.dispatch("todo", { todos: [{ id: "1", content: "x" }, { id: "2" }] }, {}),
    );
    expect(out.error).toBe("Invalid arguments for todo: 'todos[1].content' is required (string).");
  });

  it("follows additionalProperties: unknown arguments pass through untouched unless the schema forbids them", async () => {
    const open = tool(READ_SCHEMA);
    const args = { path: "a.txt", extra: { deep: [1] } };
    const seen = await open.received(args);
    expect(seen).toBe(args);
    const closed = tool({ ...READ_SCHEMA, additionalProperties: false });
    const out = JSON.parse(await closed.registry.dispatch("read_file", { path: "a", colour: "red" }, {}));
    expect(out.error).toBe(
      "Invalid arguments for read_file: unknown argument 'colour' (accepted: path, offset, limit, verbose, mode).",
    );
    expect(closed.seen).toEqual([]);
  });

  it("leaves limits such as maximum to the tool, which clamps them itself", async () => {
    const { received } = tool(READ_SCHEMA);
    expect(await received({ path: "a", limit: 9999, offset: 0 })).toEqual({
      path: "a",
      limit: 9999,
      offset: 0,
    });
  });

  it("lets a schema ajv cannot compile through, and reads one that declares a newer draft", async () => {
    const broken = tool({ type: "object", properties: { a: { $ref: "#/definitions/missing" } } });
    expect(await broken.received({ a: 1 })).toEqual({ a: 1 });
    const drafted = tool({ $schema: "https://json-schema.org/draft/2020-12/schema", ...READ_SCHEMA });
    expect(JSON.parse(await drafted.registry.dispatch("read_file", {}, {})).error).toContain(
      "'path' is required",
    );
  });

  it("rebuilds a tool's validator when the tool is registered again", async () => {
    const { registry } = tool(READ_SCHEMA);
    expect(JSON.parse(await registry.dispatch("read_file", { path: "a" }, {}))).toEqual({ ok: true });
    registry.register({
      name: "read_file",
      toolset: "t",
      schema: { description: "d", parameters: { ...READ_SCHEMA, required: ["path", "limit"] } },
      handler: () => "ran",
    });
    expect(JSON.parse(await registry.dispatch("read_file", { path: "a" }, {})).error).toBe(
      "Invalid arguments for read_file: 'limit' is required (integer).",
    );
  });

  it("keeps a throwing handler's error as before", async () => {
    const registry = new ToolRegistry<unknown>();
    registry.register({
      name: "boom",
      toolset: "t",
      schema: { description: "d", parameters: READ_SCHEMA },
      handler: () => {
        throw new RangeError("no");
      },
    });
    expect(await registry.dispatch("boom", { path: "a" }, {})).toBe(
      '{"error":"Tool execution failed: RangeError: no"}',
    );
  });
});

describe("argument repairs", () => {
  it("turns numeric and boolean strings into numbers and booleans", async () => {
    const { received } = tool(READ_SCHEMA);
    expect(await received({ path: "a", offset: "5", limit: " 20 ", verbose: "TRUE" })).toEqual({
      path: "a",
      offset: 5,
      limit: 20,
      verbose: true,
    });
    expect(await received({ path: "a", verbose: "false" })).toEqual({ path: "a", verbose: false });
  });

  it("turns numbers and JSON objects into text where only text fits", async () => {
    const { received } = tool(READ_SCHEMA);
    expect(await received({ path: 42 })).toEqual({ path: "42" });
    expect(await received({ path: { a: 1 } })).toEqual({ path: '{\n  "a": 1\n}\n' });
    expect(await received({ path: ["a.txt"] })).toEqual({ path: "a.txt" });
  });

  it("matches an enum member that differs only in case", async () => {
    const { received } = tool(READ_SCHEMA);
    expect(await received({ path: "a", mode: "Binary" })).toEqual({ path: "a", mode: "binary" });
  });

  it("drops null for an optional argument and reads 'null' where null is allowed", async () => {
    const { received } = tool({
      type: "object",
      properties: {
        path: { type: "string" },
        offset: { type: "integer" },
        tag: { type: ["string", "null"] },
      },
      required: ["path"],
    });
    const seen = await received({ path: "a", offset: null });
    expect(seen).toEqual({ path: "a" });
    expect("offset" in seen).toBe(false);
    const nullable = tool({
      type: "object",
      properties: { path: { type: "string" }, count: { type: ["integer", "null"] } },
    });
    expect(await nullable.received({ path: "a", count: "null" })).toEqual({ path: "a", count: null });
  });

  it("parses arrays and objects sent as JSON text, and wraps a lone value in a list", async () => {
    const { received } = tool({
      type: "object",
      properties: {
        paths: { type: "array", items: { type: "string" } },
        sizes: { type: "array", items: { type: "integer" } },
        options: { type: "object", properties: { depth: { type: "integer" } } },
      },
    });
    expect(await received({ paths: '["a.txt", "b.txt"]' })).toEqual({ paths: ["a.txt", "b.txt"] });
    expect(await received({ paths: "a.txt" })).toEqual({ paths: ["a.txt"] });
    expect(await received({ sizes: ["1", 2, "3"] })).toEqual({ sizes: [1, 2, 3] });
    expect(await received({ options: '{"depth": "2"}' })).toEqual({ options: { depth: 2 } });
  });

  it("never changes the caller's arguments object", async () => {
    const { received } = tool(READ_SCHEMA);
    const args = { path: "a", offset: "5" };
    const seen = await received(args);
    expect(seen).toEqual({ path: "a", offset: 5 });
    expect(args).toEqual({ path: "a", offset: "5" });
  });

  it("reports what a repair could not fix", async () => {
    const { registry, seen } = tool(READ_SCHEMA);
    const out = JSON.parse(
      await registry.dispatch("read_file", { path: "a", offset: "5", verbose: "maybe" }, {}),
    );
    expect(out.error).toBe(`Invalid arguments for read_file: 'verbose' must be a boolean, got "maybe".`);
    expect(seen).toEqual([]);
  });
});

describe("argument errors in unions", () => {
  it("name the forms a union accepts, not each branch's complaint", async () => {
    const { registry } = tool({
      type: "object",
      properties: { target: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } },
      required: ["target"],
    });
    const out = JSON.parse(await registry.dispatch("read_file", { target: { a: 1 } }, {}));
    expect(out.error).toBe(
      `Invalid arguments for read_file: 'target' does not match string or array of strings, got {"a":1}.`,
    );
  });
});
