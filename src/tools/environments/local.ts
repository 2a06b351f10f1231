import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir, constants as osConstants, release, tmpdir, type, userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ensureDir } from "../../core/fs.js";
import { OutputCollector } from "./output-collector.js";
import { buildBaseEnv, buildWrapperScript, findShell } from "./shell-state.js";
import type {
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
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long to wait for pipes held open by background children. */
const DRAIN_MS = 250;
/** After a kill, resolve this soon even if the shell has not died yet. */
const KILL_SETTLE_MS = 800;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

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

interface Exec {
  exitCode: number | null;
  killedBy: "timeout" | "interrupt" | undefined;
}

/**
 * Runs commands on this machine. Each command is a fresh `bash -c` in its own process group that
 * first restores the task's saved cwd and exported variables and saves them again afterwards, so
 * state persists while no process outlives its call (unless it was put in the background).
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

  constructor(options: LocalEnvironmentOptions) {
    this.home = options.home ?? homedir();
    this.initialCwd = resolve(expandHome(options.cwd || ".", this.home));
    this.cwd = this.initialCwd;
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

  async run(command: string, options: RunOptions): Promise<RunResult> {
    const started = performance.now();
    const result = (output: string, exitCode: number | null, extra: Partial<RunResult> = {}): RunResult => ({
      output,
      exitCode,
      timedOut: false,
      interrupted: false,
      durationMs: Math.round(performance.now() - started),
      cwd: this.cwd,
      ...extra,
    });
    if (options.signal?.aborted) return result("", null, { interrupted: true });

    let note = "";
    let runCwd = this.cwd;
    if (options.workdir !== undefined) {
      runCwd = this.resolvePath(options.workdir);
      if (!isDirectory(runCwd)) return result(`workdir does not exist or is not a directory: ${runCwd}\n`, 1);
    } else if (!isDirectory(runCwd)) {
      const fallback = isDirectory(this.initialCwd) ? this.initialCwd : this.home;
      note = `[hermes: working directory ${runCwd} no longer exists; running in ${fallback}]\n`;
      this.cwd = fallback;
      runCwd = fallback;
    }

    const dir = await this.ensureStateDir();
    const id = ++this.seq;
    const spec = {
      cwd: runCwd,
      snapshot: join(dir, "env.sh"),
      command: join(dir, `cmd-${id}.sh`),
      envOut: join(dir, `env-${id}.sh`),
      cwdOut: join(dir, `cwd-${id}`),
    };
    await writeFile(spec.command, command.endsWith("\n") ? command : `${command}\n`, { mode: 0o600 });
    // With a snapshot the shell starts empty and the snapshot restores everything, so `unset` persists.
    const env = existsSync(spec.snapshot) ? {} : this.baseEnv;
    const collector = new OutputCollector(this.captureCap);
    if (note) collector.push(note);

    const child = spawn(this.shell, ["-c", buildWrapperScript(spec, options.env)], {
      cwd: runCwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exec = await this.supervise(child, collector, options);

    if (!exec.killedBy) await this.adoptState(spec, options.workdir === undefined);
    await Promise.all(
      [spec.command, spec.envOut, spec.cwdOut].map((f) => rm(f, { force: true }).catch(() => undefined)),
    );
    return result(collector.text(), exec.killedBy ? null : exec.exitCode, {
      timedOut: exec.killedBy === "timeout",
      interrupted: exec.killedBy === "interrupt",
    });
  }

  /** Waits for the command, enforcing the timeout and the abort signal by killing its process group. */
  private supervise(child: ChildProcess, collector: OutputCollector, options: RunOptions): Promise<Exec> {
    const pid = child.pid;
    if (pid !== undefined) this.groups.add(pid);
    const onData = (chunk: Buffer): void => collector.push(chunk);
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.stdout?.once("close", () => {
      if (pid !== undefined) this.groups.delete(pid);
    });

    return new Promise<Exec>((resolveExec) => {
      let killedBy: Exec["killedBy"];
      let exitCode: number | null = null;
      let exited = false;
      let done = false;
      const timers: NodeJS.Timeout[] = [];

      const finish = (): void => {
        if (done) return;
        done = true;
        for (const t of timers) clearTimeout(t);
        options.signal?.removeEventListener("abort", onAbort);
        // Background children may still hold the pipes: stop collecting without closing them
        // (closing would SIGPIPE a server the model started with `&`).
        for (const stream of [child.stdout, child.stderr]) {
          if (!stream || stream.destroyed) continue;
          stream.off("data", onData);
          stream.resume();
          const unref = (stream as { unref?: () => void }).unref;
          if (typeof unref === "function") unref.call(stream);
        }
        resolveExec({ exitCode, killedBy });
      };

      const kill = (why: "timeout" | "interrupt"): void => {
        if (exited || killedBy || pid === undefined) return;
        killedBy = why;
        killGroup(pid, "SIGTERM");
        setTimeout(() => killGroup(pid, "SIGKILL"), KILL_GRACE_MS);
        timers.push(setTimeout(finish, KILL_SETTLE_MS));
      };
      const onAbort = (): void => kill("interrupt");

      child.once("error", (err) => {
        collector.push(`hermes: failed to start ${this.shell}: ${err.message}\n`);
        exitCode = 127;
        finish();
      });
      child.once("exit", (code, signal) => {
        exited = true;
        exitCode = code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : null);
        timers.push(setTimeout(finish, killedBy ? 50 : DRAIN_MS));
      });
      child.once("close", finish);
      timers.push(setTimeout(() => kill("timeout"), Math.max(1, options.timeoutMs)));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (options.signal?.aborted) onAbort();
    });
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
    // mkdtemp creates the directory with mode 0700: the snapshot may hold passthrough secrets.
    // The promise is shared so that concurrent first runs make one directory.
    this.stateDir = mkdtemp(join(tmpdir(), "hermes-shell-"));
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

  async dispose(): Promise<void> {
    for (const pid of this.groups) killGroup(pid, "SIGKILL");
    this.groups.clear();
    const dir = await this.stateDir?.catch(() => undefined);
    this.stateDir = undefined;
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** One LocalEnvironment per task id, created on first use. */
export function createLocalEnvironmentProvider(options: LocalEnvironmentOptions): EnvironmentProvider {
  const envs = new Map<string, LocalEnvironment>();
  return {
    get(taskId: string): ExecutionEnvironment {
      let env = envs.get(taskId);
      if (!env) {
        env = new LocalEnvironment(options);
        envs.set(taskId, env);
      }
      return env;
    },
    async disposeAll(): Promise<void> {
      const all = [...envs.values()];
      envs.clear();
      await Promise.all(all.map((e) => e.dispose()));
    },
  };
}
