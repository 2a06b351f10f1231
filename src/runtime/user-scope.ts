/**
 * Who a session works for. The CLI, cron and the API server work for the profile's owner: the
 * front end's folder, the profile's memory, the processes no chat user owns. Each chat user of the
 * gateway gets a scope of their own (gateway.user_workdirs, workdir_root, shared_memory,
 * admin_users): a working folder of their own, MEMORY.md and USER.md under HERMES_HOME/users, and
 * the background processes of their sessions. A user's folder is a separate starting point, not a
 * sandbox: commands still run as the same operating-system user.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { HermesConfig } from "../core/config.js";
import { defaultHermesRoot, homePaths, userFolder } from "../core/home.js";
import type { UserScope } from "../tools/context.js";
import type { EnvironmentProvider } from "../tools/environments/types.js";

export interface UserScopesOptions {
  config: HermesConfig;
  home: string;
  /** The front end's directory (a relative terminal.cwd is resolved against it). */
  cwd: string;
  /** The profile owner's environments (the runtime's). */
  environments: EnvironmentProvider;
  /** Environments whose tasks start in `workdir` (one provider per user with a folder of their own). */
  environmentsIn: (workdir: string) => EnvironmentProvider;
}

/** A chat user: a platform and their id on it. */
export interface ChatUser {
  platform: string;
  userId: string;
}

const expandHome = (path: string): string =>
  path === "~" ? homedir() : path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;

/** Backends whose tasks start in a folder of this machine (docker mounts it): a user's folder means something there. */
const FOLDER_BACKENDS = new Set(["local", "docker"]);

/** The scopes of one runtime: the owner's, and one per chat user, made on first use. */
export class UserScopes {
  /** The profile's owner. */
  readonly owner: UserScope;
  private readonly users = new Map<string, UserScope>();
  private readonly providers = new Map<string, EnvironmentProvider>();

  constructor(private readonly o: UserScopesOptions) {
    const terminalCwd = o.config.terminal.cwd;
    this.owner = {
      workdir: resolve(o.cwd, expandHome(terminalCwd)),
      memoryDir: homePaths(o.home).memories,
    };
  }

  /**
   * The scope of a chat user (made and its folder created on first use), or the owner's for an
   * admin user. Throws an Error naming the folder when it cannot be created.
   */
  of(user: ChatUser | undefined): UserScope {
    if (!user) return this.owner;
    const userKey = `${user.platform}:${user.userId}`;
    const g = this.o.config.gateway;
    if (g.admin_users.includes(userKey)) return this.owner;
    let scope = this.users.get(userKey);
    if (scope) return scope;
    const root = g.workdir_root.trim();
    const workdir = !g.user_workdirs
      ? this.owner.workdir
      : userFolder(
          root ? resolveRoot(root, this.o.cwd, this.o.home) : defaultWorkdirRoot(this.o.home),
          user.platform,
          user.userId,
        );
    if (workdir !== this.owner.workdir) makeFolder(workdir);
    const memoryDir = g.shared_memory
      ? this.owner.memoryDir
      : join(userFolder(homePaths(this.o.home).users, user.platform, user.userId), "memories");
    scope = { userKey, workdir, memoryDir };
    this.users.set(userKey, scope);
    return scope;
  }

  /** The environments a scope's sessions run in: the owner's, or ones starting in the user's folder. */
  environments(scope: UserScope): EnvironmentProvider {
    const backend = this.o.config.terminal.backend;
    if (scope.workdir === this.owner.workdir || !FOLDER_BACKENDS.has(backend)) return this.o.environments;
    let provider = this.providers.get(scope.workdir);
    if (!provider) {
      provider = this.o.environmentsIn(scope.workdir);
      this.providers.set(scope.workdir, provider);
    }
    return provider;
  }

  /** Disposes the users' environments (the owner's belong to the runtime). */
  async disposeAll(): Promise<void> {
    const all = [...this.providers.values()];
    this.providers.clear();
    await Promise.all(all.map((p) => p.disposeAll()));
  }
}

/**
 * Where the users' working folders go unless gateway.workdir_root says: beside HERMES_HOME, never in
 * it (the approval gate keeps commands from changing anything in HERMES_HOME). `~/.hermes` gives
 * `~/.hermes-users`, a profile `~/.hermes/profiles/NAME` gives `~/.hermes-users/profiles/NAME`,
 * any other home `<HERMES_HOME>-users`.
 */
export function defaultWorkdirRoot(home: string): string {
  const hermesRoot = defaultHermesRoot();
  const full = resolve(home);
  return within(full, hermesRoot) ? join(`${hermesRoot}-users`, relative(hermesRoot, full)) : `${full}-users`;
}

/** True when `path` is `dir` or inside it. */
const within = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === "" || !(rel.startsWith("..") || isAbsolute(rel));
};

/**
 * gateway.workdir_root with `~` expanded and a relative path taken from the front end's folder.
 * Throws when it is in HERMES_HOME: the approval gate refuses every change there.
 */
function resolveRoot(root: string, cwd: string, home: string): string {
  const resolved = resolve(cwd, expandHome(root));
  if (within(resolved, resolve(home)))
    throw new Error(
      `gateway.workdir_root (${resolved}) is inside HERMES_HOME, where commands may change nothing: ` +
        "choose a folder outside it.",
    );
  return resolved;
}

/** Creates a user's folder (mode 0700: other local accounts stay out). */
function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Error(
      `Cannot create the working folder ${dir} (${(err as Error).message}). ` +
        "Fix gateway.workdir_root or the folder's permissions, or set gateway.user_workdirs: false.",
    );
  }
}
