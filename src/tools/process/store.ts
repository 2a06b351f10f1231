import { readFileSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lockFile } from "../../core/file-lock.js";
import { ensureDir } from "../../core/fs.js";
import { homePaths } from "../../core/home.js";

/**
 * The background-process registry on disk: `HERMES_HOME/processes.json` (one record per process)
 * and `HERMES_HOME/processes/<id>.{log,sh,exit}`. Any Hermes process can read it, so a new one
 * lists the processes an earlier one left running; liveness is checked by pid and start time, so
 * a recycled pid is never mistaken for the original process.
 */

export type ProcessStatus = "running" | "exited" | "killed";

export interface ProcessRecord {
  id: string;
  pid: number;
  command: string;
  cwd: string;
  /** ISO time. */
  started: string;
  /** Kernel start time of the pid (Linux clock ticks since boot), to tell a recycled pid apart. */
  start_ticks?: number;
  status: ProcessStatus;
  /** null while running, when killed by a signal, or when the process ended unobserved. */
  exit_code: number | null;
  ended?: string;
  log_path: string;
  pty: boolean;
  /** Survives the Hermes process that started it (`nohup: true`, or a command started with `nohup`). */
  detached: boolean;
  /** pid of the Hermes process that started it. */
  owner_pid: number;
  /** Kernel start time of that Hermes process: a recycled pid is not taken for it. */
  owner_start_ticks?: number;
  /** The chat user (`platform:user id`) whose session started it; absent: the profile's owner. */
  owner?: string;
}

/** Finished records kept in processes.json (with their logs); older ones are removed. */
const KEEP_FINISHED = 50;

export const processDir = (home: string): string => join(home, "processes");
export const processFile = (home: string, id: string, ext: "log" | "sh" | "exit"): string =>
  join(processDir(home), `${id}.${ext}`);

/** Field 22 of /proc/<pid>/stat; undefined where there is no /proc or no such process. */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") return undefined;
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** True while the process that the record describes still runs (same pid and start time). */
export function isRecordAlive(record: Pick<ProcessRecord, "pid" | "start_ticks">): boolean {
  try {
    process.kill(record.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (record.start_ticks === undefined) return true;
  return processStartTicks(record.pid) === record.start_ticks;
}

/** The exit status the process's wrapper wrote when it ended on its own, if any. */
function readExitFile(home: string, id: string): number | null {
  try {
    const n = Number(readFileSync(processFile(home, id, "exit"), "utf8").trim());
    return Number.isInteger(n) ? n : null;
  } catch {
    return null;
  }
}

/** Marks a `running` record whose process is gone as exited (with its status when known). */
export function refreshRecord(home: string, record: ProcessRecord): ProcessRecord {
  if (record.status !== "running" || isRecordAlive(record)) return record;
  return {
    ...record,
    status: "exited",
    exit_code: readExitFile(home, record.id),
    ended: new Date().toISOString(),
  };
}

function parse(text: string): ProcessRecord[] {
  try {
    const data = JSON.parse(text) as { processes?: unknown };
    return Array.isArray(data.processes) ? (data.processes as ProcessRecord[]) : [];
  } catch {
    return [];
  }
}

/** Every record on disk, liveness refreshed, newest first. Never throws. */
export function loadProcessRecords(home: string): ProcessRecord[] {
  let text: string;
  try {
    text = readFileSync(homePaths(home).processes, "utf8");
  } catch {
    return [];
  }
  return parse(text)
    .map((r) => refreshRecord(home, r))
    .sort((a, b) => b.started.localeCompare(a.started));
}

/**
 * Merges `updates` into processes.json (by id, re-reading the file first so records of other
 * Hermes processes are kept), prunes old finished records and their files, and writes atomically.
 */
export async function saveProcessRecords(home: string, updates: readonly ProcessRecord[]): Promise<void> {
  const path = homePaths(home).processes;
  await ensureDir(processDir(home));
  const current = parse(await readFile(path, "utf8").catch(() => ""));
  const byId = new Map(current.map((r) => [r.id, refreshRecord(home, r)]));
  for (const r of updates) byId.set(r.id, r);
  const all = [...byId.values()].sort((a, b) => b.started.localeCompare(a.started));
  const finished = all.filter((r) => r.status !== "running");
  const dropped = new Set(finished.slice(KEEP_FINISHED).map((r) => r.id));
  const kept = all.filter((r) => !dropped.has(r.id));
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ processes: kept }, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
  for (const id of dropped) {
    for (const ext of ["log", "sh", "exit"] as const) await rm(processFile(home, id, ext), { force: true });
  }
}

/**
 * Merges records into processes.json holding `processes.json.lock`: the merge re-reads the file, and
 * without the lock two Hermes processes saving at once would each drop the other's new records.
 */
export async function saveRecordsLocked(home: string, records: readonly ProcessRecord[]): Promise<void> {
  const release = await lockFile(`${homePaths(home).processes}.lock`);
  try {
    await saveProcessRecords(home, records);
  } finally {
    release();
  }
}
