/**
 * Who a session works for. The CLI, cron and the API server work for the profile's owner: the
 * front end's folder, the profile's memory, the processes no chat user owns. Each chat user of the
 * gateway gets a scope of their own (gateway.user_workdirs, workdir_root, shared_memory,
 * admin_users): a working folder under HERMES_HOME/users, their own MEMORY.md and USER.md, and the
 * background processes of their sessions. A user's folder is a separate starting point, not a
 * sandbox: commands still run as the same operating-system user.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { HermesConfig } from "../core/config.js";
import { homePaths, userFolder } from "../core/home.js";
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

/** A chat user: the platform and its id of them. */
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
    const folder = userFolder(homePaths(this.o.home).users, user.platform, user.userId);
    const root = g.workdir_root.trim();
    const workdir = !g.user_workdirs
      ? this.owner.workdir
      : root
        ? userFolder(resolveRoot(root, this.o.home), user.platform, user.userId)
        : join(folder, "work");
    if (workdir !== this.owner.workdir) makeFolder(workdir);
    scope = {
      userKey,
      workdir,
      memoryDir: g.shared_memory ? this.owner.memoryDir : join(folder, "memories"),
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

/** `~` expanded; a relative root is taken from HERMES_HOME. */
function resolveRoot(root: string, home: string): string {
  const expanded = expandHome(root);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(home, expanded);
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
