import { resolveLong } from "./options.js";

/**
 * sudo's own options, read the way sudo reads them (getopt_long, stopping at the first operand):
 * clusters (`-nu root`), values attached or separate (`-uroot`, `-u root`, `--user=root`,
 * `--user root`) and long options abbreviated to any unambiguous prefix (`--a` is `--askpass`,
 * `--us root` is `--user root`). Both the wrapper removal (where the command starts) and the
 * password rule (`-S` / `-A`) read them here, so the two can never disagree.
 */

const SUDO_LONG =
  "askpass background bell chdir close-from chroot command-timeout edit group help host list login non-interactive other-user preserve-env preserve-groups prompt remove-timestamp reset-timestamp role set-home shell stdin type user validate version".split(
    " ",
  );
const LONG_WITH_VALUE: ReadonlySet<string> = new Set(
  "chdir close-from chroot command-timeout group host other-user prompt role type user".split(" "),
);
const SHORT_WITH_VALUE = "ughpCDrtTU";

export interface SudoOptions {
  /** Index in `args` of the command sudo runs (args.length when there is none). */
  end: number;
  /** sudo reads its password from stdin (`-S`, `--stdin`) or an askpass helper (`-A`, `--askpass`). */
  readsPassword: boolean;
}

/** Reads the words after `sudo` (also doas, pkexec, run0, which take a subset of these). Never throws. */
export function readSudoOptions(args: readonly string[]): SudoOptions {
  let readsPassword = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return { end: i + 1, readsPassword };
    if (!a.startsWith("-") || a === "-") return { end: i, readsPassword };
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      // getopt_long takes any unambiguous prefix, however short.
      const full = resolveLong(a.slice(2, eq < 0 ? undefined : eq), SUDO_LONG, 1);
      if (full === "stdin" || full === "askpass") readsPassword = true;
      if (eq < 0 && full !== undefined && LONG_WITH_VALUE.has(full)) i += 1;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const ch = a[j]!;
      if (ch === "S" || ch === "A") readsPassword = true;
      if (SHORT_WITH_VALUE.includes(ch)) {
        if (j === a.length - 1) i += 1;
        break;
      }
    }
  }
  return { end: args.length, readsPassword };
}
