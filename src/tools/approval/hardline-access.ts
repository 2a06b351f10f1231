import type { Command } from "./commands.js";
import { isHermesPath, isLoginPath } from "./protected-paths.js";
import { readSudoOptions } from "./sudo-options.js";
import { operands } from "./targets.js";
import type { CommandPattern } from "./types.js";
import { linkedPaths, modifiedPaths } from "./writes.js";

/**
 * Hardline rules about access rather than data: switching the machine off, guessing the sudo
 * password, and changing the files that decide what Hermes may do or who can log in. Any of these
 * lets a model escape the approval screen for good, so none can be approved.
 */

const POWER_PROGRAMS = /^(?:reboot|shutdown|halt|poweroff)$/;
const SYSTEMCTL_POWER =
  /^systemctl(?: --?\S+)* (?:reboot|poweroff|halt|kexec|soft-reboot|(?:start|isolate) (?:reboot|poweroff|halt|kexec)\.target)\b/;

export const POWER_OFF: CommandPattern = {
  key: "power_off",
  description: "reboot, shut down, halt or power off the machine",
  class: "power",
  test: (c) =>
    (POWER_PROGRAMS.test(c.name) && !c.args.some((a) => a === "-c" || a === "-k" || a === "--help")) ||
    SYSTEMCTL_POWER.test(c.text) ||
    /^(?:init|telinit) [06]$/.test(c.text) ||
    /\blogin1\b.*\b(?:PowerOff|Reboot|Halt|KExec)\b/.test(c.text) ||
    (c.name === "osascript" && /System Events"? to (?:shut down|restart)/i.test(c.text)) ||
    c.redirects.some((r) => r.target === "/proc/sysrq-trigger") ||
    (c.name === "tee" && c.args.includes("/proc/sysrq-trigger")),
};

/** sudo's options (the words after `sudo`) read a password from stdin (-S) or an askpass helper (-A). */
export const sudoReadsPassword = (args: readonly string[]): boolean => readSudoOptions(args).readsPassword;

/**
 * Matched against sudo itself: the screen removes wrappers such as sudo from every command, so
 * `screenNested` hands this rule each sudo found in the script, with its options as arguments.
 */
export const SUDO_PASSWORD: CommandPattern = {
  key: "sudo_password",
  description: "sudo reading its password from stdin or an askpass helper (sudo -S / -A): password guessing",
  class: "security",
  programs: ["sudo"],
  test: (c) => sudoReadsPassword(c.args),
};

const HERMES_VALUE_OPTS = new Set(
  "-z --oneshot -p --profile --usage-file -m --model --provider -t --toolsets -r --resume -q --query".split(
    " ",
  ),
);
/** Hermes subcommands that rewrite config.yaml or auth.json. */
const HERMES_WRITES: Readonly<Record<string, ReadonlySet<string>>> = {
  config: new Set(["set", "unset", "edit", "reset", "migrate"]),
  auth: new Set(["add", "remove", "reset"]),
  fallback: new Set(["add", "remove", "clear"]),
};

const hermesCliChanges = (c: Command): boolean => {
  const before = c.args.indexOf("--");
  const opts = before < 0 ? c.args : c.args.slice(0, before);
  if (opts.includes("--yolo")) return true;
  const [sub, verb] = operands(c.args, HERMES_VALUE_OPTS);
  return sub !== undefined && verb !== undefined && (HERMES_WRITES[sub]?.has(verb) ?? false);
};

export const HERMES_CLI: readonly CommandPattern[] = [
  {
    key: "hermes_files",
    description:
      "changing (or linking to) Hermes's own files (config.yaml, .env, auth.json or anything in HERMES_HOME): it could turn approvals off",
    class: "security",
    test: (c) => modifiedPaths(c).some(isHermesPath) || linkedPaths(c).some(isHermesPath),
  },
  {
    key: "hermes_settings",
    description:
      "changing Hermes's settings or keys (hermes config set, hermes auth ...) or starting it with approvals off (--yolo)",
    class: "security",
    programs: ["hermes"],
    test: hermesCliChanges,
  },
];

export const LOGIN_FILES: CommandPattern = {
  key: "login_files",
  description:
    "changing (or linking to) SSH keys or authorized_keys, ~/.netrc or shell start-up files (~/.bashrc, ~/.profile, /etc/profile, ...)",
  class: "security",
  test: (c) => modifiedPaths(c).some(isLoginPath) || linkedPaths(c).some(isLoginPath),
};
