import type { Command } from "commander";
import { similarNames } from "./suggest.js";

/** Exit code of a command line Hermes cannot make sense of (as for an unknown option). */
export const USAGE_EXIT = 2;

const QUOTE_HINT =
  'A prompt goes in quotes: hermes "your prompt" starts the chat with it, hermes -z "your prompt" prints one answer.';

/**
 * The words after `hermes` that name no command. A first word with a space in it is a prompt
 * (`hermes "fix the failing test"`): the chat starts with it as the first message. A plain word
 * is a mistyped command: "unknown command", with the closest command names and how to quote a
 * prompt. Returns the prompt (undefined without words); usage errors go through `program.error`.
 */
export function promptFromWords(
  program: Command,
  words: readonly string[],
  oneshot: boolean,
): string | undefined {
  if (words.length === 0) return undefined;
  if (oneshot) {
    program.error(
      `error: unexpected argument '${words[0]}' after -z PROMPT\n(the whole prompt goes in quotes: hermes -z "your prompt")`,
      { code: "commander.excessArguments", exitCode: USAGE_EXIT },
    );
  }
  const first = words[0]!;
  if (/\s/.test(first.trim())) return words.join(" ");
  const names = ["help", ...program.commands.flatMap((c) => [c.name(), ...c.aliases()])];
  const similar = similarNames(first, names);
  const suggestion = similar.length > 0 ? `\n(Did you mean ${similar.join(" or ")}?)` : "";
  return program.error(`error: unknown command '${first}'${suggestion}\n${QUOTE_HINT}`, {
    code: "commander.unknownCommand",
    exitCode: USAGE_EXIT,
  });
}
