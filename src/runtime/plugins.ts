/**
 * Plugins and hooks in the assembly: the enabled plugins' tools join the registry and the
 * `hermes-*` presets, their declared hooks and config.yaml's shell hooks go on one hook bus, and
 * every agent of the runtime (subagents included) fires that bus. Nothing here imports plugin code.
 */
import { HookBus } from "../agent/hooks.js";
import type { HermesConfig } from "../core/config.js";
import type { Logger } from "../core/log.js";
import { PluginService } from "../plugins/service.js";
import { shellHooks } from "../plugins/shell-hooks.js";
import type { HermesToolRegistry } from "../tools/context.js";
import type { ToolSelection } from "../tools/toolsets.js";

export interface PluginRuntime {
  service: PluginService;
  /** Fired by every agent of the runtime; `has()` is false for hooks nobody registered. */
  hooks: HookBus;
  /** The toolset policy with the enabled plugins' toolsets joined to the `hermes-*` presets. */
  withToolsets(
    select: () => ToolSelection,
    enabled: readonly string[],
    disabled: readonly string[],
  ): () => ToolSelection;
  /** The prompt sections of the enabled plugins ("" for none); loads the plugins that declare some. */
  promptSections(): Promise<string>;
}

export interface PluginRuntimeOptions {
  config: HermesConfig;
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  registry: HermesToolRegistry;
  logger: Logger;
  /** Problems for the user (an enabled plugin that cannot load, a tool it could not add). */
  warnings: string[];
}

const takesPluginsByDefault = (enabled: readonly string[]): boolean =>
  enabled.some((t) => t.startsWith("hermes-") || t === "all" || t === "*");

export function setupPlugins(o: PluginRuntimeOptions): PluginRuntime {
  const timeoutMs = Math.max(0.1, o.config.hooks.timeout) * 1000;
  const service = new PluginService({
    home: o.home,
    cwd: o.cwd,
    env: o.env,
    config: o.config,
    logger: o.logger,
    timeoutMs,
  });
  const hooks = new HookBus({
    timeoutMs,
    report: (p) => {
      o.logger.warn(`hook ${p.hook} (${p.label}) ${p.message}`, { hook: p.hook, source: p.label });
      // A plugin whose hooks keep throwing is disabled.
      service.hookFailed(p);
    },
  });
  service.registerTools(o.registry);
  service.attachHooks(hooks);
  for (const shell of shellHooks(o.config.hooks, { cwd: o.cwd, home: o.home, env: o.env })) hooks.on(shell);
  for (const p of service.unusable())
    o.warnings.push(`plugin '${p.name}' is enabled but cannot load: ${p.problem}`);
  for (const problem of service.problems) o.warnings.push(`plugin ${problem}`);
  const toolsets = service.toolsets();
  return {
    service,
    hooks,
    promptSections: () =>
      service.enabled().some((i) => i.manifest.promptSections.length > 0)
        ? service.promptSections()
        : Promise.resolve(""),
    withToolsets(select, enabled, disabled) {
      if (toolsets.length === 0 || !takesPluginsByDefault(enabled)) return select;
      let memo: { generation: number; base: ToolSelection; selection: ToolSelection } | undefined;
      return () => {
        const base = select();
        if (memo?.generation === o.registry.generation && memo.base === base) return memo.selection;
        const tools = new Set(base.tools);
        for (const toolset of toolsets) {
          if (disabled.includes(toolset)) continue;
          for (const name of o.registry.toolsInToolset(toolset)) tools.add(name);
        }
        const selection = { tools, unknown: base.unknown };
        memo = { generation: o.registry.generation, base, selection };
        return selection;
      };
    },
  };
}
