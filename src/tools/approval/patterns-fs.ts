import type { Command } from "./commands.js";
import { languageOf, massDeleteOf } from "./interpreters.js";
import { abbreviationAware } from "./options.js";
import { cleanPath } from "./protected-paths.js";
import { SUBSTITUTION } from "./shell-parse.js";
import {
  findDeletes,
  findIsFiltered,
  findStartPaths,
  HOME_TARGET,
  hasFlag,
  isAppPath,
  isBlockDevice,
  isEverydayDeleteTarget,
  isSystemTopLevel,
  normPath,
  operands,
  ROOT_TARGET,
  redirectTargets,
  rmIsRecursive,
  systemDirOf,
} from "./targets.js";
import type { CommandPattern } from "./types.js";
import { modifiedPaths } from "./writes.js";

/** Dangerous patterns about files, disks and permissions (approval needed; see hardline.ts for never). */

/** Where writing a file changes how the system boots, logs in or runs. */
const SYSTEM_WRITE =
  /^(?:\/etc|\/boot|\/usr|\/bin|\/sbin|\/lib|\/lib32|\/lib64|\/sys|\/proc|\/var\/log|\/var\/lib|\/root|\/System|\/Library|\/private\/etc|\/private\/var\/(?:db|log|root))(?:\/|$)/;
const isSystemWrite = (p: string): boolean =>
  SYSTEM_WRITE.test(normPath(p)) && !/^\/proc\/self\/fd\//.test(p);

/** Files in the home folder whose loss or change hurts: keys, shell setup, credentials. */
const HOME_SECRETS =
  /^(?:~|\$HOME)\/(?:\.ssh|\.gnupg|\.aws|\.kube|\.docker|\.config|\.local\/share\/keyrings|\.netrc|\.bashrc|\.bash_profile|\.profile|\.zshrc|\.zprofile|\.gitconfig|\.hermes)(?:\/|$)/;

/** Credentials and client settings in the home folder (login files proper are hardline). */
const HOME_CREDENTIALS =
  /^(?:~|\$HOME)\/(?:\.ssh\/(?!known_hosts)|\.aws\/|\.gnupg\/|\.kube\/config$|\.docker\/config\.json$|\.config\/gh\/hosts\.yml$|\.(?:npmrc|pypirc|gitconfig|git-credentials|pgpass|my\.cnf)$)/;

const rmTargets = (c: Command): string[] => operands(c.args);
const unknownTarget = (t: string): boolean => t.includes(SUBSTITUTION) || /^\$(?!HOME\b|TMPDIR\b)/.test(t);

const isWorldWritableMode = (m: string): boolean =>
  /^0?[0-7]?777$/.test(m) || /^(?:a|o|ugo)\+[rwx]*w/.test(m);

export const FS_PATTERNS: readonly CommandPattern[] = abbreviationAware([
  {
    key: "recursive_delete",
    description: "recursive delete (rm -r) of something that is not a build or cache folder",
    class: "delete",
    programs: ["rm"],
    test: (c) => {
      if (!rmIsRecursive(c.args)) return false;
      const targets = rmTargets(c);
      return targets.length > 0 && targets.some((t) => !isEverydayDeleteTarget(t));
    },
  },
  {
    key: "xargs_rm",
    description: "rm fed its targets by xargs or another command (the files deleted are unknown)",
    class: "delete",
    programs: ["rm"],
    test: (c) =>
      (c.wrappers.includes("xargs") && (rmIsRecursive(c.args) || hasFlag(c.args, "f", "force"))) ||
      (rmIsRecursive(c.args) && (rmTargets(c).length === 0 || rmTargets(c).some(unknownTarget))),
  },
  {
    key: "rm_system_path",
    description: "deleting files in a system folder (/etc, /usr, /var, /boot, ...)",
    class: "delete",
    programs: ["rm", "rmdir", "unlink", "shred"],
    test: (c) =>
      rmTargets(c).some((t) => systemDirOf(t) !== undefined && !/^\/dev\/(?:shm|mqueue)\//.test(t)),
  },
  {
    key: "rm_home_config",
    description:
      "deleting keys, credentials or shell setup in the home folder (~/.ssh, ~/.aws, ~/.bashrc, ...)",
    class: "delete",
    programs: ["rm", "shred", "unlink", "truncate"],
    test: (c) => rmTargets(c).some((t) => HOME_SECRETS.test(t)),
  },
  {
    key: "rm_wildcard_all",
    description: "deleting everything in a folder (rm -r * or rm -r .*)",
    class: "delete",
    programs: ["rm"],
    test: (c) => rmIsRecursive(c.args) && rmTargets(c).some((t) => /^(?:\.\/)?(?:\*|\.\*|\.)$/.test(t)),
  },
  {
    key: "find_delete",
    description: "find -delete / -exec rm over an absolute, home or unfiltered path",
    class: "delete",
    programs: ["find"],
    test: (c) => {
      if (!findDeletes(c.args)) return false;
      const starts = findStartPaths(c.args);
      const outside = starts.some(
        (p) => p.startsWith("/") || p.startsWith("~") || p.startsWith("$") || p.includes(".."),
      );
      return outside || !findIsFiltered(c.args);
    },
  },
  {
    key: "interpreter_rmtree",
    description:
      "a script deleting a folder tree outside the working directory (shutil.rmtree, fs.rmSync, rmtree)",
    class: "delete",
    programs: ["python", "python2", "python3", "node", "perl", "ruby", "deno", "bun"],
    test: /(?:rmtree|rmSync|rm_rf|remove_dir_all|rmdirSync)\s*\(\s*(?:['"](?:\/|~)|os\.path\.expanduser|Path\.home|os\.environ|os\.homedir|process\.env\.HOME|ENV\[)/,
  },
  {
    key: "interpreter_mass_delete",
    description:
      "a script deleting every file a glob or a folder listing returns (unlink glob, os.remove over glob.glob, rmSync over readdirSync, FileUtils.rm_rf Dir[...])",
    class: "delete",
    test: (c) => languageOf(c.name) !== undefined && massDeleteOf(c) !== undefined,
  },
  {
    key: "truncate_system_file",
    description: "truncating a file in a system folder",
    class: "system_config",
    programs: ["truncate"],
    test: (c) => operands(c.args).some(isSystemWrite),
  },
  {
    key: "redirect_system_file",
    description: "overwriting or appending to a system file (> /etc/..., >> /etc/...)",
    class: "system_config",
    test: (c) => redirectTargets(c).some((t) => isSystemWrite(t) && !isBlockDevice(t)),
  },
  {
    key: "tee_system_file",
    description: "tee writing into a system file (/etc/...)",
    class: "system_config",
    programs: ["tee"],
    test: (c) => operands(c.args).some(isSystemWrite),
  },
  {
    key: "edit_system_file",
    description: "in-place edit of a system file (sed -i / perl -i on /etc/...)",
    class: "system_config",
    programs: ["sed", "perl", "awk", "gawk"],
    test: (c) =>
      (hasFlag(c.args, "i", "in-place") || c.args.some((a) => /^-[a-z]*i/.test(a))) &&
      operands(c.args).some(isSystemWrite),
  },
  {
    key: "copy_into_system_dir",
    description: "copying, moving or linking files into a system folder",
    class: "system_config",
    programs: ["cp", "mv", "install", "ln", "rsync"],
    test: (c) => {
      const ops = operands(c.args);
      const dest = c.args.find((a) => a.startsWith("--target-directory="))?.slice(19) ?? ops.at(-1);
      return ops.length >= 2 && dest !== undefined && isSystemWrite(dest);
    },
  },
  {
    key: "mv_system_dir",
    description: "moving or renaming a system folder (/etc, /usr, /bin, ...)",
    class: "system_config",
    programs: ["mv"],
    test: (c) => operands(c.args).slice(0, -1).some(isSystemTopLevel),
  },
  {
    key: "mv_to_dev_null",
    description: "moving files onto /dev/null (they are destroyed)",
    class: "delete",
    programs: ["mv", "cp"],
    test: (c) => operands(c.args).at(-1) === "/dev/null",
  },
  {
    key: "home_credentials_write",
    description:
      "writing credentials or client settings in the home folder (~/.ssh/config, ~/.aws, ~/.npmrc, ...)",
    class: "security",
    test: (c) => modifiedPaths(c).some((p) => HOME_CREDENTIALS.test(cleanPath(p))),
  },
  {
    key: "ssh_authorized_keys",
    description: "changing ~/.ssh/authorized_keys (grants SSH access to this machine)",
    class: "security",
    test: (c) =>
      [...redirectTargets(c), ...(c.name === "tee" || c.name === "cp" ? operands(c.args) : [])].some((t) =>
        /authorized_keys2?$/.test(t),
      ),
  },
  {
    key: "shell_history_wipe",
    description: "erasing shell history (history -c, > ~/.bash_history)",
    class: "history",
    test: (c) =>
      (c.name === "history" && hasFlag(c.args, "c")) ||
      redirectTargets(c).some((t) => /(?:^|\/)\.(?:bash|zsh|sh)_history$|\/\.histfile$/.test(t)) ||
      (c.name === "unset" && c.args.includes("HISTFILE")) ||
      (c.name === "set" && c.args.includes("+o") && c.args.includes("history")) ||
      (c.name === "export" && c.args.some((a) => /^HIST(?:FILE)?SIZE=0$/.test(a))),
  },
  {
    key: "mkfs",
    description: "creating a filesystem (mkfs), which erases its target",
    class: "disk",
    test: (c) => /^(?:mkfs(?:\.\w+)?|mke2fs|mkswap|mkntfs|mkdosfs|newfs(?:_\w+)?)$/.test(c.name),
  },
  {
    key: "dd_device_other",
    description: "dd writing to a device file",
    class: "disk",
    programs: ["dd"],
    test: (c) => c.args.some((a) => /^of=\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(a)),
  },
  {
    key: "partition_table",
    description: "changing a disk's partition table (fdisk, parted, sfdisk, gdisk)",
    class: "disk",
    programs: ["fdisk", "sfdisk", "parted", "gdisk", "sgdisk", "cfdisk", "diskutil"],
    test: (c) => {
      if (c.name === "diskutil")
        return /\b(?:erase\w*|partitionDisk|zeroDisk|randomDisk|secureErase)\b/.test(c.text);
      if (hasFlag(c.args, "l", "list") || c.args.includes("print") || hasFlag(c.args, "p", "print"))
        return false;
      return operands(c.args).some((a) => a.startsWith("/dev/"));
    },
  },
  {
    key: "volume_destroy",
    description: "destroying a volume, pool or encrypted container (lvremove, zpool destroy, luksFormat)",
    class: "disk",
    test: /^(?:lvremove|vgremove|pvremove|zpool (?:destroy|labelclear)|zfs destroy|mdadm .*--zero-superblock|cryptsetup (?:luksFormat|erase|luksErase)|btrfs subvolume delete)\b/,
  },
  {
    key: "wipe_signatures",
    description: "erasing filesystem signatures or data blocks (wipefs, shred on a device)",
    class: "disk",
    programs: ["wipefs", "blkdiscard"],
    test: () => true,
  },
  {
    key: "chmod_recursive_system",
    description: "recursive chmod/chown/chgrp on / or a system folder",
    class: "permissions",
    programs: ["chmod", "chown", "chgrp", "setfacl"],
    test: (c) =>
      hasFlag(c.args, "R", "recursive") &&
      operands(c.args).some(
        (t) => ROOT_TARGET.test(normPath(t)) || isSystemTopLevel(t) || HOME_TARGET.test(t),
      ),
  },
  {
    key: "chmod_777_recursive",
    description: "chmod -R 777 (makes a whole tree world-writable)",
    class: "permissions",
    programs: ["chmod"],
    test: (c) => hasFlag(c.args, "R", "recursive") && isWorldWritableMode(operands(c.args)[0] ?? ""),
  },
  {
    key: "chmod_system_file",
    description: "changing permissions or owner of system files (/etc/shadow, /usr/bin/...)",
    class: "permissions",
    programs: ["chmod", "chown", "chgrp", "chattr"],
    test: (c) =>
      operands(c.args)
        .slice(1)
        .some((t) => systemDirOf(t) !== undefined && !/^\/(?:home|var\/tmp)\//.test(t) && !isAppPath(t)),
  },
  {
    key: "chmod_recursive_lockout",
    description: "chmod -R 000 (removes every permission from a whole tree)",
    class: "permissions",
    programs: ["chmod"],
    test: (c) =>
      hasFlag(c.args, "R", "recursive") && /^0*$|^a?-rwx$|^ugo-rwx$/.test(operands(c.args)[0] ?? "x"),
  },
  {
    key: "chmod_home_secrets",
    description: "changing permissions of keys and credentials in the home folder (~/.ssh, ~/.gnupg, ~/.aws)",
    class: "permissions",
    programs: ["chmod", "chown", "chgrp"],
    test: (c) =>
      operands(c.args)
        .slice(1)
        .some((t) => /^(?:~|\$HOME)\/\.(?:ssh|gnupg|aws)(?:\/|$)/.test(t)) &&
      !/^(?:0?[67]00|0?[46]00|go-rwx|og-rwx)$/.test(operands(c.args)[0] ?? ""),
  },
  {
    key: "setuid_bit",
    description: "setting the setuid/setgid bit (runs a program with its owner's rights)",
    class: "permissions",
    programs: ["chmod"],
    test: (c) => {
      const mode = operands(c.args)[0] ?? "";
      return /^[ug]*\+[rwx]*s/.test(mode) || /^[2-7][0-7]{3}$/.test(mode);
    },
  },
]);
