import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

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
  };
}

export type HomePaths = ReturnType<typeof homePaths>;

/** Creates the home and its standard folders on first run. Idempotent and cheap when present. */
export function ensureHermesHome(home: string): HomePaths {
  const paths = homePaths(home);
  if (!existsSync(paths.logs)) {
    for (const dir of [home, paths.logs, paths.memories, paths.skills, paths.sessions, paths.cache]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
    try {
      chmodSync(home, 0o700);
    } catch {
      // A home on a filesystem without modes is still usable.
    }
  }
  return paths;
}
