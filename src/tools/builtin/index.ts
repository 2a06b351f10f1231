import type { HermesConfig } from "../../core/config.js";
import type { HermesToolRegistry } from "../context.js";
import { registerClarifyTool } from "./clarify.js";
import { registerCodeExecTool } from "./code-exec/index.js";
import { registerDelegateTool } from "./delegate.js";
import { registerFileTools } from "./files/index.js";
import { registerMemoryTool } from "./memory.js";
import { registerProcessTool } from "./process.js";
import { registerSessionSearchTool } from "./session-search.js";
import { registerTerminalTools } from "./terminal.js";
import { registerTodoTool } from "./todo.js";
import { registerWebTools } from "./web/index.js";

/** Registers every built-in tool family. */
export function registerBuiltinTools(registry: HermesToolRegistry, config?: HermesConfig): void {
  registerTerminalTools(registry);
  registerProcessTool(registry);
  registerFileTools(registry);
  registerSessionSearchTool(registry);
  registerMemoryTool(registry);
  registerTodoTool(registry);
  registerClarifyTool(registry);
  registerDelegateTool(registry, config);
  registerCodeExecTool(registry, config);
  registerWebTools(registry, config);
}
