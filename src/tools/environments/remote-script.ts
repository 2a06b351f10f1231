import { randomBytes } from "node:crypto";
import { envOverrides, NON_INTERACTIVE_ENV, shQuote } from "./shell-state.js";

/**
 * POSIX sh scripts that give a remote backend (ssh, docker) the local backend's behaviour: a
 * private state dir, cwd and exported variables that persist between commands, one process group
 * per command that a second connection can kill. Every script runs under `sh -c` on the far side.
 */

/** Facts the bootstrap script prints, one per line, in this order. */
export interface RemoteFacts {
  stateDir: string;
  os: string;
  user: string;
  home: string;
  cwd: string;
  /** bash when the remote has it, else /bin/sh. */
  shell: string;
  /** `setsid -w` works: each command gets its own session and process group. */
  setsid: boolean;
}

/** Creates the state dir (mode 0700) and probes the remote: `uname -sr; whoami; $HOME; pwd`. */
export const BOOTSTRAP_SCRIPT = [
  "umask 077",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
  'd=$(mktemp -d "${TMPDIR:-/tmp}/hermes-shell-XXXXXX") || exit 1',
  'mkdir -p "$d/output" || exit 1',
  "printf '%s\\n' \"$d\"",
  "uname -sr",
  "whoami 2>/dev/null || id -un",
  "printf '%s\\n' \"$HOME\"",
  "pwd",
  "command -v bash 2>/dev/null || echo /bin/sh",
  "if setsid -w true >/dev/null 2>&1; then echo setsid; else echo no-setsid; fi",
].join("\n");

export function parseBootstrap(stdout: string): RemoteFacts | undefined {
  const lines = stdout.split("\n");
  if (lines.length < 7) return undefined;
  const [stateDir, os, user, home, cwd, shell, setsid] = lines.map((l) => l.trim());
  if (!stateDir?.startsWith("/")) return undefined;
  return {
    stateDir,
    os: os ?? "",
    user: user ?? "",
    home: home || "/",
    cwd: cwd || "/",
    shell: shell || "/bin/sh",
    setsid: setsid === "setsid",
  };
}

/** Files of one command inside the state dir. */
const files = (stateDir: string, id: number) => ({
  run: `${stateDir}/run-${id}.sh`,
  command: `${stateDir}/cmd-${id}.sh`,
  pgid: `${stateDir}/pgid-${id}`,
  envOut: `${stateDir}/env-${id}.sh`,
  snapshot: `${stateDir}/env.sh`,
});

/**
 * The remote command line of one run: saves the script arriving on stdin, then runs it in a new
 * session with stdin at /dev/null, so the command cannot read the connection.
 */
export function launchCommand(facts: RemoteFacts, id: number): string {
  const f = files(facts.stateDir, id);
  const runner = facts.setsid ? `setsid -w ${shQuote(facts.shell)}` : shQuote(facts.shell);
  return `umask 077; cat > ${shQuote(f.run)} && exec ${runner} ${shQuote(f.run)} </dev/null`;
}

export interface RemoteRunSpec {
  id: number;
  command: string;
  /** Absolute remote directory to run in. */
  cwd: string;
  /** Where to go when `cwd` has vanished (the task's cwd only; a missing workdir is an error). */
  fallbackCwd?: string;
  env?: Record<string, string>;
}

/**
 * The line a run prints on stderr when its command has finished: `<prefix><status> <cwd>`. Unique
 * per run. It tells the command's end even while a background child keeps stdout open.
 */
export interface RunMarker {
  prefix: string;
}

export function newMarker(): RunMarker {
  return { prefix: `\u001eHERMES-${randomBytes(6).toString("hex")} done ` };
}

/** Parses a marker line's payload: `<status> <cwd>`. */
export function parseMarker(payload: string): { status: number; cwd: string } | undefined {
  const m = /^(\d+) (.*)$/.exec(payload);
  return m ? { status: Number(m[1]), cwd: m[2]! } : undefined;
}

/**
 * The script a run sends on stdin. The command is written verbatim through a quoted heredoc and
 * sourced, so heredocs, pipes and `cd`/`export` work as they do locally. Output and errors go to
 * stdout; fd 3 (the connection's stderr) carries only the final marker. The group id file stays
 * behind so that clean-up can kill what the command left running in the background.
 */
export function buildRemoteRunScript(facts: RemoteFacts, spec: RemoteRunSpec, marker: RunMarker): string {
  const f = files(facts.stateDir, spec.id);
  const q = shQuote;
  let delimiter = `__HERMES_EOF_${randomBytes(8).toString("hex")}`;
  while (spec.command.includes(delimiter)) delimiter = `__HERMES_EOF_${randomBytes(8).toString("hex")}`;
  const body = spec.command.endsWith("\n") ? spec.command : `${spec.command}\n`;
  const defaults = Object.entries(NON_INTERACTIVE_ENV)
    .map(([k, v]) => `${k}=${q(v)}`)
    .join(" ");
  const onMissing =
    spec.fallbackCwd === undefined
      ? [`  echo "workdir does not exist or is not a directory: "${q(spec.cwd)}`, "  exit 1"]
      : [
          `  echo "[hermes: working directory "${q(spec.cwd)}" no longer exists; running in "${q(spec.fallbackCwd)}"]"`,
          `  cd ${q(spec.fallbackCwd)} 2>/dev/null || cd`,
        ];
  const overrides = envOverrides(spec.env ?? {});
  return [
    "exec 3>&2 2>&1",
    `trap "rm -f ${q(f.run)} ${q(f.command)}" EXIT`,
    `echo $$ > ${q(f.pgid)}`,
    `cat > ${q(f.command)} <<'${delimiter}'`,
    `${body}${delimiter}`,
    `if [ -f ${q(f.snapshot)} ]; then . ${q(f.snapshot)} >/dev/null 2>&1; else export ${defaults}; fi`,
    `if ! cd ${q(spec.cwd)} 2>/dev/null; then`,
    ...onMissing,
    "fi",
    ...overrides.set,
    `. ${q(f.command)} 3>&-`,
    "__hermes_status=$?",
    ...overrides.restore,
    `export -p > ${q(f.envOut)} 2>/dev/null && mv -f ${q(f.envOut)} ${q(f.snapshot)}`,
    `printf '%s%s %s\\n' ${q(marker.prefix)} "$__hermes_status" "$(pwd)" >&3`,
    'exit "$__hermes_status"',
    "",
  ].join("\n");
}

/**
 * Kills one run's process group from a second connection: SIGTERM, then SIGKILL if anything is
 * left after `graceS`. Waits briefly for the group id in case the run has only just started.
 */
export function buildKillScript(stateDir: string, id: number, graceS: number): string {
  const pgid = shQuote(files(stateDir, id).pgid);
  const ticks = Math.max(1, Math.round(graceS * 10));
  return [
    `i=0; while [ ! -s ${pgid} ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done`,
    `p=$(cat ${pgid} 2>/dev/null); [ -n "$p" ] || exit 0`,
    'kill -TERM "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || exit 0',
    `i=0; while kill -0 "-$p" 2>/dev/null && [ $i -lt ${ticks} ]; do sleep 0.1; i=$((i+1)); done`,
    'kill -KILL "-$p" 2>/dev/null; exit 0',
  ].join("\n");
}

/** Kills every group the task's commands left behind (SIGKILL) and removes the state dir. */
export function buildDisposeScript(stateDir: string): string {
  const dir = shQuote(stateDir);
  return [
    `for f in ${dir}/pgid-*; do p=$(cat "$f" 2>/dev/null) && [ -n "$p" ] && kill -KILL "-$p" 2>/dev/null; done`,
    `rm -rf ${dir}`,
    "exit 0",
  ].join("\n");
}

/** `stat` of one path: `missing`, or `<%F>|<size>|<mtime s>` (GNU and BusyBox stat). */
export const statScript = (path: string): string =>
  `[ -e ${shQuote(path)} ] || { echo missing; exit 0; }; stat -L -c '%F|%s|%Y' ${shQuote(path)}`;

/** Names in a directory (hidden ones included), NUL-separated. */
export const listScript = (path: string): string =>
  `cd ${shQuote(path)} || exit 1; for f in * .[!.]* ..?*; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\\0' "$f"; fi; done`;

export const readScript = (path: string): string => `cat ${shQuote(path)}`;

/** Writes stdin to `path`, creating parent folders. */
export const writeScript = (path: string, dir: string): string =>
  `mkdir -p ${shQuote(dir)} && cat > ${shQuote(path)}`;
