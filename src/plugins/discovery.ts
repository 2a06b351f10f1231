/**
 * Where plugins are found and whether each one loads. User plugins live in
 * `HERMES_HOME/plugins/<name>/`; project plugins in `./.hermes/plugins/<name>/` are looked at only
 * when HERMES_ENABLE_PROJECT_PLUGINS is set, since a checked-out repository must not run code by
 * being opened. Either kind loads only once enabled (`plugins.enabled`), and `plugins.disabled`
 * wins over that. Reading manifests runs no plugin code.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { PluginSettings } from "../core/config-defaults.js";
import { MANIFEST_FILE, type PluginManifest, readManifest } from "./manifest.js";

export type PluginSource = "user" | "project";

/** enabled: loads; disabled: in plugins.disabled; available: installed, not enabled; invalid: see `problem`. */
export type PluginState = "enabled" | "disabled" | "available" | "invalid";

export interface DiscoveredPlugin {
  name: string;
  dir: string;
  source: PluginSource;
  state: PluginState;
  manifest?: PluginManifest;
  /** Why an invalid plugin cannot load. */
  problem?: string;
  /** Another plugin of this name was found first (this one never loads). */
  shadowed?: boolean;
}

export const PROJECT_PLUGINS_ENV = "HERMES_ENABLE_PROJECT_PLUGINS";

export const userPluginsDir = (home: string): string => join(home, "plugins");
export const projectPluginsDir = (cwd: string): string => join(cwd, ".hermes", "plugins");

export function projectPluginsAllowed(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true|yes|on)$/i.test(env[PROJECT_PLUGINS_ENV]?.trim() ?? "");
}

export interface DiscoveryOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  settings: PluginSettings;
}

/** Folders holding a plugin.yaml, sorted by name. */
function folders(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((n) => !n.startsWith(".") && existsSync(join(root, n, MANIFEST_FILE))).sort();
}

function stateOf(name: string, settings: PluginSettings): PluginState {
  if (settings.disabled.includes(name)) return "disabled";
  return settings.enabled.includes(name) ? "enabled" : "available";
}

/**
 * Every plugin of the home (and of the project, when allowed), in name order. A project plugin
 * with the name of a user plugin is reported, never loaded: it must not take the place of code the
 * user enabled.
 */
export function discoverPlugins(o: DiscoveryOptions): DiscoveredPlugin[] {
  const found = new Map<string, DiscoveredPlugin>();
  const roots: Array<[string, PluginSource]> = [[userPluginsDir(o.home), "user"]];
  if (projectPluginsAllowed(o.env)) roots.push([projectPluginsDir(o.cwd), "project"]);
  const shadowed: DiscoveredPlugin[] = [];
  for (const [root, source] of roots) {
    for (const folder of folders(root)) {
      const dir = join(root, folder);
      const read = readManifest(dir, folder);
      const plugin: DiscoveredPlugin =
        "problem" in read
          ? { name: folder, dir, source, state: "invalid", problem: read.problem }
          : {
              name: read.manifest.name,
              dir,
              source,
              state: stateOf(read.manifest.name, o.settings),
              manifest: read.manifest,
            };
      if (found.has(plugin.name)) {
        const first = found.get(plugin.name)!;
        shadowed.push({
          ...plugin,
          state: "invalid",
          shadowed: true,
          problem: `a ${first.source} plugin named '${plugin.name}' (${first.dir}) comes first`,
        });
        continue;
      }
      found.set(plugin.name, plugin);
    }
  }
  return [...found.values(), ...shadowed].sort((a, b) => a.name.localeCompare(b.name));
}

/** The plugin of that name that would load or be managed (the first one found), if any. */
export function findPlugin(o: DiscoveryOptions, name: string): DiscoveredPlugin | undefined {
  return discoverPlugins(o).find((p) => p.name === name && !p.shadowed);
}
