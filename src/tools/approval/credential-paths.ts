import { HOME, pathMatches } from "./protected-paths.js";

/**
 * Files whose content is a credential: SSH private keys, cloud and tool credentials in the home
 * folder, `.netrc`, `.env` files anywhere, Hermes's own `.env` and `auth.json`, the password hash
 * file and a process's environment. Public halves and bookkeeping stay out (`*.pub`,
 * `known_hosts`, `authorized_keys`, `~/.ssh/config`), as do env templates (`.env.example`).
 * Paths are matched as commands spell them once the path rewriter has run: `~/...` for the
 * home, `$HERMES_HOME/...` for HERMES_HOME, relative paths for the working directory.
 */

const SSH_PUBLIC = /\.pub$|\/(?:known_hosts[^/]*|authorized_keys2?|config)$/;

const CREDENTIAL = new RegExp(
  [
    // the home folder itself: archiving or syncing it takes every key with it
    `^${HOME}$`,
    String.raw`^${HOME}/\.ssh(?:/.*)?$`,
    String.raw`^${HOME}/\.(?:aws|azure|gnupg|kube|password-store|docker)(?:/.*)?$`,
    String.raw`^${HOME}/\.config/(?:gcloud|gh|hub)(?:/.*)?$`,
    String.raw`^${HOME}/(?:[._]netrc|\.git-credentials|\.pgpass|\.pypirc|\.npmrc|\.my\.cnf)$`,
    String.raw`^(?:\$HERMES_HOME|${HOME}/\.hermes)(?:/(?:profiles/[^/]+/)?(?:\.env|auth\.json))?$`,
    String.raw`(?:^|/)\.env(?:rc|\.(?!(?:example|sample|template|dist|defaults|tpl)$)[\w.-]+)?$`,
    "^(?:/private)?/etc/g?shadow$",
    String.raw`^/proc/(?:self|\d+)/environ$`,
  ].join("|"),
);

/** What a glob is tried against: `~/.ssh/id_*` or `.env*` names a credential if it can match one of these. */
const SAMPLES: readonly string[] = [
  "~",
  "~/.ssh",
  "~/.ssh/id_rsa",
  "~/.ssh/id_ed25519",
  "~/.aws",
  "~/.aws/credentials",
  "~/.config/gcloud",
  "~/.config/gcloud/credentials.db",
  "~/.netrc",
  "~/.git-credentials",
  "~/.docker/config.json",
  "~/.kube/config",
  "~/.gnupg",
  "~/.hermes",
  "~/.hermes/.env",
  "~/.hermes/auth.json",
  "$HERMES_HOME/.env",
  "$HERMES_HOME/auth.json",
  ".env",
  ".env.local",
  ".envrc",
];

function isCredentialPathOnly(path: string): boolean {
  const p = path.startsWith("$HOME") ? `~${path.slice(5)}` : path;
  return CREDENTIAL.test(p) && !(/\/\.ssh\//.test(p) && SSH_PUBLIC.test(p));
}

/** True when `path` (a word of a command) names a credential file or a folder of them. Never throws. */
export const isCredentialPath = (path: string): boolean =>
  pathMatches(path.replace(/^\$\{HOME\}(?=\/|$)/, "$HOME"), isCredentialPathOnly, SAMPLES);
