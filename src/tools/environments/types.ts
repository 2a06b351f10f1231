/**
 * An execution environment: where the agent's commands run and its files live. `terminal` and the
 * file tools both go through one, so a file is read where the commands that made it ran.
 */

export interface RunOptions {
  /** Kill the whole process group after this long. */
  timeoutMs: number;
  /** Abort (user interrupt) kills the process group at once. */
  signal?: AbortSignal;
  /** Run in this directory instead of the task's current one (does not change the task's cwd). */
  workdir?: string;
  /** Extra environment for this command only. */
  env?: Record<string, string>;
  /**
   * Folder on the Hermes host where the complete output is streamed once it outgrows the in-memory
   * capture (see `RunResult.fullOutputPath`). Without it, only the capture's head and tail survive.
   */
  spillDir?: string;
  /** Run in a pseudo-terminal (120x40) instead of pipes. Throws `PtyUnavailableError` when impossible. */
  pty?: boolean;
}

export interface RunResult {
  /** stdout and stderr interleaved as the process wrote them. */
  output: string;
  /** null when the process was killed (timeout or interrupt). */
  exitCode: number | null;
  timedOut: boolean;
  interrupted: boolean;
  durationMs: number;
  /** The task's cwd after the command (a `cd` persists). */
  cwd: string;
  /**
   * Set when the output outgrew the capture and `spillDir` was given: a file on the Hermes host
   * holding all of it, cleaned of ANSI escapes like the captured text.
   */
  fullOutputPath?: string;
}

/** How to start a background process with a task's shell state (see `ExecutionEnvironment.backgroundSpec`). */
export interface BackgroundSpec {
  /** Shell binary that runs the script. */
  shell: string;
  /** Sourced before the command: restores the task's exported variables and cwd. */
  prelude: string;
  cwd: string;
  env: Record<string, string>;
}

export interface FileStat {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
  mtimeMs: number;
}

export interface EnvironmentProbe {
  os: string;
  user: string;
  home: string;
  cwd: string;
}

export interface ExecutionEnvironment {
  readonly backend: string;
  /** Runs a shell command with the task's persistent shell state: cwd and exported variables survive. */
  run(command: string, options: RunOptions): Promise<RunResult>;
  getCwd(): string;
  /** Resolves a path against the task's cwd, expanding a leading `~`. */
  resolvePath(path: string): string;
  readFile(path: string): Promise<Buffer>;
  /** Writes a file, creating parent directories. */
  writeFile(path: string, data: string | Buffer): Promise<void>;
  /** undefined when the path does not exist. */
  stat(path: string): Promise<FileStat | undefined>;
  listDir(path: string): Promise<string[]>;
  probe(): Promise<EnvironmentProbe>;
  /**
   * Present on backends that can start background processes on the Hermes host (local): what a
   * process needs to start with this task's cwd and variables. Resolves `workdir` like `run`.
   */
  backgroundSpec?(workdir?: string): Promise<BackgroundSpec>;
  /**
   * Present on remote backends: copies a file saved on the Hermes host (a spilled tool output) into
   * the environment, where the file tools can read it, and returns its path there.
   */
  storeOutput?(localPath: string): Promise<string>;
  /**
   * Kills what the task's commands still have running (a command in progress, children they left
   * holding their output) and removes the task's temporary state (its container, on docker).
   * Afterwards commands no longer run here: waiting ones return as interrupted.
   */
  dispose(): Promise<void>;
}

/** Hands out one environment per task id. */
export interface EnvironmentProvider {
  /** The task's environment, created on first use. */
  get(taskId: string): ExecutionEnvironment;
  /**
   * A subagent's environment under its own task id: on the same machine (or container) as the
   * parent's, starting in the parent's cwd with its exported variables, then independent of it,
   * so concurrent subagents never undo each other's `cd` or `export`. Release it when done.
   */
  fork(parentTaskId: string, childTaskId: string): ExecutionEnvironment;
  /**
   * Disposes one task's environment (see `dispose`); a later `get` starts a fresh one. Processes
   * started with `terminal(background=true)` belong to the Hermes run, not to the task, and are
   * left to `disposeAll`. Never rejects.
   */
  release(taskId: string): Promise<void>;
  disposeAll(): Promise<void>;
}
