import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { homePaths } from "../../../core/home.js";
import type { ToolContext, UserScope } from "../../context.js";

/**
 * What a chat user's file tools may reach. The profile's owner (CLI, cron, the API server, admin
 * users) is not limited here. A chat user reads and writes their own working folder; reads their
 * own folder under HERMES_HOME/users (their memory), their memory when it is the shared one, the
 * skills and the tools' spilled output; and reaches nothing else of HERMES_HOME (config.yaml,
 * .env, auth.json, state.db, other users' memory) nor any other user's working folder. Paths are
 * judged as given and, on the local backend, with symbolic links followed.
 */

export type FileAccess = "read" | "write";

/** A scope's folders, resolved once: as configured and with links followed. */
interface ScopeRoots {
  home: string[];
  work: string[];
  dir: string[];
  workRoot: string[];
  /** HERMES_HOME/users: every chat user's memory. */
  users: string[];
  readable: string[];
}

const rootsCache = new WeakMap<UserScope, Map<string, ScopeRoots>>();

const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
const inAny = (p: string, dirs: readonly string[]): boolean => dirs.some((d) => within(p, d));

/** The path and, when it differs, its real path (links followed), for a folder that may not exist yet. */
function bothSpellings(path: string): string[] {
  const full = resolve(path);
  try {
    const real = realpathSync.native(full);
    return real === full ? [full] : [full, real];
  } catch {
    return [full];
  }
}

function rootsOf(scope: UserScope, hermesHome: string): ScopeRoots | undefined {
  const own = scope.own;
  if (!own) return undefined;
  let byHome = rootsCache.get(scope);
  const cached = byHome?.get(hermesHome);
  if (cached) return cached;
  const paths = homePaths(hermesHome);
  const roots: ScopeRoots = {
    home: bothSpellings(hermesHome),
    work: own.work ? bothSpellings(own.work) : [],
    dir: bothSpellings(own.dir),
    workRoot: bothSpellings(own.workRoot),
    users: bothSpellings(paths.users),
    readable: [scope.memoryDir, paths.skills, paths.cache].flatMap(bothSpellings),
  };
  if (!byHome) {
    byHome = new Map();
    rootsCache.set(scope, byHome);
  }
  byHome.set(hermesHome, roots);
  return roots;
}

/** Why `path` is not this user's to read or write, or undefined when it is. */
function refusalOf(path: string, roots: ScopeRoots, access: FileAccess): string | undefined {
  if (inAny(path, roots.work)) return undefined;
  if ((inAny(path, roots.workRoot) || inAny(path, roots.users)) && !inAny(path, roots.dir))
    return "it belongs to another user of this gateway";
  if (!inAny(path, roots.home)) return undefined;
  if (access === "read")
    return inAny(path, roots.dir) || inAny(path, roots.readable)
      ? undefined
      : "Hermes's own files (HERMES_HOME) are not open to chat users";
  return inAny(path, roots.dir)
    ? "memory is changed with the memory tool"
    : "it is one of Hermes's own files (HERMES_HOME), which chat users cannot change";
}

/**
 * Why a chat user's file tool may not `access` `full` (an error text for the model), or undefined
 * when it may, or when the session is the owner's. `real` is `full` with links followed, when the
 * caller has it (one resolve per call); otherwise it is worked out here on the local backend.
 */
export async function scopeRefusal(
  ctx: ToolContext,
  full: string,
  access: FileAccess,
  real?: string,
): Promise<string | undefined> {
  const scope = ctx.scope;
  const roots = scope && rootsOf(scope, ctx.home);
  if (!scope || !roots) return undefined;
  const resolved = real ?? (ctx.env.backend === "local" ? await realpathOfNearest(full) : full);
  const reason =
    refusalOf(resolve(full), roots, access) ??
    (resolved !== full ? refusalOf(resolved, roots, access) : undefined);
  if (!reason) return undefined;
  const yours = scope.own?.work ? ` Your folder is ${scope.own.work}.` : "";
  return `Refusing to ${access} ${full}: ${reason}.${yours}`;
}

/**
 * Why a chat user may not search under `root`: it holds HERMES_HOME or the other users' folders
 * (a search of `~` or `/` would read them). Undefined for the owner and for narrower folders.
 */
export async function searchRootRefusal(ctx: ToolContext, root: string): Promise<string | undefined> {
  const scope = ctx.scope;
  const roots = scope && rootsOf(scope, ctx.home);
  if (!scope || !roots) return undefined;
  const direct = await scopeRefusal(ctx, root, "read");
  if (direct) return direct;
  const full = resolve(root);
  const covers = (dirs: readonly string[]): boolean => dirs.some((d) => d !== full && within(d, full));
  if (!covers(roots.home) && !covers(roots.workRoot) && !covers(roots.users)) return undefined;
  const yours = scope.own?.work ? `your folder (${scope.own.work}) or ` : "";
  return (
    `Refusing to search ${full}: it holds Hermes's own files or other users' folders. ` +
    `Search ${yours}a narrower folder.`
  );
}

/** realpath of the path, or of its nearest existing ancestor joined with the rest. */
export async function realpathOfNearest(path: string): Promise<string> {
  let cur = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(cur), ...rest.reverse());
    } catch {
      const parent = dirname(cur);
      if (parent === cur) return path;
      rest.push(basename(cur));
      cur = parent;
    }
  }
}
