import type { HermesToolRegistry } from "../context.js";
import { registerFileTools } from "./files/index.js";
import { registerProcessTool } from "./process.js";
import { registerTerminalTools } from "./terminal.js";

/** Registers every built-in tool family. */
export function registerBuiltinTools(registry: HermesToolRegistry): void {
  registerTerminalTools(registry);
  registerProcessTool(registry);
  registerFileTools(registry);
}
