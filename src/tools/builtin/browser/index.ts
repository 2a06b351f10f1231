/**
 * The browser toolset: navigate, read (snapshot with @eN refs), act (click, type, press, scroll,
 * back), look (images, vision), debug (console) and answer dialogs, on one Chromium context per
 * task. The tools' code (./actions.ts) loads with the first browser call and Playwright with the
 * first page: registering them costs only their schemas.
 */
import type { HermesConfig } from "../../../core/config.js";
import type { HermesToolRegistry, ToolContext } from "../../context.js";
import type { ToolOutput } from "../../result.js";
import type { VisionService } from "../vision.js";
import type { BrowserDispatch } from "./actions.js";
import { BrowserManager } from "./manager.js";
import { BROWSER_SCHEMAS, navigateSchemaFor } from "./schemas.js";
import { browserSettings } from "./settings.js";

export { BrowserManager, type SideModelCall } from "./manager.js";
export { browserSettings } from "./settings.js";

export interface BrowserToolsOptions {
  /** The run's browser service; default: one built from `config`. */
  manager?: BrowserManager;
  config?: HermesConfig;
  /** The run's vision service: a main model that takes images gets browser_vision's screenshot itself. */
  vision?: VisionService;
}

/** Registers the browser tools (toolset `browser`); they are offered when Chromium (or a CDP URL) is there. */
export function registerBrowserTools(
  registry: HermesToolRegistry,
  options: BrowserToolsOptions = {},
): BrowserManager {
  const manager = options.manager ?? new BrowserManager({ settings: browserSettings(options.config) });
  let dispatch: Promise<BrowserDispatch> | undefined;
  const run = async (name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> => {
    dispatch ??= import("./actions.js").then((m) => m.createDispatch(manager, options.vision));
    return (await dispatch)(name, args, ctx);
  };
  for (const [name, schema] of Object.entries(BROWSER_SCHEMAS)) {
    registry.register({
      name,
      toolset: "browser",
      schema,
      handler: (args, ctx) => run(name, args, ctx),
      checkFn: () => manager.unavailable() === undefined,
      ...(name === "browser_navigate" ? { dynamicSchemaOverrides: navigateSchemaFor } : {}),
      emoji: "🌐",
    });
  }
  return manager;
}
