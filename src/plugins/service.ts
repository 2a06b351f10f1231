/**
 * The plugins of one process: discovered at start-up from their manifests, their tools registered
 * and their hooks put on the bus without importing any plugin code. Each enabled plugin's entry is
 * imported on its first use (see `PluginInstance`); what it registers then is wired in.
 */
import type { HermesConfig, HookName } from "../core/config-defaults.js";
import { runAsSource } from "../core/fault-source.js";
import { isRecord } from "../core/is-record.js";
import type { Logger } from "../core/log.js";
import type { HermesToolRegistry, ToolContext } from "../tools/context.js";
import type { ToolRegistration } from "../tools/registry.js";
import type { ToolOutput } from "../tools/result.js";
import type {
  PluginCommandContext,
  PluginHookFn,
  PluginRegistrations,
  PluginToolContext,
  PluginToolSpec,
} from "./api.js";
import { type DiscoveredPlugin, discoverPlugins } from "./discovery.js";
import { FaultWindow } from "./faults.js";
import { PluginInstance } from "./loader.js";
import type { ManifestCommand, PluginManifest } from "./manifest.js";

/** Where hooks go: the agent's hook bus, seen structurally (this layer does not import the agent). */
export interface HookSink {
  on(
    registration:
      | { name: HookName; label: string; handler: PluginHookFn }
      | { name: HookName; label: string; load: () => Promise<PluginHookFn[]> },
  ): boolean;
  /** Takes every registration under `label` off for good; returns how many went. */
  off(label: string): number;
}

/** What the hook bus reports about a failed handler (seen structurally, like the bus). */
export interface HookFailure {
  label: string;
  kind: string;
  message: string;
}

export type DisabledListener = (plugin: string, reason: string) => void;

export interface PluginServiceOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: HermesConfig;
  logger: Logger;
  /** Time limit of a prompt section's function (hooks.timeout), in ms. */
  timeoutMs?: number;
}

/** A command a plugin offers (`hermes <plugin> <verb>`, `/verb` in the chat). */
export interface PluginCommandInfo extends ManifestCommand {
  plugin: string;
}

export type CommandOutcome = { ok: true } | { ok: false; error: string };

/** Longest prompt section kept; a plugin's text past it is cut (it is paid on every request). */
export const MAX_SECTION_CHARS = 4000;

const toPluginContext = (ctx: ToolContext): PluginToolContext => ({
  sessionId: ctx.sessionId,
  taskId: ctx.taskId,
  cwd: ctx.env.getCwd(),
  platform: ctx.platform,
  signal: ctx.signal,
});

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export class PluginService {
  /** Every plugin found, whatever its state (for `hermes plugins list`). */
  readonly plugins: DiscoveredPlugin[];
  /** Problems found while wiring (a tool another toolset owns, a tool the entry never registered). */
  readonly problems: string[] = [];
  private readonly instances = new Map<string, PluginInstance>();
  private registry: HermesToolRegistry | undefined;
  private sink: HookSink | undefined;
  /** The names each plugin has in the registry (taken out if it is disabled). */
  private readonly toolNames = new Map<string, Set<string>>();
  private readonly faults = new FaultWindow();
  private readonly disabledListeners = new Set<DisabledListener>();

  constructor(private readonly o: PluginServiceOptions) {
    this.plugins = discoverPlugins({ home: o.home, cwd: o.cwd, env: o.env, settings: o.config.plugins });
    for (const p of this.plugins) {
      if (p.state !== "enabled" || !p.manifest) continue;
      const instance: PluginInstance = new PluginInstance(
        p as DiscoveredPlugin & { manifest: PluginManifest },
        {
          home: o.home,
          config: this.settingsOf(p.name),
          logger: o.logger,
          onLoad: (regs) => this.wire(instance, regs),
        },
      );
      this.instances.set(p.name, instance);
    }
  }

  /** The enabled plugins that can load, in name order (not those disabled since start-up). */
  enabled(): PluginInstance[] {
    return [...this.instances.values()].filter((i) => i.disabledBecause === undefined);
  }

  /** Every enabled plugin's folder, disabled ones included (their stray timers may still fire). */
  folders(): Array<{ name: string; dir: string }> {
    return [...this.instances.values()].map((i) => ({ name: i.name, dir: i.plugin.dir }));
  }

  /**
   * Counts a failure of `plugin` (a hook that threw, an uncaught error traced to it); at the limit
   * (3 within a minute) the plugin is disabled. True when this failure disabled it. Never throws.
   */
  recordFault(plugin: string, message: string, now = Date.now()): boolean {
    const instance = this.instances.get(plugin);
    if (!instance || instance.disabledBecause !== undefined) return false;
    if (!this.faults.record(plugin, now)) return false;
    this.disable(plugin, this.faults.reason(message));
    return true;
  }

  /** A hook bus report: a plugin's handler that threw counts as a failure of that plugin. */
  hookFailed(failure: HookFailure): void {
    if (failure.kind === "threw" && failure.label.startsWith("plugin:"))
      this.recordFault(failure.label.slice("plugin:".length), failure.message);
  }

  /**
   * Turns a plugin off for the rest of the process: its hooks leave the bus, its tools the
   * registry, its commands and prompt sections go, and a later load fails with `reason`.
   */
  disable(plugin: string, reason: string): void {
    const instance = this.instances.get(plugin);
    if (!instance || instance.disabledBecause !== undefined) return;
    instance.disable(reason);
    this.sink?.off(`plugin:${plugin}`);
    for (const name of this.toolNames.get(plugin) ?? []) this.registry?.deregister(name);
    this.toolNames.delete(plugin);
    this.o.logger.error("plugin disabled", { plugin, reason });
    for (const listener of this.disabledListeners) {
      try {
        listener(plugin, reason);
      } catch {
        // A listener's failure is not the plugin's.
      }
    }
  }

  /** Told whenever a plugin is disabled; returns the unsubscribe. */
  onDisabled(listener: DisabledListener): () => void {
    this.disabledListeners.add(listener);
    return () => this.disabledListeners.delete(listener);
  }

  get(name: string): PluginInstance | undefined {
    return this.instances.get(name);
  }

  /** Enabled plugins that cannot load, with the reason. */
  unusable(): DiscoveredPlugin[] {
    return this.plugins.filter((p) => p.problem && this.o.config.plugins.enabled.includes(p.name));
  }

  /** Toolsets of the enabled plugins' tools. */
  toolsets(): string[] {
    return [...new Set(this.enabled().flatMap((i) => i.manifest.tools.map((t) => t.toolset)))];
  }

  /** Registers the tools every enabled plugin's manifest lists; their handlers load the plugin. */
  registerTools(registry: HermesToolRegistry): void {
    this.registry = registry;
    for (const instance of this.enabled()) {
      for (const tool of instance.manifest.tools) {
        this.register(instance, tool.name, tool.toolset, tool.description, tool.parameters);
      }
    }
  }

  /** Puts every enabled plugin's declared hooks on the bus; a hook's first firing loads its plugin. */
  attachHooks(sink: HookSink): void {
    this.sink = sink;
    for (const instance of this.enabled()) {
      for (const name of instance.manifest.hooks) {
        sink.on({
          name,
          label: `plugin:${instance.name}`,
          load: async () => (await instance.load()).hooks.get(name) ?? [],
        });
      }
    }
  }

  /** The commands of the enabled plugins, from their manifests. */
  commands(): PluginCommandInfo[] {
    return this.enabled().flatMap((i) => i.manifest.commands.map((c) => ({ ...c, plugin: i.name })));
  }

  /** Runs `verb` of `plugin` (loading it); what it returns is printed. Never throws. */
  async runCommand(
    plugin: string,
    verb: string,
    args: string[],
    ctx: PluginCommandContext,
  ): Promise<CommandOutcome> {
    const instance = this.instances.get(plugin);
    if (!instance) return { ok: false, error: `no enabled plugin named '${plugin}'` };
    try {
      const spec = (await instance.load()).commands.get(verb);
      if (!spec) return { ok: false, error: `the plugin '${plugin}' has no command '${verb}'` };
      const out = await runAsSource(`plugin:${plugin}`, () => spec.handler(args, ctx));
      if (typeof out === "string" && out) ctx.print(out);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * The text of every declared prompt section of the enabled plugins, joined ("" for none): their
   * plugins load here, when a session builds its system prompt. Never throws.
   */
  async promptSections(): Promise<string> {
    const parts: string[] = [];
    for (const instance of this.enabled()) {
      const ids = instance.manifest.promptSections;
      if (ids.length === 0) continue;
      let regs: PluginRegistrations;
      try {
        regs = await instance.load();
      } catch {
        continue; // logged by the loader
      }
      for (const id of ids) {
        const text = await this.sectionText(instance.name, id, regs);
        if (text) parts.push(text);
      }
    }
    return parts.join("\n\n");
  }

  private async sectionText(plugin: string, id: string, regs: PluginRegistrations): Promise<string> {
    const section = regs.sections.get(id);
    const warn = (problem: string) =>
      this.o.logger.warn("plugin prompt section skipped", { plugin, id, problem });
    if (!section) {
      warn("plugin.yaml declares it but the entry did not register it");
      return "";
    }
    let text: string;
    try {
      const fill = section.text;
      const value =
        typeof fill === "string"
          ? fill
          : await withTimeout(
              runAsSource(`plugin:${plugin}`, () => fill()),
              this.o.timeoutMs ?? 5000,
            );
      text = typeof value === "string" ? value.trim() : "";
    } catch (err) {
      warn(err instanceof Error ? err.message : String(err));
      return "";
    }
    if (text.length <= MAX_SECTION_CHARS) return text;
    warn(`longer than ${MAX_SECTION_CHARS} characters; cut`);
    return text.slice(0, MAX_SECTION_CHARS);
  }

  /** `plugins.config.<name>`, or {} when absent or not a mapping. */
  private settingsOf(name: string): Record<string, unknown> {
    const block = this.o.config.plugins.config[name];
    return isRecord(block) ? block : {};
  }

  /** What a plugin registered when its entry loaded: tools it changed or added, hooks it did not declare. */
  private wire(instance: PluginInstance, regs: PluginRegistrations): void {
    // Disabled while its entry was still loading: nothing of it joins.
    if (instance.disabledBecause !== undefined) return;
    const declared = new Map(instance.manifest.tools.map((t) => [t.name, t]));
    for (const [name, spec] of regs.tools) {
      const listed = declared.get(name);
      const toolset = listed?.toolset ?? spec.toolset ?? instance.name;
      const description =
        spec.description ?? listed?.description ?? `Tool '${name}' of the plugin '${instance.name}'.`;
      const parameters = spec.parameters ?? listed?.parameters ?? { type: "object", properties: {} };
      if (listed && sameJson(listed.description, description) && sameJson(listed.parameters, parameters))
        continue;
      if (listed)
        this.o.logger.warn("plugin tool schema differs from plugin.yaml; using the entry's", {
          plugin: instance.name,
          tool: name,
        });
      this.register(instance, name, toolset, description, parameters);
    }
    for (const tool of instance.manifest.tools) {
      if (!regs.tools.has(tool.name))
        this.problem(
          instance.name,
          `plugin.yaml lists the tool '${tool.name}' but the entry did not register it`,
        );
    }
    for (const [name, fns] of regs.hooks) {
      if (instance.manifest.hooks.includes(name)) continue;
      // Undeclared hooks work from now on; declared ones would have fired before the import too.
      for (const handler of fns) this.sink?.on({ name, label: `plugin:${instance.name}`, handler });
    }
  }

  private register(
    instance: PluginInstance,
    name: string,
    toolset: string,
    description: string,
    parameters: Record<string, unknown>,
  ): void {
    const registry = this.registry;
    if (!registry) return;
    const registration: ToolRegistration<ToolContext> = {
      name,
      toolset,
      schema: { description, parameters },
      handler: (args, ctx) => this.callTool(instance, name, args, ctx),
      emoji: "🧩",
      // Plugin tools may wait behind the tool search bridge when schemas outgrow their budget.
      deferrable: true,
    };
    const outcome = registry.register(registration);
    if (!outcome.ok) {
      this.problem(instance.name, `tool '${name}' not added: ${outcome.reason}`);
      return;
    }
    const names = this.toolNames.get(instance.name) ?? new Set<string>();
    names.add(name);
    this.toolNames.set(instance.name, names);
  }

  private async callTool(
    instance: PluginInstance,
    name: string,
    args: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<ToolOutput> {
    const spec: PluginToolSpec | undefined = (await instance.load()).tools.get(name);
    if (!spec) throw new Error(`the plugin '${instance.name}' did not register the tool '${name}'`);
    const out = await runAsSource(`plugin:${instance.name}`, () => spec.handler(args, toPluginContext(ctx)));
    // The registry reads strings as they are, tool results as results, and anything else as JSON.
    return (out === undefined ? "" : out) as ToolOutput;
  }

  private problem(plugin: string, message: string): void {
    this.problems.push(`${plugin}: ${message}`);
    this.o.logger.warn("plugin problem", { plugin, message });
  }
}

/** Resolves like `value`, or rejects when it takes longer than `ms`. */
function withTimeout<T>(value: Promise<T> | T, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([Promise.resolve(value), expired]).finally(() => clearTimeout(timer));
}
