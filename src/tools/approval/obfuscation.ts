import { type Command, SHELLS } from "./commands.js";
import { SUBSTITUTION } from "./shell-parse.js";
import {
  HOME_TARGET,
  isBlockDevice,
  isSystemTopLevel,
  normPath,
  operands,
  ROOT_TARGET,
  redirectTargets,
  systemDirOf,
} from "./targets.js";
import type { CommandPattern } from "./types.js";
import { isComputedName, readsScriptFromStdin } from "./wrappers.js";

/**
 * Commands whose program, arguments or script are computed at run time in a way the screening
 * cannot follow (a substitution it cannot evaluate, a variable from the environment, a glob in the
 * program name, decoded text of unknown origin). Ordinary uses pass (`cd "$(git rev-parse
 * --show-toplevel)"`, `$EDITOR notes.txt`); they ask when the rest of the command has the shape
 * of something destructive, or when the unknown text is run as a script.
 */

/** Keys, credentials and shell setup in the home folder. */
const HOME_SECRETS =
  /^(?:~|\$HOME)\/\.(?:ssh|gnupg|aws|kube|docker|config|bashrc|bash_profile|profile|zshrc|hermes)(?:\/|$)/;
const DESTRUCTIVE_FLAG = /^-[a-zA-Z]*(?:[rR][a-zA-Z]*f|f[a-zA-Z]*[rR])[a-zA-Z]*$/;

/** An argument or redirection that makes an unknown program look destructive. */
function destructiveShape(c: Command): boolean {
  const risky = (t: string): boolean => {
    const p = normPath(t);
    return (
      ROOT_TARGET.test(p) ||
      HOME_TARGET.test(t) ||
      isBlockDevice(t) ||
      systemDirOf(p) !== undefined ||
      HOME_SECRETS.test(t)
    );
  };
  return (
    c.args.some(
      (a) =>
        DESTRUCTIVE_FLAG.test(a) ||
        /^--(?:no-preserve-root|recursive|force)$/.test(a) ||
        a === "-delete" ||
        /^of=\/dev\//.test(a) ||
        (!a.startsWith("-") && risky(a)),
    ) || redirectTargets(c).some((t) => risky(t) && !/^\/dev\/(?:null|stdout|stderr|tty)$/.test(t))
  );
}

/** Stages whose output is text made on the spot (not a file read as is). */
const TEXT_MAKERS = new Set([
  "echo",
  "printf",
  "curl",
  "wget",
  "base64",
  "base32",
  "xxd",
  "rev",
  "tr",
  "sed",
  "awk",
]);

/** Programs that turn text into other text: what obfuscated scripts are run through. */
const TRANSFORMERS = new Set([
  "base64",
  "base32",
  "basenc",
  "xxd",
  "od",
  "rev",
  "tac",
  "tr",
  "openssl",
  "gpg",
  "gunzip",
  "zcat",
  "gzip",
  "bunzip2",
  "bzip2",
  "xz",
  "unxz",
  "uudecode",
]);

const FILE_READERS = new Set(["cat", "head", "tail"]);

/** A word whose value comes from the environment or a substitution (not `$HOME`-like places). */
const computedWord = (w: string): boolean =>
  w.includes(SUBSTITUTION) || /\$(?!(?:HOME|PWD|TMPDIR)\b)[\w{@*#?!-]/.test(w);

const CHANGERS = new Set([
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "find",
  "chmod",
  "chown",
  "chgrp",
  "chattr",
  "setfacl",
  "mv",
  "dd",
  "truncate",
  "rsync",
  "wipefs",
]);

export const OBFUSCATION_PATTERNS: readonly CommandPattern[] = [
  {
    key: "computed_command",
    description:
      "command name computed at run time (from a substitution, variable or glob) with arguments that look destructive",
    class: "security",
    test: (c) =>
      isComputedName(c.name) &&
      (destructiveShape(c) ||
        (c.stage > 0 &&
          c.pipe.slice(0, c.stage).some((s) => TEXT_MAKERS.has(s.name) || isComputedName(s.name)))),
  },
  {
    key: "computed_argument",
    description:
      "argument computed at run time for a command that deletes or changes files, aimed at /, the home folder, a system folder or a disk",
    class: "security",
    test: (c) => {
      if (!CHANGERS.has(c.name) || !c.args.some(computedWord)) return false;
      return operands(c.args).some(
        (t) =>
          !computedWord(t) &&
          (ROOT_TARGET.test(normPath(t)) || HOME_TARGET.test(t) || isBlockDevice(t) || isSystemTopLevel(t)),
      );
    },
  },
  {
    key: "computed_script_to_shell",
    description: "a script computed at run time piped into a shell (what it runs cannot be checked)",
    class: "remote_code",
    test: (c) =>
      c.stage > 0 &&
      c.stdin.length === 0 &&
      readsScriptFromStdin(c.name, c.args) &&
      !c.pipe.slice(0, c.stage).every((s) => FILE_READERS.has(s.name) && operands(s.args).length > 0),
  },
  {
    key: "decoded_script_run",
    description:
      "decoded or transformed text run as a script (eval, source, sh -c or bash <(...) of base64 -d, rev, tr, xxd -r output)",
    class: "remote_code",
    test: (c) =>
      (c.name === "eval" || c.name === "source" || c.name === "." || SHELLS.has(c.name)) &&
      c.text.includes(SUBSTITUTION) &&
      c.inner.some((i) => TRANSFORMERS.has(i.name)),
  },
];
