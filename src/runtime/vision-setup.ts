/**
 * The vision service of a run: whether the main model takes images (model catalog and endpoint
 * metadata) and the auxiliary `vision` model for the rest.
 */
import type { HermesConfig } from "../core/config.js";
import { callAuxiliary } from "../llm/auxiliary.js";
import { getModelInfo } from "../llm/models/index.js";
import type { ModelTarget } from "../llm/types.js";
import type { VisionService } from "../tools/builtin/vision.js";

export interface VisionSetupOptions {
  config: HermesConfig;
  home: string;
  /** The run's main model: what "takes images" is asked of, and the auxiliary chain's fallback. */
  main: ModelTarget;
}

export function createVisionService(opts: VisionSetupOptions): VisionService {
  const { config, home, main } = opts;
  return {
    mainTakesImages: () => getModelInfo(main, { home }).capabilities.vision,
    toolResultsCarryImages: () => main.apiMode !== "chat_completions",
    mainApiMode: () => main.apiMode,
    async describe(messages, signal) {
      const result = await callAuxiliary("vision", messages, {
        main,
        settings: config.auxiliary,
        customBaseUrl: config.model.base_url,
        customModel: config.model.default,
        home,
        ...(signal ? { signal } : {}),
      });
      return result.ok ? { ok: true, text: result.text } : { ok: false, error: result.error.message };
    },
  };
}
