import type { ChildProcess } from "node:child_process";
import { createReadStream } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, posix } from "node:path";
import { OutputCollector } from "./output-collector.js";
import { PtyUnavailableError } from "./pty.js";
import { remoteProcess, untilAborted } from "./remote-process.js";
import {
  BOOTSTRAP_SCRIPT,
  buildDisposeScript,
  buildKillScript,
  buildRemoteRunScript,
  launchCommand,
  listScript,
  newMarker,
  parseBootstrap,
  type RemoteFacts,
  readScript,
  statScript,
  writeScript,
} from "./remote-script.js";
import { RunQueue } from "./run-queue.js";
import { SharedAttempt } from "./shared.js";
import { shQuote } from "./shell-state.js";
import { SpillWriter } from "./spill-writer.js";
import { runResult, supervise, supervisedResult } from "./supervise.js";
import type { EnvironmentProbe, ExecutionEnvironment, FileStat, RunOptions, RunResult } from "./types.js";

/** How a remote backend reaches its machine: ssh to a host, docker exec into a container. */
export interface RemoteTransport {
  /** Names the target in messages, e.g. `ssh root@build:22`. */
  readonly label: string;
  /** Makes the target usable (ssh master connection, running container). Throws an Error to show the model. */
  connect(): Promise<void>;
  /** Runs `sh -c script` on the target with stdin, stdout and stderr as pipes. */
  spawn(script: string): ChildProcess;
  /** Closes what `connect` opened. Never throws. */
  close(): Promise<void>;
}

export interface RemoteEnvironmentOptions {
  backend: string;
  transport: RemoteTransport;
  /** Starting directory: absolute, or `~`-relative; anything else means the remote home. */
  cwd?: string;
  /** `tool_output.max_bytes`; up to twice this is kept from each end of a command's output. */
  maxOutputBytes?: number;
  /** Close the transport on dispose (false when several tasks share one ssh connection). */
  ownsTransport?: boolean;
  /** A forked environment's parent: its saved variables are copied on the first contact. */
  parent?: RemoteEnvironment;
}

const KILL_GRACE_S = 2;
const KILL_SETTLE_MS = 800;
const DRAIN_MS = 250;
/** File operations and clean-up: a live connection answers far sooner. */
const OP_TIMEOUT_MS = 60_000;
const MAX_STDERR = 64 * 1024;
const CLOSED = "This task's environment has been closed.";

interface ExecResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * An environment on another machine or in a container, driven through a transport with POSIX sh
 * scripts: the same persistent cwd and variables as the local backend (state files in a private
 * temp dir over there, commands one at a time as RunQueue explains), one process group per command
 * killed over a second connection on timeout or interrupt, and file access through `cat`, `stat`
 * and `mkdir -p`.
 */
export class RemoteEnvironment implements ExecutionEnvironment {
  readonly backend: string;
  private readonly transport: RemoteTransport;
  private readonly facts = new SharedAttempt(() => this.bootstrap());
  private known: RemoteFacts | undefined;
  private cwd: string;
  private initialCwd: string;
  private readonly captureCap: number;
  private seq = 0;
  /** ssh/docker clients still attached to a finished command's background children, or killers. */
  private readonly lingering = new Set<ChildProcess>();
  private readonly queue = new RunQueue();
  /** Aborted by dispose: waiting commands give up, nothing new connects. */
  private readonly closing = new AbortController();

  constructor(private readonly options: RemoteEnvironmentOptions) {
    this.backend = options.backend;
    this.transport = options.transport;
    const cwd = options.cwd?.trim() ?? "";
    this.initialCwd = posix.isAbsolute(cwd) || cwd === "~" || cwd.startsWith("~/") ? cwd : "~";
    this.cwd = this.initialCwd;
    this.captureCap = 2 * Math.max(1_000, options.maxOutputBytes ?? 50_000);
  }

  getCwd(): string {
    return this.cwd;
  }

  /** Absolute remote path; a leading `~` stays until the first contact tells the remote home. */
  resolvePath(path: string): string {
    const p = path.trim();
    const home = this.known?.home;
    if (p === "~" || p.startsWith("~/")) return home ? posix.join(home, p.slice(1)) : posix.normalize(p);
    if (posix.isAbsolute(p)) return posix.resolve(p);
    if (this.cwd.startsWith("~"))
      return home ? posix.join(home, this.cwd.slice(1), p) : posix.join(this.cwd, p);
    return posix.resolve(this.cwd, p);
  }

  /**
   * A subagent's environment over the same transport (same host or container, which stays open
   * with the parent): its own state dir, starting in this cwd with this one's saved variables.
   */
  fork(): RemoteEnvironment {
    return new RemoteEnvironment({ ...this.options, cwd: this.cwd, ownsTransport: false, parent: this });
  }

  /** Connects once and learns the remote facts; a failure is retried on the next call. */
  private ready(): Promise<RemoteFacts> {
    if (this.closing.signal.aborted) return Promise.reject(new Error(CLOSED));
    return this.facts.get();
  }

  private async bootstrap(): Promise<RemoteFacts> {
    // The parent's state dir is read now, at the fork's first contact, before this one exists.
    const seed = this.options.parent?.known?.stateDir;
    await this.transport.connect();
    const res = await this.exec(BOOTSTRAP_SCRIPT);
    const facts = res.code === 0 ? parseBootstrap(res.stdout.toString("utf8")) : undefined;
    if (!facts) {
      const why = res.stderr.trim() || res.stdout.toString("utf8").trim() || `exit status ${res.code}`;
      throw new Error(`${this.transport.label}: could not prepare a shell (${why})`);
    }
    if (seed) {
      const copy = `[ ! -f ${shQuote(`${seed}/env.sh`)} ] || cp ${shQuote(`${seed}/env.sh`)} ${shQuote(`${facts.stateDir}/env.sh`)}`;
      await this.exec(copy).catch(() => undefined);
    }
    this.known = facts;
    this.initialCwd = this.resolvePath(this.initialCwd);
    if (this.cwd.startsWith("~")) this.cwd = this.resolvePath(this.cwd);
    return facts;
  }

  async run(command: string, options: RunOptions): Promise<RunResult> {
    const interrupted = (): RunResult =>
      runResult(performance.now(), this.cwd, "", null, { interrupted: true });
    if (options.pty) throw new PtyUnavailableError(`the ${this.backend} backend runs commands without a PTY`);
    const closing = this.closing.signal;
    if (options.signal?.aborted || closing.aborted) return interrupted();
    const signal = options.signal ? AbortSignal.any([options.signal, closing]) : closing;
    const facts = await untilAborted(this.ready(), signal);
    if (!facts) return interrupted();
    const release = await this.queue.acquire(signal);
    if (!release) return interrupted();
    try {
      return await this.runNow(facts, command, { ...options, signal });
    } finally {
      release();
    }
  }

  /** One command, with the queue held. */
  private async runNow(facts: RemoteFacts, command: string, options: RunOptions): Promise<RunResult> {
    const started = performance.now();
    const id = ++this.seq;
    const marker = newMarker();
    const workdir = options.workdir === undefined ? undefined : this.resolvePath(options.workdir);
    const cwd = workdir ?? this.cwd;
    const fallbackCwd =
      workdir !== undefined ? undefined : cwd === this.initialCwd ? facts.home : this.initialCwd;
    const script = buildRemoteRunScript(facts, { id, command, cwd, fallbackCwd, env: options.env }, marker);

    const child = this.transport.spawn(launchCommand(facts, id));
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(script);
    const spill = options.spillDir ? new SpillWriter(options.spillDir, "terminal") : undefined;
    const collector = new OutputCollector(this.captureCap, spill);
    let finalCwd: string | undefined;
    const proc = remoteProcess(child, marker, (done) => {
      finalCwd = done.cwd;
    });
    const exec = await supervise(proc, collector, {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      kill: () => this.killRun(facts, id, child),
      drainMs: DRAIN_MS,
      settleMs: KILL_SETTLE_MS,
    });
    if (exec.spawnError) collector.push(`hermes: ${this.transport.label}: ${exec.spawnError.message}\n`);
    if (child.exitCode === null && child.signalCode === null) this.linger(child);
    if (!exec.killedBy && finalCwd && workdir === undefined) this.cwd = finalCwd;
    return supervisedResult(started, this.cwd, collector, exec);
  }

  /** Kills the run's remote process group over a second connection, then the local client. */
  private killRun(facts: RemoteFacts, id: number, client: ChildProcess): void {
    const killer = this.transport.spawn(buildKillScript(facts.stateDir, id, KILL_GRACE_S));
    this.linger(killer);
    killer.stdin?.end();
    const stopClient = (): void => {
      client.kill("SIGTERM");
    };
    killer.once("close", stopClient);
    killer.once("error", stopClient);
    setTimeout(() => client.kill("SIGKILL"), (KILL_GRACE_S + 5) * 1000).unref();
  }

  private linger(child: ChildProcess): void {
    this.lingering.add(child);
    child.once("close", () => this.lingering.delete(child));
    child.once("error", () => this.lingering.delete(child));
    child.unref();
  }

  /** Runs a short script to completion, collecting its output. Rejects on spawn failure or timeout. */
  private exec(script: string, input?: Buffer | string | NodeJS.ReadableStream): Promise<ExecResult> {
    return new Promise((resolveExec, reject) => {
      const child = this.transport.spawn(script);
      const out: Buffer[] = [];
      let stderr = "";
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`${this.transport.label}: no answer within ${OP_TIMEOUT_MS / 1000} s`));
      }, OP_TIMEOUT_MS);
      child.stdout?.on("data", (c: Buffer) => out.push(c));
      child.stderr?.on("data", (c: Buffer) => {
        if (stderr.length < MAX_STDERR) stderr += c.toString("utf8");
      });
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(new Error(`${this.transport.label}: ${err.message}`));
      });
      child.once("close", (code) => {
        clearTimeout(timer);
        resolveExec({ code, stdout: Buffer.concat(out), stderr });
      });
      child.stdin?.on("error", () => undefined);
      if (input === undefined || typeof input === "string" || Buffer.isBuffer(input)) child.stdin?.end(input);
      else if (child.stdin) input.pipe(child.stdin);
    });
  }

  /** exec after connecting, turning a failure into an Error that quotes the remote message. */
  private async op(what: string, script: string, input?: Buffer | string): Promise<Buffer> {
    await this.ready();
    const res = await this.exec(script, input);
    if (res.code === 0) return res.stdout;
    const err: NodeJS.ErrnoException = new Error(
      `${what}: ${res.stderr.trim() || `exit status ${res.code}`}`,
    );
    if (/No such file|not found/i.test(res.stderr)) err.code = "ENOENT";
    throw err;
  }

  async readFile(path: string): Promise<Buffer> {
    await this.ready();
    const full = this.resolvePath(path);
    return this.op(`cannot read ${full}`, readScript(full));
  }

  async writeFile(path: string, data: string | Buffer): Promise<void> {
    await this.ready();
    const full = this.resolvePath(path);
    await this.op(`cannot write ${full}`, writeScript(full, posix.dirname(full)), data);
  }

  async stat(path: string): Promise<FileStat | undefined> {
    await this.ready();
    const full = this.resolvePath(path);
    const text = (await this.op(`cannot stat ${full}`, statScript(full))).toString("utf8").trim();
    if (text === "missing") return undefined;
    const [kind = "", size = "0", mtime = "0"] = text.split("|");
    return {
      isFile: kind.startsWith("regular"),
      isDirectory: kind === "directory",
      size: Number(size),
      mtimeMs: Number(mtime) * 1000,
    };
  }

  async listDir(path: string): Promise<string[]> {
    await this.ready();
    const full = this.resolvePath(path);
    const out = (await this.op(`cannot list ${full}`, listScript(full))).toString("utf8");
    return out.split("\0").filter(Boolean).sort();
  }

  async probe(): Promise<EnvironmentProbe> {
    const facts = await this.ready();
    return { os: facts.os, user: facts.user, home: facts.home, cwd: this.cwd };
  }

  async storeOutput(localPath: string): Promise<string> {
    const facts = await this.ready();
    const remote = `${facts.stateDir}/output/${basename(localPath)}`;
    const res = await this.exec(writeScript(remote, posix.dirname(remote)), createReadStream(localPath));
    if (res.code !== 0) throw new Error(`cannot copy the output to ${remote}: ${res.stderr.trim()}`);
    await rm(localPath, { force: true });
    return remote;
  }

  async dispose(): Promise<void> {
    this.closing.abort();
    // A first contact still under way would leave a state dir behind: let it finish first.
    await this.facts.peek()?.catch(() => undefined);
    const facts = this.known;
    this.facts.reset();
    this.known = undefined;
    for (const child of this.lingering) child.kill("SIGKILL");
    this.lingering.clear();
    if (facts) await this.exec(buildDisposeScript(facts.stateDir)).catch(() => undefined);
    if (this.options.ownsTransport) await this.transport.close();
  }
}
