import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir, release, tmpdir, type, userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ensureDir } from "../../core/fs.js";
import { OutputCollector } from "./output-collector.js";
import { killHolders, outputEnds } from "./pipe-holders.js";
import { killGroup, terminateGroup, trackGroup, untrackGroup } from "./process-groups.js";
import { loadPty, type PtySpawn, PtyUnavailableError } from "./pty.js";
import { RunQueue } from "./run-queue.js";
import { perTaskProvider } from "./shared.js";
import { buildBaseEnv, buildWrapperScript, findShell, shQuote } from "./shell-state.js";
import { SpillWriter } from "./spill-writer.js";
import {
  fromChildProcess,
  fromPty,
  runResult,
  type Supervised,
  supervise,
  supervisedResult,
} from "./supervise.js";
import type {
  BackgroundSpec,
  EnvironmentProbe,
  EnvironmentProvider,
  ExecutionEnvironment,
  FileStat,
  RunOptions,
  RunResult,
} from "./types.js";

export interface LocalEnvironmentOptions {
  /** Starting directory of each task (`~` expanded, relative to the process cwd). */
  cwd: string;
  /** The user's home directory: expands `~` and becomes `$HOME` of commands. Default: os.homedir(). */
  home?: string;
  /** Credential-shaped variables that commands may still see (`terminal.env_passthrough`). */
  envPassthrough?: readonly string[];
  /** `tool_output.max_bytes`; up to twice this is kept from each end of a command's output. */
  maxOutputBytes?: number;
  /** Environment to inherit (default process.env). */
  sourceEnv?: NodeJS.ProcessEnv;
  /** Shell binary (default: bash on PATH, else /bin/sh). */
  shell?: string;
}

/** Grace between SIGTERM and SIGKILL of a command's process group. */
export const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long to wait for pipes held open by background children. */
const DRAIN_MS = 250;
/** After a kill, resolve this soon even if the shell has not died yet. */
const KILL_SETTLE_MS = 800;
const CLOSED = "This task's environment has been closed.";
/** How long dispose keeps killing what still holds a command's output. */
const LEFTOVER_WAIT_MS = 1_000;
/** What programs in a pseudo-terminal are told they talk to. */
const PTY_ENV = { TERM: "xterm-256color" };

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** Where a forked environment starts: its parent's cwd and saved variables (read at fork time). */
interface LocalSeed {
  cwd: string;
  snapshot: Promise<string | undefined>;
}

/**
 * Runs commands on this machine. Each command is a fresh `bash -c` in its own process group that
 * first restores the task's saved cwd and exported variables and saves them again afterwards, so
 * state persists while no process outlives its call (unless it was put in the background).
 * Commands run one at a time (see RunQueue); everything else never waits for them.
 */
export class LocalEnvironment implements ExecutionEnvironment {
  readonly backend = "local";
  private cwd: string;
  private readonly initialCwd: string;
  private readonly home: string;
  private readonly baseEnv: Record<string, string>;
  private readonly captureCap: number;
  private readonly shell: string;
  private stateDir: Promise<string> | undefined;
  private seq = 0;
  /** Process groups that may still have members (running commands, background leftovers). */
  private readonly groups = new Set<number>();
  /** Commands whose output is still held open, by leftovers that may have left their group. */
  private readonly openEnds = new Map<number, { ends: string[]; closed: Promise<void> }>();
  private readonly queue = new RunQueue();
  /** Aborted by dispose: waiting commands give up, nothing new starts. */
  private readonly closing = new AbortController();
  private seedSnapshot: Promise<string | undefined> | undefined;

  constructor(
    private readonly options: LocalEnvironmentOptions,
    seed?: LocalSeed,
  ) {
    this.home = options.home ?? homedir();
    this.initialCwd = resolve(expandHome(options.cwd || ".", this.home));
    this.cwd = seed?.cwd ?? this.initialCwd;
    this.seedSnapshot = seed?.snapshot;
    this.baseEnv = buildBaseEnv(options.sourceEnv ?? process.env, options.envPassthrough ?? [], options.home);
    this.captureCap = 2 * Math.max(1_000, options.maxOutputBytes ?? 50_000);
    this.shell = options.shell ?? findShell();
  }

  getCwd(): string {
    return this.cwd;
  }

  resolvePath(path: string): string {
    const expanded = expandHome(path.trim(), this.home);
    return isAbsolute(expanded) ? resolve(expanded) : resolve(this.cwd, expanded);
  }

  /**
   * A separate environment for a subagent: it starts in this one's cwd with its saved variables,
   * and from then on neither sees the other's `cd` or `export`.
   */
  fork(): LocalEnvironment {
    const snapshot = (async () => {
      const dir = await this.stateDir?.catch(() => undefined);
      return dir ? readFile(join(dir, "env.sh"), "utf8").catch(() => undefined) : undefined;
    })();
    return new LocalEnvironment(this.options, { cwd: this.cwd, snapshot });
  }

  async run(command: string, options: RunOptions): Promise<RunResult> {
    const interrupted = (): RunResult =>
      runResult(performance.now(), this.cwd, "", null, { interrupted: true });
    const closing = this.closing.signal;
    if (options.signal?.aborted || closing.aborted) return interrupted();
    const pty = options.pty ? await loadPty() : undefined;
    if (pty instanceof PtyUnavailableError) throw pty;
    const signal = options.signal ? AbortSignal.any([options.signal, closing]) : closing;
    const release = await this.queue.acquire(signal);
    if (!release) return interrupted();
    try {
      return await this.runNow(command, { ...options, signal }, pty);
    } finally {
      release();
    }
  }

  /** One command, with the queue held: restores the state, runs, and saves the state. */
  private async runNow(command: string, options: RunOptions, pty: PtySpawn | undefined): Promise<RunResult> {
    const started = performance.now();
    const result = (output: string, exitCode: number | null, extra: Partial<RunResult> = {}): RunResult =>
      runResult(started, this.cwd, output, exitCode, extra);
    const where = this.runDirectory(options.workdir);
    if ("error" in where) return result(where.error, 1);
    const dir = await this.ensureStateDir();
    const id = ++this.seq;
    const spec = {
      cwd: where.cwd,
      snapshot: join(dir, "env.sh"),
      command: join(dir, `cmd-${id}.sh`),
      envOut: join(dir, `env-${id}.sh`),
      cwdOut: join(dir, `cwd-${id}`),
    };
    await writeFile(spec.command, command.endsWith("\n") ? command : `${command}\n`, { mode: 0o600 });
    // With a snapshot the shell starts empty and the snapshot restores everything, so `unset` persists.
    const env = existsSync(spec.snapshot) ? {} : this.baseEnv;
    const spill = options.spillDir ? new SpillWriter(options.spillDir, "terminal") : undefined;
    const collector = new OutputCollector(this.captureCap, spill);
    if (where.note) collector.push(where.note);

    const extraEnv = pty ? { ...PTY_ENV, ...options.env } : options.env;
    const script = buildWrapperScript(spec, extraEnv);
    let proc: Supervised;
    if (pty) {
      const term = pty(this.shell, ["-c", script], { cwd: where.cwd, env });
      // The session leader's exit hangs up the terminal: nothing of the group is left to kill.
      term.onExit(() => this.forget(term.pid));
      proc = fromPty(term);
    } else {
      const child = spawn(this.shell, ["-c", script], {
        cwd: where.cwd,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout?.once("close", () => this.forget(child.pid));
      if (child.pid !== undefined) {
        const closed = new Promise<void>((resolveClose) => child.once("close", () => resolveClose()));
        this.openEnds.set(child.pid, { ends: outputEnds(child.pid), closed });
      }
      proc = fromChildProcess(child);
    }
    const pid = proc.pid;
    if (pid !== undefined) {
      this.groups.add(pid);
      trackGroup(pid);
    }
    const exec = await supervise(proc, collector, {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      kill: () => {
        if (pid !== undefined) terminateGroup(pid, KILL_GRACE_MS);
      },
      drainMs: DRAIN_MS,
      settleMs: KILL_SETTLE_MS,
    });
    if (exec.spawnError)
      collector.push(`hermes: failed to start ${this.shell}: ${exec.spawnError.message}\n`);

    if (!exec.killedBy) await this.adoptState(spec, options.workdir === undefined);
    await Promise.all(
      [spec.command, spec.envOut, spec.cwdOut].map((f) => rm(f, { force: true }).catch(() => undefined)),
    );
    return supervisedResult(started, this.cwd, collector, exec);
  }

  /** The directory a command runs in: `workdir`, else the task's cwd (or a fallback if it vanished). */
  private runDirectory(workdir: string | undefined): { cwd: string; note: string } | { error: string } {
    if (workdir !== undefined) {
      const cwd = this.resolvePath(workdir);
      if (!isDirectory(cwd)) return { error: `workdir does not exist or is not a directory: ${cwd}\n` };
      return { cwd, note: "" };
    }
    if (isDirectory(this.cwd)) return { cwd: this.cwd, note: "" };
    const fallback = isDirectory(this.initialCwd) ? this.initialCwd : this.home;
    const note = `[hermes: working directory ${this.cwd} no longer exists; running in ${fallback}]\n`;
    this.cwd = fallback;
    return { cwd: fallback, note };
  }

  /** A group whose leader is gone and whose pipes closed has nothing left worth killing at dispose. */
  private forget(pid: number | undefined): void {
    if (pid === undefined) return;
    this.groups.delete(pid);
    this.openEnds.delete(pid);
    untrackGroup(pid);
  }

  /**
   * Does not queue behind a running command: a server started meanwhile gets the state the last
   * finished command left (its snapshot is renamed into place whole, so it is never half-written).
   */
  async backgroundSpec(workdir?: string): Promise<BackgroundSpec> {
    if (this.closing.signal.aborted) throw new Error(CLOSED);
    const where = this.runDirectory(workdir);
    if ("error" in where) throw new Error(where.error.trim());
    const snapshot = join(await this.ensureStateDir(), "env.sh");
    const hasSnapshot = existsSync(snapshot);
    // The snapshot is read at once, so the task's state dir may go away while the process runs.
    const prelude = hasSnapshot ? `. ${shQuote(snapshot)} >/dev/null 2>&1\n` : "";
    return {
      shell: this.shell,
      prelude: `${prelude}cd ${shQuote(where.cwd)} 2>/dev/null\n`,
      cwd: where.cwd,
      // SHLVL >= 1 stops bash from sourcing ~/.bashrc because its stdin is a socket (rshd heuristic).
      env: { SHLVL: "1", ...(hasSnapshot ? { PATH: this.baseEnv.PATH ?? "/usr/bin:/bin" } : this.baseEnv) },
    };
  }

  /** Takes over the cwd and env the command saved; a command that exited early saved nothing. */
  private async adoptState(
    spec: { snapshot: string; envOut: string; cwdOut: string },
    updateCwd: boolean,
  ): Promise<void> {
    let cwd: string;
    try {
      cwd = (await readFile(spec.cwdOut, "utf8")).replace(/\n$/, "");
      await rename(spec.envOut, spec.snapshot);
    } catch {
      return;
    }
    if (updateCwd && cwd && isDirectory(cwd)) this.cwd = cwd;
  }

  private async ensureStateDir(): Promise<string> {
    const pending = this.stateDir;
    if (pending) {
      const current = await pending.catch(() => undefined);
      if (current && existsSync(current)) return current;
      if (this.stateDir !== pending) return this.ensureStateDir();
    }
    // Made after dispose, the directory would never be removed.
    if (this.closing.signal.aborted) throw new Error(CLOSED);
    // mkdtemp creates the directory with mode 0700: the snapshot may hold passthrough secrets.
    // The promise is shared so that concurrent first runs make one directory.
    const seed = this.seedSnapshot;
    this.seedSnapshot = undefined;
    this.stateDir = mkdtemp(join(tmpdir(), "hermes-shell-")).then(async (dir) => {
      const snapshot = await seed;
      if (snapshot !== undefined) await writeFile(join(dir, "env.sh"), snapshot, { mode: 0o600 });
      return dir;
    });
    return this.stateDir;
  }

  async readFile(path: string): Promise<Buffer> {
    return readFile(this.resolvePath(path));
  }

  async writeFile(path: string, data: string | Buffer): Promise<void> {
    const full = this.resolvePath(path);
    await ensureDir(dirname(full));
    await writeFile(full, data);
  }

  async stat(path: string): Promise<FileStat | undefined> {
    try {
      const s = await stat(this.resolvePath(path));
      return { isFile: s.isFile(), isDirectory: s.isDirectory(), size: s.size, mtimeMs: s.mtimeMs };
    } catch (err) {
      if (
        (err as NodeJS.ErrnoException).code === "ENOENT" ||
        (err as NodeJS.ErrnoException).code === "ENOTDIR"
      )
        return undefined;
      throw err;
    }
  }

  async listDir(path: string): Promise<string[]> {
    return (await readdir(this.resolvePath(path))).sort();
  }

  async probe(): Promise<EnvironmentProbe> {
    let user = process.env.USER ?? process.env.USERNAME ?? "";
    try {
      user = userInfo().username;
    } catch {
      // no passwd entry (containers): keep the env value
    }
    return { os: `${type()} ${release()}`, user, home: this.home, cwd: this.cwd };
  }

  /** Kills what the task's commands left running (their groups, and whatever still holds their output). */
  async dispose(): Promise<void> {
    this.closing.abort();
    for (const pid of this.groups) {
      killGroup(pid, "SIGKILL");
      untrackGroup(pid);
    }
    this.groups.clear();
    const open = [...this.openEnds.values()];
    this.openEnds.clear();
    await Promise.all(open.map((o) => killHolders(o.ends, o.closed, LEFTOVER_WAIT_MS)));
    const dir = await this.stateDir?.catch(() => undefined);
    this.stateDir = undefined;
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** One LocalEnvironment per task id, created on first use. */
export function createLocalEnvironmentProvider(options: LocalEnvironmentOptions): EnvironmentProvider {
  return perTaskProvider(() => new LocalEnvironment(options));
}
