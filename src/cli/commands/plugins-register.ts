import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { getHermesHome } from "../../core/home.js";

/** Root options that take a value: the word after them is not a command. */
const VALUE_OPTIONS = new Set([
  "-z",
  "--oneshot",
  "-p",
  "--profile",
  "--usage-file",
  "-m",
  "--model",
  "--provider",
  "-t",
  "--toolsets",
  "-r",
  "--resume",
]);

/** The first word of the command line that is not an option or an option's value. */
function firstWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return argv[i + 1];
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/**
 * `hermes plugins ...`, and `hermes <plugin> <verb>` for a plugin's commands. The latter are added
 * only when the command line starts with the name of an installed plugin that no built-in command
 * has, so an ordinary run never reads a manifest. Modules load when a command runs.
 */
export function addPluginCommands(
  program: Command,
  setExit: (code: number) => void,
  argv: readonly string[],
): void {
  const load = () => import("./plugins.js");
  const plugins = program
    .command("plugins")
    .description("plugins: list | install | remove | enable | disable | create");
  plugins
    .command("list")
    .description("list installed plugins: version, where they are, whether they load, what they offer")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => setExit((await load()).pluginsList(opts)));
  plugins
    .command("install")
    .description(
      "copy a plugin into HERMES_HOME/plugins from a folder or a git URL (it stays off until enabled)",
    )
    .argument("<source>", "a folder holding plugin.yaml, or a git URL")
    .option("--enable", "enable it once installed")
    .option("--force", "replace an installed plugin of the same name")
    .action(async (source: string, opts: { enable?: boolean; force?: boolean }) =>
      setExit(await (await load()).pluginsInstall(source, opts)),
    );
  plugins
    .command("remove")
    .description("delete an installed plugin and drop it from plugins.enabled / plugins.disabled")
    .argument("<name>", "the plugin's name")
    .action(async (name: string) => setExit((await load()).pluginsRemove(name)));
  plugins
    .command("enable")
    .description("load a plugin from the next session on (adds it to plugins.enabled in config.yaml)")
    .argument("<name>", "the plugin's name")
    .action(async (name: string) => setExit((await load()).pluginsEnable(name)));
  plugins
    .command("disable")
    .description("stop loading a plugin (adds it to plugins.disabled, which wins over plugins.enabled)")
    .argument("<name>", "the plugin's name")
    .action(async (name: string) => setExit((await load()).pluginsDisable(name)));
  plugins
    .command("create")
    .description(
      "scaffold a working plugin (a tool, a post_tool_call hook and a test) in HERMES_HOME/plugins",
    )
    .argument("<name>", "lowercase letters, digits, _ and -")
    .option(
      "--project",
      "create it in ./.hermes/plugins instead (loads with HERMES_ENABLE_PROJECT_PLUGINS=1)",
    )
    .action(async (name: string, opts: { project?: boolean }) =>
      setExit((await load()).pluginsCreate(name, opts)),
    );

  const word = firstWord(argv);
  if (!word || program.commands.some((c) => c.name() === word || c.aliases().includes(word))) return;
  const candidates = [join(getHermesHome(), "plugins", word)];
  // The discovery module's rule, restated: importing it here would load YAML for every command.
  if (/^(1|true|yes|on)$/i.test(process.env.HERMES_ENABLE_PROJECT_PLUGINS?.trim() ?? ""))
    candidates.push(join(process.cwd(), ".hermes", "plugins", word));
  if (!candidates.some((dir) => existsSync(join(dir, "plugin.yaml")))) return;
  program
    .command(word)
    .description(`commands of the plugin '${word}'`)
    .argument("<verb>", "the plugin's command")
    .argument("[args...]", "its arguments")
    .allowUnknownOption()
    .action(async (verb: string, args: string[]) =>
      setExit(await (await load()).runPluginVerb(word, verb, args)),
    );
}
