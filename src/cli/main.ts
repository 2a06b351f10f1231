import { Command, Option } from "commander";
import { applyProfile } from "../core/home.js";
import { mark, reportTiming } from "../core/timing.js";
import { VERSION } from "../core/version.js";
import { addMcpCommands } from "./commands/mcp-register.js";
import { addPluginCommands } from "./commands/plugins-register.js";
import { addSkillsCommands } from "./commands/skills-register.js";
import type { RunFlags } from "./open-runtime.js";
import { addProviderCommands } from "./provider-commands.js";
import { promptFromWords, USAGE_EXIT } from "./root-args.js";

mark("cli module loaded");

interface RootFlags extends RunFlags {
  oneshot?: string;
  profile?: string;
  query?: string;
  usageFile?: string;
}

const USAGE_FILE_HELP = "with -z / -q: write a JSON usage and cost report to this file when the run ends";

const addRunOptions = (cmd: Command): Command =>
  cmd
    .option("-m, --model <model>", "model id for this run (overrides model.default)")
    .addOption(
      new Option("--provider <name>", "provider for this run").choices([
        "auto",
        "openrouter",
        "anthropic",
        "openai",
        "nous",
        "custom",
      ]),
    )
    .option(
      "-t, --toolsets <list>",
      "comma-separated toolsets to enable (default: config 'toolsets', i.e. hermes-cli)",
    )
    .option("--yolo", "skip dangerous-command approval prompts for this run")
    .option("-c, --continue", "continue the most recent session of this profile")
    .option("-r, --resume <id|title>", "resume a stored session by id, id prefix or title");

/** Finds `-p NAME` / `--profile NAME` before anything reads HERMES_HOME. */
function preApplyProfile(argv: readonly string[]): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === "-p" || a === "--profile") && argv[i + 1]) {
      applyProfile(argv[i + 1]);
      return;
    }
    if (a.startsWith("--profile=")) {
      applyProfile(a.slice("--profile=".length));
      return;
    }
  }
}

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("hermes")
    .description(
      "Hermes Agent: a general-purpose AI agent for any LLM provider.\nRun with no command for an interactive chat.",
    )
    .version(VERSION, "-V, --version", "print the version")
    .option("-z, --oneshot <prompt>", "run one prompt and print only the final answer on stdout")
    .option("-p, --profile <name>", "use the profile ~/.hermes/profiles/<name> as HERMES_HOME")
    .option("--usage-file <path>", USAGE_FILE_HELP)
    .argument("[prompt...]", "a quoted prompt: the chat starts with it as the first message")
    .helpCommand(true)
    // Before any subcommand is added: they inherit it, so their usage errors reach main() too.
    .exitOverride()
    .showHelpAfterError("(run 'hermes --help' for usage)")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  hermes                                  interactive chat",
        '  hermes "why does the build fail?"       interactive chat, starting with this message',
        '  hermes -z "summarise README.md"         one answer on stdout, nothing else',
        '  hermes chat -q "list large files here"  one query, progress on stderr',
        "  hermes config set model.default gpt-5   change a setting",
        "",
        "Environment: HERMES_HOME (default ~/.hermes), OPENROUTER_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY,",
        "OPENAI_BASE_URL, NOUS_API_KEY, HTTPS_PROXY/NO_PROXY, HERMES_TIMING=1 (startup phases on stderr),",
        "TELEGRAM_BOT_TOKEN, TELEGRAM_ALLOWED_USERS, GATEWAY_ALLOW_ALL_USERS, API_SERVER_KEY (gateway).",
        "Docs: docs/cli.md, docs/configuration.md, docs/providers.md, docs/tools.md, docs/gateway.md,",
        "docs/api-server.md",
        "",
      ].join("\n"),
    );
  addRunOptions(program);
  program.action(async (words: string[], opts: RootFlags) => {
    const prompt = promptFromWords(program, words, opts.oneshot !== undefined);
    if (opts.oneshot !== undefined) {
      const { runOneshot } = await import("./commands/oneshot.js");
      setExit(await runOneshot(opts.oneshot, opts, { quiet: true, usageFile: opts.usageFile }));
      return;
    }
    const { runRepl } = await import("./repl/repl.js");
    setExit(await runRepl(opts, prompt));
  });

  addRunOptions(
    program
      .command("chat")
      .description("chat with the agent (interactive, or one query with -q)")
      .option("-q, --query <text>", "run one query: progress on stderr, answer on stdout")
      .option("--usage-file <path>", USAGE_FILE_HELP),
  ).action(async (opts: RootFlags) => {
    const merged = { ...program.opts<RootFlags>(), ...opts };
    if (merged.query !== undefined) {
      const { runOneshot } = await import("./commands/oneshot.js");
      setExit(await runOneshot(merged.query, merged, { quiet: false, usageFile: merged.usageFile }));
      return;
    }
    const { runRepl } = await import("./repl/repl.js");
    setExit(await runRepl(merged));
  });

  addRunOptions(
    program
      .command("prompt-size")
      .description(
        "show the fixed size of every request: system prompt and tool schemas, in chars and ~tokens",
      ),
  ).action(async (opts: RootFlags) => {
    const { runPromptSize } = await import("./commands/prompt-size.js");
    setExit(await runPromptSize({ ...program.opts<RootFlags>(), ...opts }));
  });

  program
    .command("processes")
    .description("list background processes started by the agent (running ones, from any hermes session)")
    .option("-a, --all", "include finished processes")
    .option("--json", "print the records as JSON")
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      const { runProcesses } = await import("./commands/processes.js");
      setExit(await runProcesses(opts));
    });

  const config = program
    .command("config")
    .description("show or change config.yaml (show | path | set KEY VALUE | check)");
  config
    .command("show")
    .description("print the effective configuration (defaults merged with config.yaml; secrets masked)")
    .action(async () => setExit(await (await import("./commands/config.js")).configShow()));
  config
    .command("path")
    .description("print the path of config.yaml")
    .action(async () => setExit(await (await import("./commands/config.js")).configPath()));
  config
    .command("set")
    .description("set one key, e.g. 'hermes config set agent.max_turns 60'")
    .argument("<key>", "dotted key, e.g. model.default")
    .argument("<value>", "value, parsed as YAML (numbers, true/false, [lists])")
    .action(async (key: string, value: string) =>
      setExit(await (await import("./commands/config.js")).configSet(key, value)),
    );
  config
    .command("check")
    .description("validate config.yaml and report problems")
    .action(async () => setExit(await (await import("./commands/config.js")).configCheck()));
  addSessionCommands(program, setExit);
  addProviderCommands(program, setExit);
  addMcpCommands(program, setExit);
  addSkillsCommands(program, setExit);
  return program;
}

function addSessionCommands(program: Command, setExit: (code: number) => void): void {
  const load = () => import("./commands/sessions.js");
  const sessions = program
    .command("sessions")
    .description("stored conversations (list | export | rename | delete | prune | stats)");
  sessions
    .command("list")
    .description("list sessions, newest first: full ids, start time, source, message count, title")
    .option("-n, --limit <n>", "how many (default 50)")
    .option("--source <name>", "only sessions from this source (cli, telegram, cron, ...)")
    .option("--json", "print JSON")
    .action(async (opts) => setExit(await (await load()).sessionsList(opts)));
  sessions
    .command("export")
    .description("export one session as JSONL (default) or Markdown")
    .argument("<id|title>", "session id, id prefix or title")
    .option("-f, --format <format>", "jsonl or md", "jsonl")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .option("--system-prompt", "include the stored system prompt (JSONL)")
    .action(async (id: string, opts) => setExit(await (await load()).sessionsExport(id, opts)));
  sessions
    .command("rename")
    .description("set a session's title (usable with 'hermes -r TITLE')")
    .argument("<id|title>", "session id, id prefix or title")
    .argument("<title>", "the new title")
    .action(async (id: string, title: string) => setExit(await (await load()).sessionsRename(id, title)));
  sessions
    .command("delete")
    .description("delete one session and its messages")
    .argument("<id|title>", "session id, id prefix or title")
    .action(async (id: string) => setExit(await (await load()).sessionsDelete(id)));
  sessions
    .command("prune")
    .description("delete sessions started more than N days ago")
    .option("--older-than <days>", "age in days (default 90)")
    .option("--source <name>", "only sessions from this source")
    .action(async (opts) => setExit(await (await load()).sessionsPrune(opts)));
  sessions
    .command("stats")
    .description("database size, session and message counts")
    .option("--json", "print JSON")
    .action(async (opts) => setExit(await (await load()).sessionsStats(opts)));
}

/**
 * Adds the subcommands of another front end (gateway, API server) to the program. Each registrar
 * only declares its commands; their modules load when one runs.
 */
export type CommandRegistrar = (program: Command, setExit: (code: number) => void) => void;

/** Runs the CLI; resolves to the process exit code. Never throws. */
export async function main(
  argv: readonly string[],
  registrars: readonly CommandRegistrar[] = [],
): Promise<number> {
  let exitCode = 0;
  try {
    preApplyProfile(argv);
    const setExit = (code: number): void => {
      exitCode = code;
    };
    const program = buildProgram(setExit);
    for (const register of registrars) register(program, setExit);
    addPluginCommands(
      program,
      (code) => {
        exitCode = code;
      },
      argv,
    );
    await program.parseAsync([...argv], { from: "user" });
  } catch (err) {
    const code = (err as { code?: string; exitCode?: number }).code;
    if (typeof code === "string" && code.startsWith("commander.")) {
      // Commander already printed help, version or the usage error; help and version exit 0.
      exitCode = (err as { exitCode?: number }).exitCode === 0 ? 0 : USAGE_EXIT;
    } else {
      // Loaded on failure only: it reads config errors, and with them the YAML parser.
      const { describeFatal } = await import("./errors.js");
      process.stderr.write(`${describeFatal(err)}\n`);
      exitCode = 1;
    }
  }
  mark("done");
  reportTiming();
  return exitCode;
}
