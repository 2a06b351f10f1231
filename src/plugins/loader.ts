/**
 * One enabled plugin. Its entry module is imported on first need (a tool of it called, a hook it
 * declares fired, a command of it run, a session building the prompt sections it declares), once
 * per process; until then the plugin costs what reading its manifest cost.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runAsSource } from "../core/fault-source.js";
import type { Logger } from "../core/log.js";
import { createPluginApi, type PluginRegistrations } from "./api.js";
import type { DiscoveredPlugin } from "./discovery.js";
import type { PluginManifest } from "./manifest.js";

export interface PluginInstanceOptions {
  home: string;
  /** `plugins.config.<name>`. */
  config: Record<string, unknown>;
  logger: Logger;
  /** Told once, right after `register(api)` returned (the service wires what was registered). */
  onLoad?: (registrations: PluginRegistrations) => void;
}

export class PluginInstance {
  readonly manifest: PluginManifest;
  private loading: Promise<PluginRegistrations> | undefined;
  /** Why the plugin was turned off while the process runs (it threw too often), if it was. */
  disabledBecause: string | undefined;

  constructor(
    readonly plugin: DiscoveredPlugin & { manifest: PluginManifest },
    private readonly options: PluginInstanceOptions,
  ) {
    this.manifest = plugin.manifest;
  }

  get name(): string {
    return this.manifest.name;
  }

  /** Whether the entry module has been imported (successfully or not). */
  get loaded(): boolean {
    return this.loading !== undefined;
  }

  /**
   * Imports the entry and runs its `register(api)`, once; later calls share the outcome (a failed
   * load stays failed: the module is not run twice). Rejects with a message naming the plugin.
   */
  load(): Promise<PluginRegistrations> {
    if (this.disabledBecause !== undefined)
      return Promise.reject(new Error(`plugin '${this.name}' is disabled: ${this.disabledBecause}`));
    // Whatever the entry starts while it registers (timers, sockets) is the plugin's, for the crash guard.
    this.loading ??= runAsSource(`plugin:${this.name}`, () => this.importAndRegister()).catch(
      (err: unknown) => {
        const message = `plugin '${this.name}' could not load: ${err instanceof Error ? err.message : String(err)}`;
        this.options.logger.error("plugin load failed", { plugin: this.name, message });
        throw new Error(message);
      },
    );
    return this.loading;
  }

  /** Turns the plugin off for the rest of the process: later loads fail with `reason`. */
  disable(reason: string): void {
    this.disabledBecause ??= reason;
  }

  private async importAndRegister(): Promise<PluginRegistrations> {
    const entry = this.manifest.entry;
    if (!entry) throw new Error("plugin.yaml names no entry module");
    const url = pathToFileURL(join(this.plugin.dir, entry)).href;
    const mod = (await import(url)) as { default?: unknown };
    const register = mod.default;
    if (typeof register !== "function")
      throw new Error(`${entry} must export default a function register(api)`);
    const { api, registrations } = createPluginApi({
      name: this.name,
      dir: this.plugin.dir,
      home: this.options.home,
      config: this.options.config,
      logger: this.options.logger,
    });
    await register(api);
    this.options.logger.info("plugin loaded", {
      plugin: this.name,
      tools: [...registrations.tools.keys()],
      hooks: [...registrations.hooks.keys()],
      commands: [...registrations.commands.keys()],
    });
    this.options.onLoad?.(registrations);
    return registrations;
  }
}
