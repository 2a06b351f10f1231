/**
 * The browser service of a run: built from config, with the auxiliary models for screenshots and
 * long snapshots, and tied to the run's lifecycle (a task's browser closes with its environment,
 * every browser on dispose).
 */
import type { HermesConfig } from "../core/config.js";
import { callAuxiliary } from "../llm/auxiliary.js";
import type { ModelTarget } from "../llm/types.js";
import { BrowserManager, browserSettings, type SideModelCall } from "../tools/builtin/browser/index.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";

export interface BrowserSetupOptions {
  config: HermesConfig;
  home: string;
  /** The run's main model: side calls fall back to it (auxiliary tasks `vision`, `web_extract`). */
  main: ModelTarget;
}

/** The run's BrowserManager. Nothing starts until a browser tool is called. */
export function createBrowserService(opts: BrowserSetupOptions): BrowserManager {
  const { config } = opts;
  const sideModel: SideModelCall = async (task, messages, signal) => {
    const result = await callAuxiliary(task, messages, {
      main: opts.main,
      settings: config.auxiliary,
      customBaseUrl: config.model.base_url,
      customModel: config.model.default,
      home: opts.home,
      ...(signal ? { signal } : {}),
    });
    return result.ok ? { ok: true, text: result.text } : { ok: false, error: result.error.message };
  };
  return new BrowserManager({ settings: browserSettings(config), sideModel });
}

/**
 * The environments with the browser folded in: releasing a task (a finished conversation or
 * subagent) closes its browser context, and disposing all of them closes the browser.
 */
export function withBrowser(environments: EnvironmentProvider, browser: BrowserManager): EnvironmentProvider {
  return {
    get: (taskId) => environments.get(taskId),
    fork: (parentTaskId, childTaskId) => environments.fork(parentTaskId, childTaskId),
    async release(taskId) {
      await Promise.all([environments.release(taskId), browser.release(taskId)]);
    },
    async disposeAll() {
      await Promise.all([environments.disposeAll(), browser.closeAll()]);
    },
  };
}
