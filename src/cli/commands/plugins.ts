/**
 * `hermes plugins list | install | remove | enable | disable | create`, and `hermes <plugin> <verb>`.
 * Enabling and disabling edit only `plugins.enabled` / `plugins.disabled` in config.yaml, keeping
 * the rest of the file as written. Nothing here runs plugin code except a plugin's own command.
 */
import { type HermesConfig, loadConfig, setConfigValue } from "../../core/config.js";
import { loadDotEnv } from "../../core/env.js";
import { ensureHermesHome, getHermesHome, type HomePaths } from "../../core/home.js";
import { createLogger } from "../../core/log.js";
import {
  type DiscoveredPlugin,
  discoverPlugins,
  findPlugin,
  projectPluginsDir,
  userPluginsDir,
} from "../../plugins/discovery.js";
import { installPlugin, removePlugin } from "../../plugins/install.js";
import { createPluginScaffold } from "../../plugins/scaffold.js";
import { PluginService } from "../../plugins/service.js";
import { describeFatal } from "../errors.js";

const out = (text: string): void => void process.stdout.write(`${text}\n`);
const err = (text: string): void => void process.stderr.write(`hermes: ${text}\n`);

function open(): { paths: HomePaths; config: HermesConfig } {
  const paths = ensureHermesHome(getHermesHome());
  loadDotEnv(paths.env);
  return { paths, config: loadConfig(paths.config).config };
}

const discover = (paths: HomePaths, config: HermesConfig): DiscoveredPlugin[] =>
  discoverPlugins({ home: paths.home, cwd: process.cwd(), env: process.env, settings: config.plugins });

/** "2 tools, hooks: post_tool_call, commands: status" */
function offers(p: DiscoveredPlugin): string {
  const m = p.manifest;
  if (!m) return p.problem ?? "";
  const parts = [
    m.tools.length
      ? `${m.tools.length} tool${m.tools.length === 1 ? "" : "s"} (${m.tools.map((t) => t.name).join(", ")})`
      : "",
    m.hooks.length ? `hooks: ${m.hooks.join(", ")}` : "",
    m.commands.length ? `commands: ${m.commands.map((c) => c.name).join(", ")}` : "",
    m.promptSections.length ? `prompt sections: ${m.promptSections.join(", ")}` : "",
  ].filter(Boolean);
  return parts.join("; ") || "nothing declared";
}

/** Runs `fn`, turning any failure into a message and exit code 1. */
function guarded(fn: () => number): number {
  try {
    return fn();
  } catch (e) {
    err(describeFatal(e));
    return 1;
  }
}

export function pluginsList(opts: { json?: boolean }): number {
  return guarded(() => {
    const { paths, config } = open();
    const plugins = discover(paths, config);
    if (opts.json) {
      const rows = plugins.map((p) => ({
        name: p.name,
        version: p.manifest?.version ?? null,
        source: p.source,
        state: p.state,
        dir: p.dir,
        description: p.manifest?.description ?? "",
        tools: p.manifest?.tools.map((t) => t.name) ?? [],
        hooks: p.manifest?.hooks ?? [],
        commands: p.manifest?.commands.map((c) => c.name) ?? [],
        problem: p.problem ?? null,
      }));
      out(JSON.stringify({ plugins: rows }, null, 2));
      return 0;
    }
    if (plugins.length === 0) {
      out(`No plugins in ${userPluginsDir(paths.home)}. Start one with: hermes plugins create NAME`);
      return 0;
    }
    const width = Math.max(4, ...plugins.map((p) => p.name.length));
    out(
      `${"NAME".padEnd(width)}  ${"VERSION".padEnd(8)}  ${"SOURCE".padEnd(7)}  ${"STATE".padEnd(9)}  OFFERS`,
    );
    for (const p of plugins) {
      out(
        `${p.name.padEnd(width)}  ${(p.manifest?.version ?? "-").padEnd(8)}  ${p.source.padEnd(7)}  ${p.state.padEnd(9)}  ${offers(p)}`,
      );
    }
    if (plugins.some((p) => p.state === "available")) out("\nEnable one with: hermes plugins enable NAME");
    return 0;
  });
}

export function pluginsInstall(source: string, opts: { enable?: boolean; force?: boolean }): number {
  return guarded(() => {
    const { paths } = open();
    const { manifest, dir } = installPlugin(userPluginsDir(paths.home), source, opts);
    out(`Installed ${manifest.name} ${manifest.version} in ${dir}.`);
    if (opts.enable) return pluginsEnable(manifest.name);
    out(`It stays off until you enable it: hermes plugins enable ${manifest.name}`);
    return 0;
  });
}

export function pluginsRemove(name: string): number {
  return guarded(() => {
    const { paths, config } = open();
    if (!removePlugin(userPluginsDir(paths.home), name)) {
      err(`no plugin named '${name}' in ${userPluginsDir(paths.home)}`);
      return 1;
    }
    setLists(paths, config, name, { enabled: false, disabled: false });
    out(`Removed ${name}.`);
    return 0;
  });
}

export function pluginsEnable(name: string): number {
  return guarded(() => {
    const { paths, config } = open();
    const plugin = findPlugin(
      { home: paths.home, cwd: process.cwd(), env: process.env, settings: config.plugins },
      name,
    );
    if (!plugin) {
      err(
        `no plugin named '${name}' in ${userPluginsDir(paths.home)} (or ${projectPluginsDir(process.cwd())} with HERMES_ENABLE_PROJECT_PLUGINS=1)`,
      );
      return 1;
    }
    if (plugin.problem) {
      err(`cannot enable '${name}': ${plugin.problem}`);
      return 1;
    }
    setLists(paths, config, name, { enabled: true, disabled: false });
    out(`Enabled ${name} (${offers(plugin)}): it loads from the next session on.`);
    return 0;
  });
}

export function pluginsDisable(name: string): number {
  return guarded(() => {
    const { paths, config } = open();
    setLists(paths, config, name, { enabled: false, disabled: true });
    out(`Disabled ${name}: it no longer loads (hermes plugins enable ${name} turns it back on).`);
    return 0;
  });
}

export function pluginsCreate(name: string, opts: { project?: boolean }): number {
  return guarded(() => {
    const { paths } = open();
    const root = opts.project ? projectPluginsDir(process.cwd()) : userPluginsDir(paths.home);
    const dir = createPluginScaffold(root, name);
    out(`Created the plugin ${name} in ${dir}:`);
    out("  plugin.yaml     its manifest: a tool with its schema, and the hooks it uses");
    out("  index.mjs       register(api): the tool's handler and a post_tool_call hook");
    out("  index.test.mjs  its test: cd into the folder and run 'node --test'");
    out(`Turn it on with: hermes plugins enable ${name}`);
    return 0;
  });
}

/** `hermes <plugin> <verb> [args...]`: runs one of an enabled plugin's commands. */
export async function runPluginVerb(plugin: string, verb: string, args: string[]): Promise<number> {
  let opened: ReturnType<typeof open>;
  try {
    opened = open();
  } catch (e) {
    err(describeFatal(e));
    return 1;
  }
  const { paths, config } = opened;
  const logger = createLogger(paths.home);
  try {
    const service = new PluginService({
      home: paths.home,
      cwd: process.cwd(),
      env: process.env,
      config,
      logger,
    });
    const instance = service.get(plugin);
    if (!instance) {
      err(`the plugin '${plugin}' is not enabled (hermes plugins enable ${plugin})`);
      return 1;
    }
    if (!instance.manifest.commands.some((c) => c.name === verb)) {
      const verbs = instance.manifest.commands.map(
        (c) => `  ${c.name}${c.args ? ` ${c.args}` : ""}  ${c.description}`,
      );
      err(
        `the plugin '${plugin}' has no command '${verb}'${verbs.length ? `; it has:\n${verbs.join("\n")}` : ""}`,
      );
      return 1;
    }
    const outcome = await service.runCommand(plugin, verb, args, { print: out, surface: "cli" });
    if (!outcome.ok) {
      err(`${plugin} ${verb}: ${outcome.error}`);
      return 1;
    }
    return 0;
  } finally {
    await logger.flush();
  }
}

/** Puts `name` in or out of plugins.enabled and plugins.disabled, writing only what changes. */
function setLists(
  paths: HomePaths,
  config: HermesConfig,
  name: string,
  want: { enabled: boolean; disabled: boolean },
): void {
  for (const key of ["enabled", "disabled"] as const) {
    const list = config.plugins[key];
    const has = list.includes(name);
    if (has === want[key]) continue;
    const next = want[key] ? [...list, name] : list.filter((n) => n !== name);
    setConfigValue(paths.config, `plugins.${key}`, next);
  }
}
