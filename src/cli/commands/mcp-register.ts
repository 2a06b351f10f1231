import type { Command } from "commander";

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `hermes mcp ...`; each subcommand loads its module (and the MCP SDK) only when it runs. */
export function addMcpCommands(program: Command, setExit: (code: number) => void): void {
  const load = () => import("./mcp.js");
  const mcp = program
    .command("mcp")
    .description("MCP servers: list | add | remove | test NAME | serve (Hermes as an MCP server)");
  mcp
    .command("list")
    .description("list the MCP servers of config.yaml")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => setExit((await load()).mcpList(opts)));
  mcp
    .command("add")
    .description(
      "add a server: 'hermes mcp add NAME -- COMMAND [ARGS...]' (stdio) or 'hermes mcp add NAME --url URL'",
    )
    .argument("<name>", "the server's name (letters, digits, _ and -); its tools become mcp_<name>_<tool>")
    .argument("[command...]", "the command that starts a stdio server, and its arguments (after --)")
    .option(
      "--url <url>",
      "an HTTP server (Streamable HTTP; with --transport sse for the older SSE transport)",
    )
    .option("--transport <kind>", "stdio, http or sse (default: stdio with a command, http with --url)")
    .option(
      "--env <NAME=VALUE>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the help names the literal ${VAR} syntax.
      "a variable for a stdio server (repeatable; ${VAR} reads the environment)",
      collect,
    )
    .option(
      "--header <NAME=VALUE>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the help names the literal ${VAR} syntax.
      "an HTTP header (repeatable; ${VAR} reads the environment)",
      collect,
    )
    .option("--cwd <dir>", "working directory of a stdio server")
    .option("--timeout <seconds>", "per tool call (default 300)")
    .option("--connect-timeout <seconds>", "per connection attempt (default 60)")
    .option("--include <tools>", "only these of the server's tools (comma-separated)")
    .option("--exclude <tools>", "leave out these of the server's tools (comma-separated)")
    .option("--disabled", "add it switched off (enabled: false)")
    .option("--force", "replace a server of the same name")
    .action(async (name: string, command: string[], opts) =>
      setExit((await load()).mcpAdd(name, command, opts)),
    );
  mcp
    .command("remove")
    .description("remove a server from config.yaml (the rest of the file stays as it is)")
    .argument("<name>", "the server's name")
    .action(async (name: string) => setExit((await load()).mcpRemove(name)));
  mcp
    .command("test")
    .description("connect to one server and list its tools with the size of their schemas; exit 1 on failure")
    .argument("<name>", "the server's name")
    .action(async (name: string) => setExit(await (await load()).mcpTest(name)));
  mcp
    .command("serve")
    .description("run Hermes as an MCP server on stdio: sessions, search, memory and run_prompt")
    .action(async () => setExit(await (await import("./mcp-serve.js")).runMcpServe()));
}
