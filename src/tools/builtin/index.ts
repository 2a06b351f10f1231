import type { HermesToolRegistry } from "../context.js";
import { registerFileTools } from "./files/index.js";
import { registerTerminalTools } from "./terminal.js";

/** Registers every built-in tool family. */
export function registerBuiltinTools(registry: HermesToolRegistry): void {
  registerTerminalTools(registry);
  registerFileTools(registry);
}
