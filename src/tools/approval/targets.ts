import { type Command, SHELLS, splitCommands, stripWrappers } from "./commands.js";
import { resolveLong } from "./options.js";
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
  "/private/etc",
  "/private/var",
];

/** System folders that hold applications and data rather than the OS: their children are not system folders. */
const APP_DIRS: readonly string[] = ["/opt", "/srv"];

/** Inside /opt or /srv: an application's files, whose owner and mode are the application's business. */
export const isAppPath = (p: string): boolean => APP_DIRS.some((d) => normPath(p).startsWith(`${d}/`));

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

/** `/`, `//`, `/.`, `/*`, `/.*` (the hidden top-level folders, and `/.` and `/..` in older shells). */
export const ROOT_TARGET = /^\/+(?:\.?\/*|\.?\*)$/;
/** `~`, `~/`, `~/*`, `$HOME`, `$HOME/`, `$HOME/*`, `~root`. */
export const HOME_TARGET = /^(?:~[a-z_][a-z0-9_-]*|~|\$HOME)(?:\/+\.?|\/\*|\/\.\*)?$/;

export const isBlockDevice = (p: string): boolean => BLOCK_DEVICE.test(p.replace(/\/+$/, ""));

/** Collapses `//`, `/.` and a trailing `/` (`/etc/` → `/etc`); keeps a lone `/` (`/.` and `/./.` are `/`). */
export function normPath(p: string): string {
  const collapsed = p.replace(/\/{2,}/g, "/").replace(/\/\.(?=\/|$)/g, "");
  if (collapsed === "" && p.startsWith("/")) return "/";
  return collapsed.length > 1 ? collapsed.replace(/\/+$/, "") : collapsed;
}

/** The system folder `p` is (or is inside), else undefined. */
export function systemDirOf(p: string): string | undefined {
  const n = normPath(p.replace(/\/\*$/, ""));
  return SYSTEM_DIRS.find((d) => n === d || n.startsWith(`${d}/`));
}

/** True for a system folder itself or its direct child (`/etc`, `/usr/*`, `/usr/lib`; not `/opt/app`). */
export function isSystemTopLevel(p: string): boolean {
  const n = normPath(p.replace(/\/\*$/, ""));
  if (isAppPath(n)) return false;
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

/**
 * Non-option arguments (everything after `--` counts). Options named in `valueOpts` take the
 * next word as their value (`cp -t DIR`, `truncate -s 0`), which is then not an operand.
 */
export function operands(args: readonly string[], valueOpts?: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let opts = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (opts && a === "--") opts = false;
    else if (opts && a.startsWith("-") && a !== "-") {
      if (valueOpts?.has(a)) i += 1;
    } else out.push(a);
  }
  return out;
}

/** The value of option `short`/`long` (`-t DIR`, `-tDIR`, `--target-directory=DIR`, `--target-directory DIR`). */
export function optionValue(
  args: readonly string[],
  short: string | undefined,
  long?: string,
): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (short && a === short) return args[i + 1];
    if (short && a.startsWith(short) && !a.startsWith("--") && a.length > short.length)
      return a.slice(short.length);
    if (long && a.startsWith("--")) {
      const [name, value] = splitLong(a);
      if (resolveLong(name, [long]) !== long) continue;
      return value ?? args[i + 1];
    }
  }
  return undefined;
}

const splitLong = (a: string): [string, string | undefined] => {
  const eq = a.indexOf("=");
  return eq < 0 ? [a.slice(2), undefined] : [a.slice(2, eq), a.slice(eq + 1)];
};

/** rm's recursive flag in any spelling: -r, -R, -rf, -fR, --recursive, --recurs. */
export function rmIsRecursive(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === "--") break;
    if (a.startsWith("--") && resolveLong(splitLong(a)[0], ["recursive"]) === "recursive") return true;
    if (/^-[a-zA-Z]+$/.test(a) && /[rR]/.test(a)) return true;
  }
  return false;
}

/**
 * Short and long option check: `hasFlag(args, "f", "force")` matches -f, -rf, --force and an
 * abbreviation such as --forc. `known` lists the program's other long options, so that an
 * ambiguous prefix (`git branch --for`: force or format) does not count.
 */
export function hasFlag(
  args: readonly string[],
  short: string,
  long?: string,
  known?: readonly string[],
): boolean {
  for (const a of args) {
    if (a === "--") break;
    if (long && a.startsWith("--") && resolveLong(splitLong(a)[0], known ?? [long]) === long) return true;
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

/** The commands find runs per file: the words after -exec/-execdir/-ok/-okdir, up to `;` or `+`. */
export function findExecs(args: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(args[i]!)) continue;
    let j = i + 1;
    while (j < args.length && args[j] !== ";" && args[j] !== "+") j++;
    out.push(args.slice(i + 1, j));
    i = j;
  }
  return out;
}

const DELETE_PROGRAMS = /^(?:rm|shred|unlink|srm)$/;
const base = (w: string): string => w.slice(w.lastIndexOf("/") + 1);

/** True when one of find's -exec commands deletes (`-exec /bin/rm {} +`, `-exec sh -c 'rm "$1"' _ {} \;`). */
export function findExecDeletes(args: readonly string[]): boolean {
  return findExecs(args).some((exec) => {
    const { words } = stripWrappers(exec);
    const name = base(words[0] ?? "");
    if (DELETE_PROGRAMS.test(name)) return true;
    if (!SHELLS.has(name)) return false;
    const c = words.findIndex((w) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w));
    return c > 0 && splitCommands(words[c + 1] ?? "").some((cmd) => DELETE_PROGRAMS.test(cmd.name));
  });
}

const FIND_FILTERS = new Set(
  "-name -iname -path -ipath -wholename -regex -iregex -mtime -mmin -atime -amin -ctime -newer -size -empty".split(
    " ",
  ),
);

/** find narrows what it acts on by name, path, age or size. */
export const findIsFiltered = (args: readonly string[]): boolean => args.some((a) => FIND_FILTERS.has(a));

/** kill's PID operands: after `-s SIG`, `-n N`, `-SIG`/`-9` and `--`. */
export function killTargets(args: readonly string[]): string[] {
  let i = 0;
  if (args[0] === "-s" || args[0] === "-n") i = 2;
  else if (args.length > 1 && /^-(?:\d+|[A-Za-z][A-Za-z0-9+]*)$/.test(args[0]!)) i = 1;
  if (args[i] === "--") i += 1;
  return args.slice(i);
}

/** find deletes what it finds: -delete, or an -exec that deletes. */
export const findDeletes = (args: readonly string[]): boolean =>
  args.includes("-delete") || findExecDeletes(args);
