/**
 * The arguments of a `hermes mcp serve` call, checked against the tool's own input schema before
 * the tool runs: the whole schema (limits such as `minimum` included, unlike the agent's own tool
 * calls, which repair and clamp), answered the way the MCP SDK's own servers answer a bad call: a
 * tool error `MCP error -32602: Invalid arguments for <tool>: <what is wrong>`. ajv is imported on
 * the first call and each tool's validator compiled once.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Ajv, ValidateFunction } from "ajv";
import { loadAjv } from "../../core/ajv.js";
import { describeErrors } from "../../tools/validate-args.js";

export interface SchemaOf {
  name: string;
  inputSchema: Record<string, unknown>;
}

export type ArgumentCheck = (tool: SchemaOf, args: Record<string, unknown>) => Promise<string | undefined>;

/** A checker for one server's tools: resolves to the error text for bad arguments, else undefined. */
export function createArgumentCheck(): ArgumentCheck {
  let ajv: Promise<Ajv> | undefined;
  const validators = new Map<string, ValidateFunction>();
  return async (tool, args) => {
    let validate = validators.get(tool.name);
    if (!validate) {
      ajv ??= loadAjv().then(
        (AjvClass) =>
          new AjvClass({
            allErrors: true,
            verbose: true,
            strict: false,
            validateFormats: false,
            logger: false,
          }),
      );
      validate = (await ajv).compile(tool.inputSchema);
      validators.set(tool.name, validate);
    }
    if (validate(args)) return undefined;
    const detail = describeErrors(tool.name, validate.errors ?? []);
    return new McpError(ErrorCode.InvalidParams, detail).message;
  };
}
