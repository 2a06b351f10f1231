/**
 * `hermes api ...`: the API server's subcommands, added to the CLI by the process entry. The
 * server's code loads only when a subcommand runs.
 */
import { type Command, InvalidArgumentError } from "commander";

const parsePort = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("must be a port number (0-65535; 0 picks a free one)");
  return n;
};

export const addApiCommands = (program: Command, setExit: (code: number) => void): void => {
  const api = program.command("api").description("the OpenAI-compatible API server");
  api
    .command("serve")
    .description(
      "serve /v1/chat/completions, /v1/responses and /api/sessions over HTTP until SIGTERM/SIGINT " +
        "(needs API_SERVER_KEY)",
    )
    .option("--host <host>", "address to bind (default platforms.api_server.host, 127.0.0.1)")
    .option("--port <port>", "port to listen on (default platforms.api_server.port, 8642)", parsePort)
    .action(async (opts: { host?: string; port?: number }) =>
      setExit(await (await import("./serve.js")).runApiServe(opts)),
    );
};
