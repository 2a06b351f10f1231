import type { Command } from "./commands.js";
import {
  findStartPaths,
  HOME_TARGET,
  hasFlag,
  isBlockDevice,
  normPath,
  operands,
  ROOT_TARGET,
  redirectTargets,
  rmIsRecursive,
} from "./targets.js";
import type { CommandPattern } from "./types.js";

/**
 * Commands Hermes never runs on the local backend: not with `--yolo`, not with
 * `approvals.mode: off`, not from the allowlist. Each one destroys the machine or the user's home
 * in one step. Container and remote backends are exempt (the original's rule): there the blast
 * radius is a disposable box.
 */

const rmTargets = (cmd: Command): string[] => operands(cmd.args).map((t) => normPath(t));

const DEVICE_WRITERS = /^(?:mkfs(?:\.\w+)?|mke2fs|mkswap|mkntfs|mkdosfs|mkfs_\w+|newfs(?:_\w+)?)$/;

const isWorldWritableMode = (m: string): boolean => /^0?777$/.test(m) || /^(?:a|ugo)\+rwx$/.test(m);

export const HARDLINE_PATTERNS: readonly CommandPattern[] = [
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
    test: (c) => c.args.includes("--no-preserve-root"),
  },
  {
    key: "rm_home",
    description: "recursive delete of the whole home directory",
    class: "delete",
    programs: ["rm"],
    test: (c) => rmIsRecursive(c.args) && rmTargets(c).some((t) => HOME_TARGET.test(t)),
  },
  {
    key: "find_root_delete",
    description: "find / or find ~ with -delete (deletes everything it finds)",
    class: "delete",
    programs: ["find"],
    test: (c) =>
      (c.args.includes("-delete") || /-exec(?:dir)? rm\b/.test(c.text)) &&
      findStartPaths(c.args).some((p) => ROOT_TARGET.test(normPath(p)) || HOME_TARGET.test(normPath(p))),
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
        ops.slice(1).some((t) => ROOT_TARGET.test(normPath(t)))
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
        .some((t) => ROOT_TARGET.test(normPath(t))),
  },
  {
    key: "mv_root",
    description: "moving / or the home directory away",
    class: "delete",
    programs: ["mv"],
    test: (c) => {
      const ops = operands(c.args);
      return ops.slice(0, -1).some((t) => ROOT_TARGET.test(normPath(t)) || HOME_TARGET.test(normPath(t)));
    },
  },
];
