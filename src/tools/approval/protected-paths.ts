import { posix } from "node:path";
import { absoluteOf, isUnder, linkFollower, resolveDots } from "./resolved-paths.js";
import { SUBSTITUTION } from "./shell-parse.js";
import { normPath, systemDirOf } from "./targets.js";

/**
 * Files whose change hands the model the keys: Hermes's own home (config.yaml holds the approval
 * mode, .env and auth.json the credentials), SSH keys and authorized_keys, ~/.netrc and the shell
 * start-up files that run on every login. Writing any of them is never allowed on the local
 * machine; reading them is. Paths arrive as commands spell them once `protectPaths` has rewritten
 * them: `~/...` for the home, `$HERMES_HOME/...` for the real HERMES_HOME.
 */

/** A home folder as it appears in a command (a regular-expression source). */
export const HOME = String.raw`(?:~[a-z_][\w-]*|~|\$HOME|/root|/var/root|/home/[^/]+|/Users/[^/]+)`;

const HERMES = new RegExp(String.raw`^(?:\$HERMES_HOME|${HOME}/\.hermes)(?:/|$)`);

const SHELL_STARTUP = new RegExp(
  String.raw`^${HOME}/(?:\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|zlogin|zlogout|kshrc|mkshrc|cshrc|tcshrc|login|xprofile|xinitrc|xsessionrc|pam_environment)|\.config/fish/(?:config\.fish|conf\.d(?:/.*)?)|\.config/environment\.d(?:/.*)?)$`,
);
const SYSTEM_STARTUP =
  /^(?:\/private)?\/etc\/(?:profile|profile\.d(?:\/.*)?|bash\.bashrc|bashrc|zshrc|zprofile|zshenv|zlogin|zlogout|zsh\/.+|environment|csh\.cshrc|csh\.login|fish\/.+)$/;
/** The ~/.ssh folder itself (something written into it), keys, authorized_keys, rc and environment. */
const SSH = new RegExp(
  String.raw`^${HOME}/\.ssh(?:/(?:authorized_keys2?|id_[^/]*|identity(?:\.pub)?|[^/]*\.pem|rc|environment))?$|^(?:/|~|\$HOME).*/\.ssh/authorized_keys2?$`,
);
const NETRC = new RegExp(`^${HOME}/[._]netrc$`);

/** Stand-ins a glob is tried against (`~/.b*rc` could be ~/.bashrc). */
const SAMPLES: readonly string[] = [
  "~/.hermes",
  "~/.hermes/config.yaml",
  "~/.hermes/.env",
  "~/.hermes/auth.json",
  "$HERMES_HOME/config.yaml",
  "$HERMES_HOME/.env",
  "$HERMES_HOME/auth.json",
  "~/.bashrc",
  "~/.bash_profile",
  "~/.bash_login",
  "~/.profile",
  "~/.zshrc",
  "~/.zprofile",
  "~/.zshenv",
  "~/.netrc",
  "~/.ssh",
  "~/.ssh/authorized_keys",
  "~/.ssh/id_rsa",
  "~/.ssh/id_ed25519",
  "/root/.bashrc",
  "/root/.ssh/authorized_keys",
  "/home/user/.bashrc",
  "/home/user/.ssh/authorized_keys",
  "/etc/profile",
  "/etc/bash.bashrc",
];

/** `normPath` plus `..` resolved (`~/x/../.bashrc` is `~/.bashrc`). */
export function cleanPath(p: string): string {
  const n = normPath(p);
  if (!n.includes("..")) return n;
  const parts = n.split("/");
  const out: string[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (part !== "..") out.push(part);
    // `/..` is `/`; a relative path keeps its leading `..`; `~/..` and `$HOME/..` stay as they are.
    else if (last === "" && out.length === 1) continue;
    else if (last === undefined || last === ".." || /^(?:~|\$)/.test(last)) out.push(part);
    else out.pop();
  }
  return out.join("/") || (n.startsWith("/") ? "/" : ".");
}

/** A shell glob (`*`, `?`, `[...]`, `[!...]`) as a regular expression over whole paths. May throw on a malformed class. */
export const globRegex = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]")
      .replace(/\[!/g, "[^")}$`,
  );

/**
 * Whether `path` passes `test` once cleaned, or is a glob that could name one of `samples` that
 * does (`~/.b*rc` could be `~/.bashrc`). Computed paths never match.
 */
export function pathMatches(
  path: string,
  test: (p: string) => boolean,
  samples: readonly string[] = SAMPLES,
): boolean {
  if (path === "" || path.includes(SUBSTITUTION)) return false;
  const p = cleanPath(path);
  if (test(p)) return true;
  if (!/[*?[]/.test(p)) return false;
  let re: RegExp;
  try {
    re = globRegex(p.replace(/^\$HOME(?=\/|$)/, "~"));
  } catch {
    return false;
  }
  return samples.some((s) => re.test(s) && test(s));
}

const matches = (path: string, test: (p: string) => boolean): boolean => pathMatches(path, test);

/** HERMES_HOME or anything in it, however it is spelled. */
export const isHermesPath = (path: string): boolean => matches(path, (p) => HERMES.test(p));

/** SSH keys and authorized_keys, ~/.netrc, shell start-up files. */
export const isLoginPath = (path: string): boolean =>
  matches(path, (p) => SHELL_STARTUP.test(p) || SYSTEM_STARTUP.test(p) || SSH.test(p) || NETRC.test(p));

export interface PathOptions {
  cwd?: string;
  home?: string;
  hermesHome?: string;
  /** A chat user's own folder in HERMES_HOME: paths resolving into it are ordinary files. */
  ownFolder?: string;
  /** Follow symbolic links (the paths are on this machine). */
  followLinks?: boolean;
}

/** Where `dir` is, as commands spell it after rewriting: `$HERMES_HOME/...`, `~/...` or as is. */
export function spelled(dir: string, home: string | undefined, hermes: string | undefined): string {
  const under = (p: string, root: string): boolean => p === root || p.startsWith(`${root}/`);
  if (hermes && under(dir, hermes)) return `$HERMES_HOME${dir.slice(hermes.length)}`;
  if (home && under(dir, home)) return `~${dir.slice(home.length)}`;
  return dir;
}

/** A word that names a path relative to the working directory (not an option, number or URL). */
const isRelative = (w: string): boolean =>
  w !== "" &&
  !/^[/~$-]/.test(w) &&
  !/^\d+$/.test(w) &&
  !w.includes("=") &&
  !w.includes("://") &&
  !w.includes(SUBSTITUTION);

/**
 * Wraps the path rewriter so that protected files keep a recognisable spelling: the real
 * HERMES_HOME becomes `$HERMES_HOME`, and a path is judged by where it really leads from the
 * working directory, `..` and (with `followLinks`) symbolic links followed: `../.hermes/config.yaml`
 * from `~/project` is `~/.hermes/config.yaml`. In HERMES_HOME or ~/.ssh every relative path is
 * anchored there; at `/` or the home, dotfiles, `*` and system folders are. A chat user's own
 * folder (`ownFolder`) is the exception inside HERMES_HOME: what resolves into it keeps an
 * ordinary relative spelling. `key=value` words (`of=...`, `--output=...`) and file references
 * (`@file`, `name=@file`) have their path rewritten too.
 */
export function protectPaths(
  opts: PathOptions,
  inner: ((word: string) => string) | undefined,
): ((word: string) => string) | undefined {
  const home = opts.home ? normPath(opts.home) : undefined;
  const hermes = opts.hermesHome ? normPath(opts.hermesHome) : undefined;
  const cwdPath = opts.cwd ? normPath(opts.cwd) : undefined;
  const cwd = cwdPath ? spelled(cwdPath, home, hermes) : undefined;
  const own = ownFolderOf(opts, hermes);
  const follow = opts.followLinks ? linkFollower() : undefined;
  const realOwn = own && follow ? follow(own) : own;
  // The roots a resolved path is spelled from: as given, and (links followed) as they really are.
  const spellings: [string | undefined, string | undefined][] = [[home, hermes]];
  if (follow) spellings.push([home && follow(home), hermes && follow(hermes)]);
  const protectedSpelling = (abs: string): string | undefined => {
    for (const [h, hh] of spellings) {
      const shown = spelled(abs, h, hh);
      if (isHermesPath(shown) || isLoginPath(shown)) return shown;
    }
    return undefined;
  };
  const cwdOwn = own !== undefined && cwdPath !== undefined && isUnder(resolveDots(cwdPath), own);
  const inside =
    cwd !== undefined && !cwdOwn && (isHermesPath(cwd) || /^(?:~|\$HOME)\/\.ssh(?:\/|$)/.test(cwd));
  const special = cwd === "/" || cwd === "~" || cwd === "$HOME";
  if (!hermes && !cwd && !inner) return undefined;
  const anchor = (w: string): string => {
    if (!cwd || !(inside || special) || !isRelative(w)) return w;
    const joined = cleanPath(cwd === "/" ? `/${w}` : `${cwd}/${w}`) || "/";
    if (inside) return joined;
    const wholeFolder = /^(?:\.\/)?\.?\*$/.test(w) || (cwd === "/" && /^\.\/?$/.test(w));
    const named =
      isHermesPath(joined) || isLoginPath(joined) || (cwd === "/" && systemDirOf(joined) !== undefined);
    return wholeFolder || named ? joined : w;
  };
  /** Where the word really leads, when that is protected or the user's own folder; else as anchored. */
  const judge = (w: string): string => {
    const abs = absoluteOf(w, { cwd: cwdPath, home, hermes });
    if (abs === undefined) return anchor(w);
    const real = follow ? follow(abs) : abs;
    // A link that stays in the user's own folder leads nowhere protected.
    const linked = real !== abs && !(realOwn && isUnder(real, realOwn)) ? protectedSpelling(real) : undefined;
    if (own !== undefined && isUnder(abs, own)) {
      // In the user's own folder, or linked out of it to somewhere that is not protected.
      if (linked) return linked;
      if (isRelative(w) || !cwdPath?.startsWith("/")) return w;
      return posix.relative(cwdPath, abs) || ".";
    }
    return protectedSpelling(abs) ?? linked ?? anchor(w);
  };
  const one = (word: string): string => {
    let w = inner ? inner(word) : word;
    if (hermes && (w === hermes || w.startsWith(`${hermes}/`))) w = `$HERMES_HOME${w.slice(hermes.length)}`;
    return judge(w);
  };
  return (word) => {
    // `of=PATH`, `--opt=PATH`, and curl's file references `@PATH`, `name=@PATH`, `name=<PATH`.
    const kv = /^(of=|--[a-z][\w-]*=|@|[\w.-]+=[@<])(.+)$/.exec(word);
    return kv ? `${kv[1]}${one(kv[2]!)}` : one(word);
  };
}

/** The own folder, when it is strictly inside HERMES_HOME (elsewhere nothing needs excepting). */
function ownFolderOf(opts: PathOptions, hermes: string | undefined): string | undefined {
  const own = opts.ownFolder ? normPath(opts.ownFolder) : undefined;
  return own && hermes && own.startsWith(`${hermes}/`) ? resolveDots(own) : undefined;
}
