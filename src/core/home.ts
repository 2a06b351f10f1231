import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fingerprint } from "./fingerprint.js";

/**
 * HERMES_HOME resolution. Every path the program writes goes through here so that profiles stay
 * isolated: never build `~/.hermes/...` by hand anywhere else.
 */

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The root of all profiles: `~/.hermes` (independent of HERMES_HOME overrides). */
export function defaultHermesRoot(): string {
  return join(homedir(), ".hermes");
}

/** Home of a named profile: `~/.hermes/profiles/NAME`. Throws on names that could escape the folder. */
export function profileHome(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new Error(
      `Invalid profile name '${name}': use letters, digits, '.', '_' or '-' (at most 64 characters).`,
    );
  }
  return join(defaultHermesRoot(), "profiles", name);
}

/** HERMES_HOME if set, else `~/.hermes`. */
export function getHermesHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.HERMES_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : defaultHermesRoot();
}

/** Applies `-p NAME` before anything else reads HERMES_HOME. */
export function applyProfile(name: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (name) env.HERMES_HOME = profileHome(name);
}

/** Well-known paths inside a home. */
export function homePaths(home: string) {
  return {
    home,
    config: join(home, "config.yaml"),
    env: join(home, ".env"),
    soul: join(home, "SOUL.md"),
    auth: join(home, "auth.json"),
    stateDb: join(home, "state.db"),
    logs: join(home, "logs"),
    memories: join(home, "memories"),
    skills: join(home, "skills"),
    sessions: join(home, "sessions"),
    cache: join(home, "cache"),
    toolOutput: join(home, "cache", "tool-output"),
    trajectories: join(home, "trajectories"),
    processes: join(home, "processes.json"),
    /** What Hermes keeps per chat user of the gateway (their memory): `users/<platform>/<user id>/`. */
    users: join(home, "users"),
  };
}

export type HomePaths = ReturnType<typeof homePaths>;

const SAFE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

/**
 * A user id or platform name as one folder name. Ids that are already safe stay readable
 * (`telegram/42`); anything else (`@name`, an email, `../x`) is reduced to safe characters and
 * suffixed with a hash of the original, so two different ids never share a folder.
 */
export function folderSegment(raw: string): string {
  if (SAFE_SEGMENT.test(raw)) return raw;
  const readable = raw
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 48);
  return `${readable || "_"}-${fingerprint(raw).slice(0, 8)}`;
}

/** `<root>/<platform>/<user id>`, each part made a safe folder name (see `folderSegment`). */
export function userFolder(root: string, platform: string, userId: string): string {
  return join(root, folderSegment(platform), folderSegment(userId));
}

/**
 * What HERMES_HOME keeps for one chat user: `users/<platform>/<user id>/`, with their memory in
 * `memories/` and, unless gateway.workdir_root moves it, their working folder in `work/`.
 */
export function chatUserPaths(home: string, platform: string, userId: string) {
  const dir = userFolder(homePaths(home).users, platform, userId);
  return { dir, memories: join(dir, "memories"), work: join(dir, "work") };
}

/** HERMES_HOME cannot hold Hermes' files; the message names the path, what is wrong and the fix. */
export class HomeError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "HomeError";
  }
}

/**
 * Creates the home and its standard folders on first run. Idempotent and cheap when present.
 * Throws HomeError when the home cannot be created (a file in the way, no write permission).
 */
export function ensureHermesHome(home: string): HomePaths {
  const paths = homePaths(home);
  if (existsSync(paths.logs)) return paths;
  try {
    makeDirs(home);
    for (const dir of [paths.logs, paths.memories, paths.skills, paths.sessions, paths.cache]) {
      if (!existsSync(dir)) makeDir(dir);
    }
  } catch (err) {
    throw homeError(home, err);
  }
  try {
    chmodSync(home, 0o700);
  } catch {
    // A home on a filesystem without modes is still usable.
  }
  return paths;
}

/**
 * `mkdir -p`, one level at a time: a recursive mkdir spins on virtual filesystems (a path under
 * /proc) that answer ENOENT to every create, where this fails at once.
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  let cur = resolve(dir);
  while (!existsSync(cur)) {
    missing.push(cur);
    const parent = dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  for (const d of missing.reverse()) makeDir(d);
}

/** One mkdir; a folder another process created a moment ago is as good as our own. */
function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST" || !isFolder(dir)) throw err;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The first path from `path` up to the root that exists and is not a folder. */
function fileInTheWay(path: string): string | undefined {
  for (let cur = resolve(path); ; cur = dirname(cur)) {
    try {
      if (!statSync(cur).isDirectory()) return cur;
    } catch {
      // Missing: look at its parent.
    }
    if (dirname(cur) === cur) return undefined;
  }
}

function homeError(home: string, err: unknown): HomeError {
  const e = err as NodeJS.ErrnoException;
  const where = `HERMES_HOME (${home}) is not usable`;
  const file = fileInTheWay(e.path ?? home);
  if (file) {
    return new HomeError(
      `${where}: ${file} is a file, not a folder. Set HERMES_HOME to a folder, or move that file away.`,
      file,
    );
  }
  const path = e.path ?? home;
  const why =
    e.code === "EACCES" || e.code === "EPERM"
      ? "permission denied"
      : e.code === "EROFS"
        ? "read-only file system"
        : e.code === "ENOENT"
          ? "the file system does not allow it"
          : e.message;
  return new HomeError(
    `${where}: cannot create ${path} (${why}). Make ${dirname(path)} writable, or set HERMES_HOME to a folder you own.`,
    path,
  );
}
