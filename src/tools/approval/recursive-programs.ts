import type { Command } from "./commands.js";
import { findStartPaths } from "./targets.js";

/**
 * Programs that walk whole folder trees (`grep -r`, `find`, `tar c`, `rsync -a`, `du`, ...): a
 * folder they are given is read all the way down, so handing them `~` reads everything below it.
 */

/** Walk the tree whatever their options. */
const ALWAYS = /^(?:find|du|tree|rg|ag|ack|fd|fdfind|rgrep|rclone|restic|borg|ncdu)$/;
const GREPS = /^(?:grep|egrep|fgrep|ugrep|zgrep)$/;

/** A short-option cluster (`-rn`, `-avz`) holding one of `letters`. */
const clusterHas = (args: readonly string[], letters: string): boolean =>
  args.some((a) => /^-[a-zA-Z]+$/.test(a) && [...a.slice(1)].some((ch) => letters.includes(ch)));
const longHas = (args: readonly string[], re: RegExp): boolean =>
  args.some((a) => a.startsWith("--") && re.test(a));

/** Whether `tar` (or bsdtar) creates an archive: it then reads every folder it names. */
function tarCreates(args: readonly string[]): boolean {
  const first = args[0] ?? "";
  const cluster = first.startsWith("--") ? "" : first.replace(/^-/, "");
  return /^[a-zA-Z]*[cru][a-zA-Z]*$/.test(cluster) || longHas(args, /^--(?:create|append|update)\b/);
}

/** True when `c` reads the folders it is given recursively. */
export function walksTree(c: Command): boolean {
  const a = c.args;
  if (ALWAYS.test(c.name)) return true;
  if (GREPS.test(c.name))
    return (
      clusterHas(a, "rR") ||
      longHas(a, /^--(?:recursive|dereference-recursive|directories=recurse)$/) ||
      a.some((w, i) => w === "-d" && a[i + 1] === "recurse")
    );
  switch (c.name) {
    case "ls":
      return clusterHas(a, "R") || a.includes("--recursive");
    case "cp":
    case "scp":
    case "diff":
      return clusterHas(a, "rRa") || longHas(a, /^--(?:recursive|archive)$/);
    case "rsync":
      return clusterHas(a, "ra") || longHas(a, /^--(?:recursive|archive)$/);
    case "zip":
      return clusterHas(a, "r") || a.includes("--recurse-paths");
    case "7z":
    case "7za":
    case "7zz":
      return a[0] === "a" || a[0] === "u";
    case "tar":
    case "bsdtar":
      return tarCreates(a);
    case "chmod":
    case "chown":
    case "chgrp":
    case "setfacl":
      return clusterHas(a, "R") || a.includes("--recursive");
  }
  return false;
}

/**
 * Whether `c` walks the folder it runs in because it names none: `grep -r PATTERN`, `rg x`,
 * `find -name x`, `du`. `operands` are its words that are not options.
 */
export function walksWorkingFolder(c: Command, operands: readonly string[]): boolean {
  if (c.name === "find") return findStartPaths(c.args).includes(".");
  if (/^(?:du|tree|ncdu)$/.test(c.name) || (c.name === "ls" && walksTree(c))) return operands.length === 0;
  const patternGiven = c.args.some((w) => w === "-e" || w === "-f" || /^--(?:regexp|file)=/.test(w));
  if (GREPS.test(c.name) || /^(?:rg|ag|ack|fd|fdfind|rgrep)$/.test(c.name))
    return operands.length <= (patternGiven ? 0 : 1);
  return false;
}
