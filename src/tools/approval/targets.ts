import type { Command } from "./commands.js";
import { SUBSTITUTION } from "./shell-parse.js";

/** Classification of command arguments: devices, system folders, home, build artefacts. */

/** Top-level folders whose loss or corruption breaks the system. */
export const SYSTEM_DIRS: readonly string[] = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/snap",
  "/srv",
  "/sys",
  "/usr",
  "/var",
  "/System",
  "/Library",
  "/Applications",
  "/Users",
];

/**
 * Folders that builds and tools regenerate: a recursive delete of one of these (or of something
 * inside one), given as a relative path under the working directory, needs no approval.
 */
export const BUILD_ARTEFACTS: ReadonlySet<string> = new Set([
  "node_modules",
  "bower_components",
  "jspm_packages",
  "dist",
  "build",
  "out",
  "target",
  "coverage",
  "htmlcov",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".cache",
  ".parcel-cache",
  ".vite",
  ".angular",
  ".expo",
  ".docusaurus",
  ".output",
  ".nyc_output",
  ".sass-cache",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".hypothesis",
  ".ipynb_checkpoints",
  ".tox",
  ".nox",
  ".eggs",
  ".venv",
  "venv",
  ".gradle",
  ".dart_tool",
  ".build",
  "DerivedData",
]);

/** Files that package managers regenerate (deleted along with node_modules for a clean install). */
export const REGENERABLE_FILES: ReadonlySet<string> = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "Cargo.lock",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "composer.lock",
  "Gemfile.lock",
  ".coverage",
  "tsconfig.tsbuildinfo",
]);

/** Block devices: disks, partitions, RAID and mapper devices. */
const BLOCK_DEVICE =
  /^\/dev\/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+n\d+(?:p\d+)?|mmcblk\d+(?:p\d+)?|md\d+|dm-\d+|mapper\/\S+|disk\/\S+|disk\d+(?:s\d+)?|rdisk\d+|loop\d+)$/;

/** `/`, `//`, `/.`, `/*`. */
export const ROOT_TARGET = /^\/+(?:\.?\/*|\*)$/;
/** `~`, `~/`, `~/*`, `$HOME`, `$HOME/`, `$HOME/*`, `~root`. */
export const HOME_TARGET = /^(?:~[a-z_][a-z0-9_-]*|~|\$HOME)(?:\/+\.?|\/\*|\/\.\*)?$/;

export const isBlockDevice = (p: string): boolean => BLOCK_DEVICE.test(p.replace(/\/+$/, ""));

/** Collapses `//` and a trailing `/` (`/etc/` → `/etc`); keeps a lone `/`. */
export function normPath(p: string): string {
  const collapsed = p.replace(/\/{2,}/g, "/").replace(/\/\.(?=\/|$)/g, "");
  return collapsed.length > 1 ? collapsed.replace(/\/+$/, "") : collapsed;
}

/** The system folder `p` is (or is inside), else undefined. */
export function systemDirOf(p: string): string | undefined {
  const n = normPath(p.replace(/\/\*$/, ""));
  return SYSTEM_DIRS.find((d) => n === d || n.startsWith(`${d}/`));
}

/** True for a system folder itself or its direct child (`/etc`, `/usr/*`, `/usr/lib`). */
export function isSystemTopLevel(p: string): boolean {
  const n = normPath(p.replace(/\/\*$/, ""));
  return SYSTEM_DIRS.some((d) => n === d || (n.startsWith(`${d}/`) && !n.slice(d.length + 1).includes("/")));
}

const isGlobOnly = (c: string): boolean => /^[*?.[\]]+$/.test(c);

/**
 * A target whose recursive delete is everyday work: a relative path (no `..`) through a build or
 * cache folder (`node_modules`, `./dist/`, `pkg/build/*`), or a named path under /tmp.
 */
export function isEverydayDeleteTarget(target: string): boolean {
  if (target.includes(SUBSTITUTION) || target === "") return false;
  const tmp = /^(?:\/tmp|\/var\/tmp|\$TMPDIR)\/+(.+)$/.exec(target);
  if (tmp) {
    const first = tmp[1]!.split("/")[0]!;
    return !isGlobOnly(first) && !tmp[1]!.split("/").includes("..");
  }
  if (target.startsWith("/") || target.startsWith("~") || target.startsWith("$") || target.startsWith("-"))
    return false;
  const parts = target.split("/").filter((c) => c !== "" && c !== ".");
  if (parts.length === 0 || parts.includes("..")) return false;
  if (parts.length === 1 && REGENERABLE_FILES.has(parts[0]!)) return true;
  return parts.some((c) => BUILD_ARTEFACTS.has(c) || c.endsWith(".egg-info"));
}

/** Non-option arguments (everything after `--` counts). */
export function operands(args: readonly string[]): string[] {
  const out: string[] = [];
  let opts = true;
  for (const a of args) {
    if (opts && a === "--") opts = false;
    else if (opts && a.startsWith("-") && a !== "-") continue;
    else out.push(a);
  }
  return out;
}

/** rm's recursive flag in any spelling: -r, -R, -rf, -fR, --recursive. */
export function rmIsRecursive(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === "--") break;
    if (a === "--recursive") return true;
    if (/^-[a-zA-Z]+$/.test(a) && /[rR]/.test(a)) return true;
  }
  return false;
}

/** Short and long option check: `has(args, "f", "force")` matches -f, -rf, --force. */
export function hasFlag(args: readonly string[], short: string, long?: string): boolean {
  for (const a of args) {
    if (a === "--") break;
    if (long && (a === `--${long}` || a.startsWith(`--${long}=`))) return true;
    if (short && /^-[a-zA-Z0-9]+$/.test(a) && a.includes(short)) return true;
  }
  return false;
}

/** Files a command writes through `>`/`>>` redirections. */
export const redirectTargets = (cmd: Command): string[] =>
  cmd.redirects.filter((r) => r.op === ">" || r.op === ">>").map((r) => r.target);

/** Streams that are not files: writing to them changes nothing on disk. */
export const isHarmlessSink = (p: string): boolean =>
  /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+|zero|pts\/\d+)$/.test(p) || p === "-";

/** find's start paths: after its leading -H/-L/-P/-O/-D options, before the first expression. */
export function findStartPaths(args: readonly string[]): string[] {
  let i = 0;
  while (i < args.length && /^-(?:[HLP]+|O\d*|D)$/.test(args[i]!)) i += args[i] === "-D" ? 2 : 1;
  const paths: string[] = [];
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith("-") || a === "(" || a === "!") break;
    paths.push(a);
  }
  return paths.length > 0 ? paths : ["."];
}
