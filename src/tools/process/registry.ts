import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { ensureDir } from "../../core/fs.js";
import {
  groupAlive,
  killGroup,
  terminateGroup,
  trackGroup,
  untrackGroup,
} from "../environments/process-groups.js";
import { type IPty, loadPty, PtyUnavailableError } from "../environments/pty.js";
import { shQuote } from "../environments/shell-state.js";
import type { BackgroundSpec } from "../environments/types.js";
import { readLogPage } from "./log.js";
import { type Handle, startInPty, startPiped } from "./spawn.js";
import {
  isRecordAlive,
  loadProcessRecords,
  type ProcessRecord,
  processDir,
  processFile,
  processStartTicks,
  refreshRecord,
  saveRecordsLocked,
} from "./store.js";
import { LogWatcher, type NoticeSink } from "./watch.js";

/**
 * Background processes of one HERMES_HOME: started by `terminal(background=true)`, managed by the
 * `process` tool. Each runs in its own process group with its output going straight to
 * `processes/<id>.log`, and is recorded in `processes.json` with the chat user it belongs to.
 * Processes are killed when this Hermes process exits, except those started to survive it (`nohup`),
 * which keep running and show up in the next Hermes's list; if this process dies without cleaning
 * up, the next Hermes to start ends them (see reap.ts). PTY processes always end with Hermes (the
 * terminal belongs to it). `UserProcesses` is what one user's sessions see of this.
 */

export interface StartOptions {
  command: string;
  spec: BackgroundSpec;
  pty: boolean;
  notifyOnComplete: boolean;
  watchPatterns: readonly RegExp[];
  notices?: NoticeSink;
  /** The chat user it belongs to (`UserScope.userKey`); absent: the profile's owner. */
  owner?: string;
  /** Keep it running after this Hermes process ends (the `nohup` choice); ignored for PTY processes. */
  keep?: boolean;
}

/** A process as the `process` tool reports it. */
export interface ProcessView extends ProcessRecord {
  /** Seconds since start (until the end once finished). */
  runtime_s: number;
  /** Started by this Hermes process (stdin is writable only then). */
  owned: boolean;
}

const KILL_GRACE_MS = 2_000;
const POLL_MS = 200;
const COMPLETION_TAIL_LINES = 10;

interface Live {
  record: ProcessRecord;
  child?: ChildProcess;
  pty?: IPty;
  exited: Promise<void>;
  waiters: number;
  killedByUs: boolean;
  stdinOpen: boolean;
  watcher?: LogWatcher;
}

const isNohup = (command: string): boolean => /^\s*(?:exec\s+)?nohup\s/.test(command);

/** This Hermes process's start time, recorded with each process so the reaper can tell it apart. */
let ownTicks: number | undefined | null = null;
const ownStartTicks = (): number | undefined => {
  if (ownTicks === null) ownTicks = processStartTicks(process.pid);
  return ownTicks;
};

export class ProcessRegistry {
  private readonly live = new Map<string, Live>();
  private saving: Promise<void> = Promise.resolve();

  constructor(readonly home: string) {}

  /** Starts a command in the background. Throws PtyUnavailableError or an Error saying what failed. */
  async start(options: StartOptions): Promise<ProcessView> {
    const pty = options.pty ? await loadPty() : undefined;
    if (pty instanceof PtyUnavailableError) throw pty;
    const id = `proc_${randomBytes(6).toString("hex")}`;
    await ensureDir(processDir(this.home));
    const logPath = processFile(this.home, id, "log");
    const scriptPath = processFile(this.home, id, "sh");
    // The task's saved variables say TERM=dumb (pipes); a PTY program should see a real terminal.
    const term = options.pty ? "export TERM=xterm-256color\n" : "";
    await writeFile(scriptPath, `${options.spec.prelude}${term}${options.command}\n`, { mode: 0o600 });
    // The wrapper records the exit status, so a later Hermes can still tell how a survivor ended.
    const shell = shQuote(options.spec.shell);
    const wrapper =
      `${shell} ${shQuote(scriptPath)}; __hermes_s=$?; ` +
      `printf '%s' "$__hermes_s" > ${shQuote(processFile(this.home, id, "exit"))}; exit "$__hermes_s"`;
    const ownerTicks = ownStartTicks();
    let entry: Live | undefined;
    let early: [number | null, boolean] | undefined;
    let resolveExit!: () => void;
    const exited = new Promise<void>((r) => {
      resolveExit = r;
    });
    const onExit = (code: number | null, signalled: boolean): void => {
      if (entry) void this.finish(entry, code, signalled, options).then(resolveExit);
      else early = [code, signalled];
    };
    const handle = pty
      ? startInPty(pty, options.spec, wrapper, logPath, onExit)
      : await startPiped(options.spec, wrapper, logPath, onExit);
    entry = this.track(
      {
        id,
        pid: handle.pid,
        command: options.command,
        cwd: options.spec.cwd,
        started: new Date().toISOString(),
        status: "running",
        exit_code: null,
        log_path: logPath,
        pty: options.pty,
        detached: !options.pty && (options.keep === true || isNohup(options.command)),
        owner_pid: process.pid,
        ...(ownerTicks !== undefined ? { owner_start_ticks: ownerTicks } : {}),
        ...(options.owner ? { owner: options.owner } : {}),
      },
      exited,
      handle,
    );
    if (early) onExit(...early);
    if (options.watchPatterns.length > 0 && options.notices) {
      entry.watcher = new LogWatcher(id, logPath, options.watchPatterns, options.notices);
      entry.watcher.start();
    }
    await this.persist(entry.record);
    return this.view(entry.record);
  }

  private track(record: ProcessRecord, exited: Promise<void>, handle: Handle): Live {
    record.start_ticks = processStartTicks(record.pid);
    const entry: Live = {
      record,
      exited,
      waiters: 0,
      killedByUs: false,
      stdinOpen: true,
      child: handle.child,
      pty: handle.pty,
    };
    this.live.set(record.id, entry);
    if (!record.detached) trackGroup(record.pid);
    return entry;
  }

  private async finish(
    entry: Live,
    code: number | null,
    signalled: boolean,
    options: StartOptions,
  ): Promise<void> {
    const r = entry.record;
    r.status = entry.killedByUs || signalled ? "killed" : "exited";
    r.exit_code = code;
    r.ended = new Date().toISOString();
    untrackGroup(r.pid);
    await entry.watcher?.stop();
    await this.persist(r);
    if (options.notifyOnComplete && options.notices && entry.waiters === 0 && !entry.killedByUs) {
      options.notices.push(await this.completionNotice(r));
    }
  }

  private async completionNotice(r: ProcessRecord): Promise<string> {
    const page = await readLogPage(r.log_path, { limit: COMPLETION_TAIL_LINES, maxLineLength: 500 });
    const how = r.status === "killed" ? "was killed" : `exited with code ${r.exit_code ?? "unknown"}`;
    const tail = page.lines.length > 0 ? `\nLast output:\n${page.lines.join("\n")}` : "\n(no output)";
    return `[Background process ${r.id} (${r.command.slice(0, 200)}) ${how}.${tail}]`;
  }

  private persist(record: ProcessRecord): Promise<void> {
    const snapshot = { ...record };
    this.saving = this.saving.then(() => saveRecordsLocked(this.home, [snapshot]).catch(() => undefined));
    return this.saving;
  }

  private view(record: ProcessRecord): ProcessView {
    const end = record.ended ? Date.parse(record.ended) : Date.now();
    return {
      ...record,
      runtime_s: Math.max(0, Math.round((end - Date.parse(record.started)) / 1000)),
      owned: this.live.has(record.id),
    };
  }

  /** This Hermes's processes and every other recorded one, newest first. */
  list(): ProcessView[] {
    const own = new Map([...this.live.values()].map((e) => [e.record.id, e.record]));
    const others = loadProcessRecords(this.home).filter((r) => !own.has(r.id));
    return [...own.values(), ...others]
      .sort((a, b) => b.started.localeCompare(a.started))
      .map((r) => this.view(r));
  }

  get(id: string): ProcessView | undefined {
    const own = this.live.get(id);
    if (own) return this.view(own.record);
    const other = loadProcessRecords(this.home).find((r) => r.id === id);
    return other ? this.view(refreshRecord(this.home, other)) : undefined;
  }

  /** Waits until the process ends, `timeoutMs` passes or the signal aborts. */
  async wait(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ view: ProcessView; timedOut: boolean }> {
    const entry = this.live.get(id);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<"timeout">((resolveStop) => {
      timer = setTimeout(() => resolveStop("timeout"), Math.max(0, timeoutMs));
      onAbort = () => resolveStop("timeout");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      if (entry) {
        entry.waiters += 1;
        try {
          const outcome = await Promise.race([entry.exited.then(() => "exited" as const), stop]);
          return { view: this.view(entry.record), timedOut: outcome === "timeout" };
        } finally {
          entry.waiters -= 1;
        }
      }
      let stopped = false;
      void stop.then(() => {
        stopped = true;
      });
      for (;;) {
        const view = this.get(id);
        if (!view) throw new Error(`No background process ${id}`);
        if (view.status !== "running" || stopped) return { view, timedOut: view.status === "running" };
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** SIGTERM to the process group, SIGKILL after a grace; resolves once it is gone (or the grace ran out). */
  async kill(id: string): Promise<ProcessView> {
    const entry = this.live.get(id);
    if (entry) {
      if (entry.record.status === "running") {
        entry.killedByUs = true;
        terminateGroup(entry.record.pid, KILL_GRACE_MS);
        await Promise.race([entry.exited, new Promise((r) => setTimeout(r, KILL_GRACE_MS + 1_000))]);
      }
      return this.view(entry.record);
    }
    const view = this.get(id);
    if (!view) throw new Error(`No background process ${id}`);
    if (view.status !== "running") return view;
    terminateGroup(view.pid, KILL_GRACE_MS);
    const deadline = Date.now() + KILL_GRACE_MS + 1_000;
    while (isRecordAlive(view) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
    const after: ProcessRecord = isRecordAlive(view)
      ? view
      : { ...view, status: "killed", exit_code: null, ended: new Date().toISOString() };
    await this.persist(after);
    return this.view(after);
  }

  /** Sends text to the process's stdin (PTY: as typed). Throws when stdin is not available. */
  write(id: string, data: string): void {
    const entry = this.writable(id);
    if (entry.pty) entry.pty.write(data);
    else entry.child?.stdin?.write(data);
  }

  /** Ends stdin (PTY: sends Ctrl-D, end of input at the start of a line). */
  closeStdin(id: string): void {
    const entry = this.writable(id);
    if (entry.pty) entry.pty.write("\u0004");
    else entry.child?.stdin?.end();
    entry.stdinOpen = false;
  }

  /** True when the process reads a terminal: Enter is `\r` there, `\n` on a pipe. */
  isPty(id: string): boolean {
    return this.live.get(id)?.record.pty ?? false;
  }

  private writable(id: string): Live {
    const entry = this.live.get(id);
    if (!entry) {
      const known = this.get(id);
      throw new Error(
        known
          ? `${id} was started by another Hermes process (pid ${known.owner_pid}); its stdin is not reachable from here.`
          : `No background process ${id}; use process(action="list") to see the ids.`,
      );
    }
    if (entry.record.status !== "running") throw new Error(`${id} has already ${entry.record.status}.`);
    if (!entry.stdinOpen) throw new Error(`stdin of ${id} was closed.`);
    return entry;
  }

  /** Kills this Hermes's processes except detached (`nohup`) ones, and records how they ended. */
  async shutdown(): Promise<void> {
    const running = [...this.live.values()].filter((e) => e.record.status === "running");
    for (const e of running) {
      if (e.record.detached) {
        e.child?.stdin?.destroy();
        continue;
      }
      e.killedByUs = true;
      killGroup(e.record.pid, "SIGTERM");
      e.pty?.kill("SIGHUP");
    }
    const killed = running.filter((e) => !e.record.detached);
    const deadline = Date.now() + 1_000;
    while (killed.some((e) => groupAlive(e.record.pid)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const e of killed) if (groupAlive(e.record.pid)) killGroup(e.record.pid, "SIGKILL");
    // Every process that ended (now or just before) has its record written before this resolves.
    const ending = [...this.live.values()].filter(
      (e) => !(e.record.detached && e.record.status === "running"),
    );
    await Promise.race([Promise.all(ending.map((e) => e.exited)), new Promise((r) => setTimeout(r, 1_000))]);
    for (const e of running) if (e.record.detached) void e.watcher?.stop();
    await this.saving;
  }
}

const registries = new Map<string, ProcessRegistry>();

/** The registry of a HERMES_HOME in this process (one per home). */
export function getProcessRegistry(home: string): ProcessRegistry {
  let registry = registries.get(home);
  if (!registry) {
    registry = new ProcessRegistry(home);
    registries.set(home, registry);
  }
  return registry;
}

/** Ends this process's background processes of a home (see `ProcessRegistry.shutdown`). */
export async function shutdownProcessRegistry(home: string): Promise<void> {
  const registry = registries.get(home);
  registries.delete(home);
  await registry?.shutdown();
}
