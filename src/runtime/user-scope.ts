/**
 * Who a session works for. The CLI, cron and the API server's owner key work for the profile's
 * owner: the front end's folder, the profile's memory, the processes no chat user owns. Each chat
 * user of the gateway, and each named key of the API server (user `api:<name>`), gets a scope of
 * their own (gateway.user_workdirs, workdir_root, shared_memory, admin_users): a working folder of
 * their own (HERMES_HOME/users/<platform>/<user id>/work unless workdir_root says), MEMORY.md and
 * USER.md beside it, and the background processes of their sessions. A user's folder is a
 * separate starting point, not a sandbox: commands still run as the same operating-system user.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { HermesConfig } from "../core/config.js";
import { chatUserPaths, homePaths, userFolder } from "../core/home.js";
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
   * admin user. Throws an Error naming the folder when it cannot be created, or naming
   * gateway.workdir_root when that points at Hermes's own files.
   */
  of(user: ChatUser | undefined): UserScope {
    if (!user) return this.owner;
    const userKey = `${user.platform}:${user.userId}`;
    const g = this.o.config.gateway;
    if (g.admin_users.includes(userKey)) return this.owner;
    let scope = this.users.get(userKey);
    if (scope) return scope;
    const paths = chatUserPaths(this.o.home, user.platform, user.userId);
    const root = g.workdir_root.trim();
    const workRoot = root ? resolveRoot(root, this.o.cwd, this.o.home) : homePaths(this.o.home).users;
    const own = root ? userFolder(workRoot, user.platform, user.userId) : paths.work;
    const workdir = g.user_workdirs ? own : this.owner.workdir;
    if (g.user_workdirs) makeFolder(workdir);
    const memoryDir = g.shared_memory ? this.owner.memoryDir : paths.memories;
    scope = {
      userKey,
      workdir,
      memoryDir,
      own: { ...(g.user_workdirs ? { work: workdir } : {}), dir: paths.dir, workRoot },
    };
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

/** True when `path` is `dir` or inside it. */
const within = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === "" || !(rel.startsWith("..") || isAbsolute(rel));
};

/** What HERMES_HOME holds at its top: a working-folder root may not be (or be in) one of these. */
const HERMES_OWN = new Set([
  ...Object.values(homePaths("")).map((p) => p.split("/")[0]!),
  "profiles",
  "platforms",
  "plugins",
  "processes",
  "backups",
]);

/**
 * gateway.workdir_root with `~` expanded and a relative path taken from the front end's folder.
 * Inside HERMES_HOME it must be a folder of its own: not HERMES_HOME itself, nor in one of the
 * folders Hermes keeps there (users, memories, skills, ...), whose files the users' commands would
 * otherwise be let to change. Throws naming the key otherwise.
 */
function resolveRoot(root: string, cwd: string, home: string): string {
  const resolved = resolve(cwd, expandHome(root));
  const top = relative(resolve(home), resolved).split(sep)[0] ?? "";
  if (within(resolved, resolve(home)) && (top === "" || top.startsWith(".") || HERMES_OWN.has(top)))
    throw new Error(
      `gateway.workdir_root (${resolved}) would put the users' folders among Hermes's own files: ` +
        `choose a folder of its own (e.g. ${join(resolve(home), "workspaces")}), or leave it empty for ` +
        `${join(resolve(home), "users")}/<platform>/<user id>/work.`,
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
