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
  /** Kills anything still running and removes temporary state. */
  dispose(): Promise<void>;
}

/** Hands out one environment per task id (subagents share their parent's task id, so its cwd). */
export interface EnvironmentProvider {
  get(taskId: string): ExecutionEnvironment;
  disposeAll(): Promise<void>;
}
