import type { Command } from "./commands.js";
import type { CommandPattern } from "./types.js";

/**
 * Abbreviated long options. GNU getopt, git and curl accept any unambiguous prefix of a long
 * option (`rm --recurs`, `git reset --har`, `git push --forc`), so every rule that tests a long
 * option must see through it. Programs are listed with the long options they really have, which
 * is what makes a prefix unambiguous.
 */

const words = (s: string): readonly string[] => s.split(" ");

const COREUTILS_OWNER = words(
  "changes dereference no-dereference from no-preserve-root preserve-root quiet silent reference recursive verbose help version",
);

/** Long options of the programs whose options the rules test. */
const PROGRAM_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rm: words(
    "force interactive one-file-system no-preserve-root preserve-root recursive dir verbose help version",
  ),
  chmod: words(
    "changes quiet silent verbose no-preserve-root preserve-root reference recursive help version",
  ),
  chown: COREUTILS_OWNER,
  chgrp: COREUTILS_OWNER,
  cp: words(
    "archive attributes-only backup copy-contents debug dereference force interactive link no-dereference no-clobber no-preserve no-target-directory one-file-system parents preserve recursive reflink remove-destination sparse strip-trailing-slashes suffix symbolic-link target-directory update verbose context help version",
  ),
  mv: words(
    "backup debug exchange force interactive no-clobber no-copy no-target-directory strip-trailing-slashes suffix target-directory update verbose context help version",
  ),
  install: words(
    "backup compare debug directory group mode owner preserve-timestamps preserve-context strip strip-program suffix target-directory no-target-directory verbose context help version",
  ),
  ln: words(
    "backup directory force interactive logical no-dereference physical relative symbolic suffix target-directory no-target-directory verbose help version",
  ),
  sed: words(
    "quiet silent debug expression file follow-symlinks in-place line-length null-data posix regexp-extended separate sandbox unbuffered zero-terminated help version",
  ),
  tee: words("append ignore-interrupts output-error help version"),
  truncate: words("no-create io-blocks reference size help version"),
  shred: words("force iterations random-source remove size verbose exact zero help version"),
  sudo: words(
    "askpass background bell chdir close-from chroot command-timeout edit group help host list login non-interactive other-user preserve-env preserve-groups prompt remove-timestamp reset-timestamp role set-home shell stdin type user validate version",
  ),
  umount: words(
    "all all-targets no-canonicalize detach-loop fake force internal-only no-mtab lazy test-opts recursive read-only types verbose quiet help version",
  ),
  swapoff: words("all verbose help version"),
  wipefs: words(
    "all backup force no-act noheadings json output parsable quiet types offset lock help version",
  ),
  sgdisk: words("zap zap-all clear delete new print list-types verify help version"),
  base64: words("decode ignore-garbage wrap help version"),
  tar: words(
    "directory extract create list append update delete file gzip bzip2 xz zstd verbose overwrite keep-old-files to-stdout absolute-names",
  ),
  curl: words(
    "output output-dir remote-name resolve connect-to silent location verbose insecure data header",
  ),
  wget: words("output-document output-file quiet verbose directory-prefix"),
  iptables: words(
    "append check delete insert replace list list-rules flush zero new-chain delete-chain policy rename-chain table jump goto protocol source destination in-interface out-interface verbose numeric exact line-numbers modprobe wait fragment set-counters match ipv4 ipv6 help version",
  ),
};

/** git's options by subcommand (git takes unambiguous prefixes too). */
const GIT_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  push: words(
    "all branches mirror delete tags dry-run porcelain force force-with-lease force-if-includes no-force-with-lease no-force-if-includes repo set-upstream thin no-thin quiet verbose progress prune no-verify verify follow-tags signed no-signed atomic no-atomic push-option receive-pack exec ipv4 ipv6 recurse-submodules no-recurse-submodules",
  ),
  reset: words(
    "soft mixed hard merge keep quiet no-quiet refresh no-refresh recurse-submodules no-recurse-submodules pathspec-from-file pathspec-file-nul intent-to-add patch",
  ),
  clean: words("dry-run force interactive quiet exclude"),
  checkout: words(
    "quiet progress no-progress force ours theirs track no-track guess no-guess detach orphan ignore-skip-worktree-bits merge conflict patch ignore-other-worktrees overwrite-ignore no-overwrite-ignore recurse-submodules no-recurse-submodules overlay no-overlay pathspec-from-file pathspec-file-nul",
  ),
  restore: words(
    "source patch worktree staged quiet progress no-progress ours theirs merge conflict ignore-unmerged ignore-skip-worktree-bits recurse-submodules no-recurse-submodules overlay no-overlay pathspec-from-file pathspec-file-nul",
  ),
  branch: words(
    "delete force create-reflog move copy color no-color list show-current verbose quiet abbrev no-abbrev column no-column sort merged no-merged contains no-contains points-at format remotes all track no-track set-upstream-to unset-upstream edit-description ignore-case omit-empty recurse-submodules",
  ),
  gc: words("aggressive auto cruft max-cruft-size prune no-prune quiet force keep-largest-pack"),
  reflog: words("expire expire-unreachable rewrite updateref stale-fix all single-worktree dry-run verbose"),
};

/** git options that come before the subcommand; the ones listed here take a separate value. */
const GIT_GLOBAL_WITH_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
]);

/**
 * The option an abbreviated `--name` stands for among `known`, else undefined. An exact name wins;
 * a prefix needs at least `minPrefix` characters (3 by default: short prefixes of programs whose
 * option lists are incomplete here would misread) and must be unambiguous, except that a prefix
 * of several longer spellings of one option (`--forc`: force, force-with-lease) counts as the
 * shortest.
 */
export function resolveLong(name: string, known: readonly string[], minPrefix = 3): string | undefined {
  if (known.includes(name)) return name;
  if (name.length < Math.max(1, minPrefix)) return undefined;
  const candidates = known.filter((k) => k.startsWith(name));
  if (candidates.length === 0) return undefined;
  const shortest = candidates.reduce((a, b) => (b.length < a.length ? b : a));
  return candidates.every((k) => k.startsWith(shortest)) ? shortest : undefined;
}

/** The long options `c`'s program is known to take (git: its subcommand's). */
function optionsOf(name: string, args: readonly string[]): readonly string[] | undefined {
  return name === "git" ? GIT_OPTIONS[args[0] ?? ""] : PROGRAM_OPTIONS[name];
}

/** git's arguments without the global options before the subcommand (`git -C dir push` → `push`). */
function gitSubcommandArgs(args: readonly string[]): readonly string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") {
    i += GIT_GLOBAL_WITH_VALUE.has(args[i]!) ? 2 : 1;
  }
  return i === 0 ? args : args.slice(i);
}

/** Rewrites abbreviated long options to their full names; other words are kept. */
export function expandLongOptions(name: string, input: readonly string[]): readonly string[] {
  const args = name === "git" ? gitSubcommandArgs(input) : input;
  const known = optionsOf(name, args);
  if (!known) return args;
  let out: string[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    const m = /^--([a-z0-9][a-z0-9-]*)(=.*)?$/.exec(a);
    if (!m) continue;
    const full = resolveLong(m[1]!, known);
    if (full === undefined || full === m[1]) continue;
    out ??= [...args];
    out[i] = `--${full}${m[2] ?? ""}`;
  }
  return out ?? args;
}

const expanded = new WeakMap<Command, Command>();

/** `c` with abbreviated long options spelled out (and git's global options dropped); `c` itself when nothing changes. */
export function withFullOptions(c: Command): Command {
  const hit = expanded.get(c);
  if (hit) return hit;
  const args = expandLongOptions(c.name, c.args);
  let out = c;
  if (args !== c.args) {
    const text = [c.name, ...args, ...c.redirects.map((r) => `${r.op} ${r.target}`)]
      .filter((w) => w !== "")
      .join(" ");
    out = { ...c, args: [...args], text };
  }
  expanded.set(c, out);
  return out;
}

/**
 * Makes every rule in `patterns` test the command as the program reads it: long options spelled
 * out, git's global options dropped (so `git restore --stag` is `--staged`, not a path restore).
 */
export function abbreviationAware(patterns: readonly CommandPattern[]): CommandPattern[] {
  return patterns.map((p) => {
    const test = p.test;
    if (!test) return p;
    const run = typeof test === "function" ? test : (c: Command) => test.test(c.text);
    // Only programs whose options are listed can read differently once spelled out.
    return {
      ...p,
      test: (c: Command) =>
        run(c.name === "git" || Object.hasOwn(PROGRAM_OPTIONS, c.name) ? withFullOptions(c) : c),
    };
  });
}
