import type { HermesConfig } from "../../../core/config.js";
import type { HermesToolRegistry } from "../../context.js";
import { webExtractRegistration } from "./extract.js";
import { webSearchRegistration } from "./search.js";
import type { WebToolOptions } from "./types.js";

export type { WebToolOptions } from "./types.js";

/** Registers web_search (offered when a search backend is usable) and web_extract (toolset `web`). */
export function registerWebTools(
  registry: HermesToolRegistry,
  config?: HermesConfig,
  options: WebToolOptions = {},
): void {
  registry.register(webSearchRegistration(config, options));
  registry.register(webExtractRegistration(config, options));
}
