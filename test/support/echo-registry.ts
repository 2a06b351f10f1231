import type { HermesToolRegistry, ToolContext } from "../../src/tools/context.js";
import { ToolRegistry } from "../../src/tools/registry.js";

/** A registry with one tool, `echo`, that answers with its arguments as JSON. */
export function echoRegistry(): HermesToolRegistry {
  const registry: HermesToolRegistry = new ToolRegistry<ToolContext>();
  registry.register({
    name: "echo",
    toolset: "t",
    schema: { description: "echo", parameters: { type: "object", properties: {} } },
    handler: (args) => JSON.stringify(args),
    parallelSafe: true,
  });
  return registry;
}
