import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Pieces of the local backend's "persistent shell": which shell to use, the environment a command
 * starts from, and the wrapper script that restores and saves a task's cwd and exported variables
 * around each command.
 */

/** A name part that names a credential: *KEY(S), *TOKEN(S), *SECRET(S), *PASSWORD, *PASSWD, *AUTH, ... */
const SECRET_PART =
  /^(?:[A-Z0-9]*(?:KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASSWD|PASSPHRASE|CREDENTIALS?|CREDS|AUTH)|PASS|AUTHORIZATION)$/i;
const SECRET_PREFIX = /^(?:ANTHROPIC|OPENAI|OPENROUTER)_/i;
/** Credential-looking names that hold no secret and that tools need (ssh-agent's socket path). */
const NOT_SECRET: ReadonlySet<string> = new Set(["SSH_AUTH_SOCK"]);

/**
 * True for variable names that look like credentials (so the model cannot `echo $OPENAI_API_KEY`):
 * a `_`-separated part ending in KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL(S),
 * CREDS or AUTH (case-insensitive), or a provider prefix. Parts, not substrings, so GIT_AUTHOR_NAME,
 * TOKENIZERS_PARALLELISM and KEYTIMEOUT stay visible; SSH_AUTH_SOCK is a socket path and stays too.
 */
export function isCredentialName(name: string): boolean {
  if (NOT_SECRET.has(name.toUpperCase())) return false;
  return SECRET_PREFIX.test(name) || name.split("_").some((part) => SECRET_PART.test(part));
}

/** Non-interactive defaults: no pagers, no colours, no prompts that would wait on a closed stdin. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  TERM: "dumb",
  NO_COLOR: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  DEBIAN_FRONTEND: "noninteractive",
  PYTHONUNBUFFERED: "1",
};

/**
 * The environment a task's first command starts from: `source` minus credential-shaped names
 * (unless listed in `passthrough`), plus the non-interactive defaults.
 */
export function buildBaseEnv(
  source: NodeJS.ProcessEnv,
  passthrough: readonly string[],
  home?: string,
): Record<string, string> {
  const allowed = new Set(passthrough);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (isCredentialName(name) && !allowed.has(name)) continue;
    if (name === "PWD" || name === "OLDPWD") continue;
    env[name] = value;
  }
  if (home) env.HOME = home;
  return { ...env, ...NON_INTERACTIVE_ENV };
}

/** Absolute path of an executable found on PATH, or undefined. */
export function findExecutable(
  name: string,
  pathVar: string | undefined = process.env.PATH,
): string | undefined {
  for (const dir of (pathVar ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let cachedShell: string | undefined;

/** Absolute path of `bash` on PATH, else `/bin/sh`. Cached for the process. */
export function findShell(): string {
  cachedShell ??= findExecutable("bash") ?? "/bin/sh";
  return cachedShell;
}

/** Single-quotes a string for POSIX shells. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface WrapperSpec {
  /** Directory the command starts in (also set as the shell's logical cwd, so `$PWD` is right). */
  cwd: string;
  /** The saved `export -p` snapshot, sourced before the command when present. */
  snapshot: string;
  /** The user's command, written verbatim; sourced so `cd`/`export` affect the saving shell. */
  command: string;
  /** Where this run saves `export -p` and `pwd` (adopted by the caller only after a clean exit). */
  envOut: string;
  cwdOut: string;
}

/**
 * The script given to `sh -c`. The command runs as written (heredocs, pipes, multi-line) because it
 * is sourced from a file; its status is returned as is. `exit N` inside it skips the save, which
 * leaves the task's state as it was. Per-command env is put back afterwards so it does not persist.
 */
export function buildWrapperScript(spec: WrapperSpec, extraEnv: Record<string, string> = {}): string {
  const overrides = envOverrides(extraEnv);
  const lines = [
    "exec 2>&1",
    `if [ -f ${shQuote(spec.snapshot)} ]; then . ${shQuote(spec.snapshot)} >/dev/null 2>&1; fi`,
    `cd ${shQuote(spec.cwd)} 2>/dev/null`,
    ...overrides.set,
    `. ${shQuote(spec.command)}`,
    "__hermes_status=$?",
    ...overrides.restore,
    `export -p > ${shQuote(spec.envOut)} 2>/dev/null`,
    `pwd > ${shQuote(spec.cwdOut)} 2>/dev/null`,
    'exit "$__hermes_status"',
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * Shell lines that export per-command variables (`set`) and put the previous values back
 * afterwards (`restore`), so they do not persist in the task's saved state. Invalid names are skipped.
 */
export function envOverrides(extraEnv: Record<string, string>): { set: string[]; restore: string[] } {
  const set: string[] = [];
  const restore: string[] = [];
  let i = 0;
  for (const [name, value] of Object.entries(extraEnv)) {
    if (!ENV_NAME.test(name)) continue;
    set.push(`__hermes_set${i}=\${${name}+x}; __hermes_val${i}=\${${name}-}`);
    set.push(`export ${name}=${shQuote(value)}`);
    restore.push(
      `if [ -n "$__hermes_set${i}" ]; then export ${name}="$__hermes_val${i}"; else unset ${name}; fi`,
    );
    i += 1;
  }
  return { set, restore };
}
