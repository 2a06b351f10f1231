import type { Command } from "./commands.js";
import { HERMES_CLI, LOGIN_FILES, POWER_OFF, SUDO_PASSWORD } from "./hardline-access.js";
import { abbreviationAware } from "./options.js";
import { cleanPath, globRegex } from "./protected-paths.js";
import {
  findDeletes,
  findIsFiltered,
  findStartPaths,
  HOME_TARGET,
  hasFlag,
  isBlockDevice,
  killTargets,
  operands,
  ROOT_TARGET,
  redirectTargets,
  rmIsRecursive,
} from "./targets.js";
import type { CommandPattern } from "./types.js";

/**
 * Commands Hermes never runs on the local backend: not with `--yolo`, not with
 * `approvals.mode: off`, not from the allowlist. Each one destroys the machine or the user's data
 * in one step, or (hardline-access.ts) hands the model a way around the screening for good.
 * Container backends are exempt, since there the blast radius is a disposable box; over ssh these
 * rules ask like dangerous ones.
 */

/** Folders whose recursive delete wrecks the system or every user's data (macOS spellings too). */
const SYSTEM_DIR_NAMES =
  "etc usr bin sbin lib lib32 lib64 libx32 boot home var opt root sys proc dev srv mnt media snap System Library Applications Users private private/etc private/var".split(
    " ",
  );
const SYSTEM_DIR = new RegExp(`^/(?:${SYSTEM_DIR_NAMES.join("|")})$`);

/** `/etc`, `/etc/`, `/etc/*`, `/usr/.`, `"/home"/*`, or a glob that names one (`/u?r`). */
function isSystemDirItself(target: string): boolean {
  const t = cleanPath(target).replace(/\/(?:\*|\.\*)$/, "");
  if (SYSTEM_DIR.test(t)) return true;
  if (!/^\/[^/]*[*?[][^/]*$/.test(t)) return false;
  let glob: RegExp;
  try {
    glob = globRegex(t);
  } catch {
    return false;
  }
  return SYSTEM_DIR_NAMES.some((d) => !d.includes("/") && glob.test(`/${d}`));
}

/** Targets with `//`, `/.` and `..` resolved: `/..` and `/etc/..` are `/`. */
const rmTargets = (cmd: Command): string[] => operands(cmd.args).map(cleanPath);

const DEVICE_WRITERS = /^(?:mkfs(?:\.\w+)?|mke2fs|mkswap|mkntfs|mkdosfs|mkfs_\w+|newfs(?:_\w+)?)$/;

const isWorldWritableMode = (m: string): boolean => /^0?777$/.test(m) || /^(?:a|ugo)\+rwx$/.test(m);

export const HARDLINE_PATTERNS: readonly CommandPattern[] = abbreviationAware([
  {
    key: "rm_root",
    description: "recursive delete of the root filesystem (/)",
    class: "delete",
    programs: ["rm"],
    test: (c) => rmIsRecursive(c.args) && rmTargets(c).some((t) => ROOT_TARGET.test(t)),
  },
  {
    key: "rm_no_preserve_root",
    description: "rm --no-preserve-root (deleting / is explicitly allowed)",
    class: "delete",
    programs: ["rm"],
    test: (c) => hasFlag(c.args, "", "no-preserve-root"),
  },
  {
    key: "rm_home",
    description: "recursive delete of the whole home directory",
    class: "delete",
    programs: ["rm"],
    test: (c) =>
      rmIsRecursive(c.args) &&
      rmTargets(c).some((t) => HOME_TARGET.test(t) || /^(?:~[\w-]*|\$HOME)(?:\/\.\.)+$/.test(t)),
  },
  {
    key: "rm_system_dir",
    description: "recursive delete of a system folder (/etc, /usr, /bin, /home, /var, ...)",
    class: "delete",
    programs: ["rm"],
    test: (c) => rmIsRecursive(c.args) && operands(c.args).some(isSystemDirItself),
  },
  {
    key: "find_root_delete",
    description:
      "find over /, ~ or a whole system folder with -delete or -exec rm (deletes everything it finds)",
    class: "delete",
    programs: ["find"],
    test: (c) => {
      if (!findDeletes(c.args)) return false;
      const starts = findStartPaths(c.args).map(cleanPath);
      return (
        starts.some((p) => ROOT_TARGET.test(p) || HOME_TARGET.test(p)) ||
        (!findIsFiltered(c.args) && starts.some(isSystemDirItself))
      );
    },
  },
  {
    key: "mkfs_device",
    description: "format a disk or partition (mkfs/mkswap on a block device)",
    class: "disk",
    test: (c) => DEVICE_WRITERS.test(c.name) && operands(c.args).some(isBlockDevice),
  },
  {
    key: "dd_device",
    description: "dd writing onto a disk or partition",
    class: "disk",
    programs: ["dd"],
    test: (c) => c.args.some((a) => a.startsWith("of=") && isBlockDevice(a.slice(3))),
  },
  {
    key: "redirect_device",
    description: "output redirected onto a disk or partition (> /dev/sda)",
    class: "disk",
    test: (c) =>
      redirectTargets(c).some(isBlockDevice) || (c.name === "tee" && operands(c.args).some(isBlockDevice)),
  },
  {
    key: "wipe_device",
    description: "wipe a disk or partition (wipefs, blkdiscard, shred, sgdisk --zap-all)",
    class: "disk",
    programs: ["wipefs", "blkdiscard", "shred", "sgdisk"],
    test: (c) =>
      operands(c.args).some(isBlockDevice) &&
      (c.name !== "sgdisk" || hasFlag(c.args, "Z", "zap-all")) &&
      (c.name !== "wipefs" || hasFlag(c.args, "a", "all")),
  },
  {
    key: "fork_bomb",
    description: "fork bomb (exhausts the process table until the machine locks up)",
    class: "fork_bomb",
    raw: /(?:^|[;&|\s])([A-Za-z_:.][\w:.]*)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*;?\s*\}\s*;\s*\1(?!\w)/,
  },
  {
    key: "chmod_777_root",
    description: "chmod -R 777 / (makes every file on the system world-writable)",
    class: "permissions",
    programs: ["chmod"],
    test: (c) => {
      const ops = operands(c.args);
      return (
        hasFlag(c.args, "R", "recursive") &&
        isWorldWritableMode(ops[0] ?? "") &&
        ops.slice(1).some((t) => ROOT_TARGET.test(cleanPath(t)))
      );
    },
  },
  {
    key: "chown_root",
    description: "chown -R on / (takes every system file away from its owner)",
    class: "permissions",
    programs: ["chown", "chgrp"],
    test: (c) =>
      hasFlag(c.args, "R", "recursive") &&
      operands(c.args)
        .slice(1)
        .some((t) => ROOT_TARGET.test(cleanPath(t))),
  },
  {
    key: "mv_root",
    description: "moving / or the home directory away",
    class: "delete",
    programs: ["mv"],
    test: (c) => {
      const ops = operands(c.args);
      return ops.slice(0, -1).some((t) => ROOT_TARGET.test(cleanPath(t)) || HOME_TARGET.test(cleanPath(t)));
    },
  },
  {
    key: "kill_every_process",
    description: "signalling every process on the machine (kill -1, kill -9 -1, killall5)",
    class: "process",
    programs: ["kill", "killall5"],
    test: (c) => c.name === "killall5" || killTargets(c.args).includes("-1"),
  },
  POWER_OFF,
  SUDO_PASSWORD,
  ...HERMES_CLI,
  LOGIN_FILES,
]);
