/**
 * The process entry: the CLI plus the subcommands of the other front ends. Front ends never import
 * each other; this file is where they meet.
 */
import { type CommandRegistrar, main as cliMain } from "./cli/main.js";

const registrars: CommandRegistrar[] = [];

/** Runs `hermes` with these arguments; resolves to the exit code. Never throws. */
export const main = (argv: readonly string[]): Promise<number> => cliMain(argv, registrars);
