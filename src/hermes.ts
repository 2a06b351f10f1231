/**
 * The process entry: the CLI plus the subcommands of the other front ends. Front ends never import
 * each other; this file is where they meet.
 */
import { addApiCommands } from "./api/commands-register.js";
import { type CommandRegistrar, main as cliMain } from "./cli/main.js";
import { addGatewayCommands } from "./gateway/commands-register.js";
import { addPairingCommands } from "./gateway/pairing-register.js";

const registrars: CommandRegistrar[] = [
  addApiCommands,
  addPairingCommands,
  // The API server runs inside the gateway process as a service; it loads only when it is on.
  addGatewayCommands({
    services: { api_server: () => import("./api/service.js").then((m) => m.createApiService) },
  }),
];

/** Runs `hermes` with these arguments; resolves to the exit code. Never throws. */
export const main = (argv: readonly string[]): Promise<number> => cliMain(argv, registrars);
