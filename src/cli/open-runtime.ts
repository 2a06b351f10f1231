import { VERSION } from "../core/version.js";
import { NoProviderError } from "../runtime/providers.js";
import { createRuntime, type Runtime } from "../runtime/runtime.js";
import { describeFatal } from "./errors.js";
import { discoverModel } from "./model-discovery.js";

/** Flags shared by every command that runs the agent. */
export interface RunFlags {
  model?: string;
  provider?: string;
  toolsets?: string;
  yolo?: boolean;
  /** -c: continue the latest session of this profile. */
  continue?: boolean;
  /** -r ID|TITLE: resume that stored session. */
  resume?: string;
}

/**
 * The runtime of a CLI command (this directory, platform "cli"); on a startup problem, prints a
 * message for humans and returns undefined. A custom endpoint without a model is asked for its
 * models first: the only one is used (said on stderr unless `quiet`).
 */
export async function openRuntime(
  flags: RunFlags,
  options: { quiet?: boolean } = {},
): Promise<Runtime | undefined> {
  try {
    return createRuntime({
      cwd: process.cwd(),
      platform: "cli",
      version: VERSION,
      ...(flags.model ? { model: flags.model } : {}),
      ...(flags.provider ? { provider: flags.provider } : {}),
      ...(flags.toolsets ? { toolsets: flags.toolsets } : {}),
      ...(flags.yolo ? { yolo: true } : {}),
    });
  } catch (err) {
    const found = err instanceof NoProviderError ? await discoverModel(err.problem) : undefined;
    if (found?.kind === "model") {
      if (!options.quiet) process.stderr.write(`${found.note}\n`);
      return openRuntime({ ...flags, model: found.model }, options);
    }
    process.stderr.write(`${found ? found.message : describeFatal(err)}\n`);
    return undefined;
  }
}
