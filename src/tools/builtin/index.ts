import type { HermesConfig } from "../../core/config.js";
import type { HermesToolRegistry } from "../context.js";
import { type BrowserManager, registerBrowserTools } from "./browser/index.js";
import { registerClarifyTool } from "./clarify.js";
import { registerCodeExecTool } from "./code-exec/index.js";
import { registerDelegateTool } from "./delegate.js";
import { registerFileTools } from "./files/index.js";
import { registerMediaTools } from "./media/index.js";
import { registerMemoryTool } from "./memory.js";
import { registerProcessTool } from "./process.js";
import { registerSessionSearchTool } from "./session-search.js";
import { registerSkillTools } from "./skills/index.js";
import { registerTerminalTools } from "./terminal.js";
import { registerTodoTool } from "./todo.js";
import { type VisionService, visionRegistration } from "./vision.js";
import { registerWebTools } from "./web/index.js";

/** Services the built-in tools share with the run that registers them. */
export interface BuiltinServices {
  /** The run's browser, closed by the run on exit; default: a new one configured from `config`. */
  browser?: BrowserManager;
  /**
   * The run's models for vision_analyze and browser_vision; absent: images go natively only when
   * `vision.native: true`.
   */
  vision?: VisionService;
}

/** Registers every built-in tool family. */
export function registerBuiltinTools(
  registry: HermesToolRegistry,
  config?: HermesConfig,
  services: BuiltinServices = {},
): void {
  registerTerminalTools(registry);
  registerProcessTool(registry);
  registerFileTools(registry);
  registerSessionSearchTool(registry);
  registerMemoryTool(registry);
  registerSkillTools(registry);
  registerTodoTool(registry);
  registerClarifyTool(registry);
  registerDelegateTool(registry, config);
  registerCodeExecTool(registry, config);
  registerWebTools(registry, config);
  registerBrowserTools(registry, { config, manager: services.browser, vision: services.vision });
  registry.register(visionRegistration(config, services.vision));
  registerMediaTools(registry, config);
}
