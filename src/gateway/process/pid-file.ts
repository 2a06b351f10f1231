/**
 * The gateway's PID file, HERMES_HOME/gateway.pid, is also its lock: it is created with O_EXCL, so
 * two gateways of one profile never run at once. A file left by a process that died is taken over.
 */
import { closeSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { removeIfContent, removeStaleFile } from "../../core/file-lock.js";

export interface GatewayPidRecord {
  pid: number;
  /** ISO time the gateway started. */
  started_at: string;
  /** The HERMES_HOME it serves. */
  home: string;
}

export const pidFilePath = (home: string): string => join(home, "gateway.pid");

/** A file this young that cannot be parsed is being written by a gateway starting now. */
const UNREADABLE_GRACE_MS = 5_000;

/** The record in the PID file; undefined when there is none or it cannot be parsed. */
export function readPidRecord(home: string): GatewayPidRecord | undefined {
  let text: string;
  try {
    text = readFileSync(pidFilePath(home), "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<GatewayPidRecord>;
    if (typeof parsed.pid === "number" && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      return {
        pid: parsed.pid,
        started_at: String(parsed.started_at ?? ""),
        home: String(parsed.home ?? home),
      };
    }
  } catch {
    // A bare number is accepted too (written by hand or by older tools).
    const pid = Number(text.trim());
    if (Number.isInteger(pid) && pid > 0) return { pid, started_at: "", home };
  }
  return undefined;
}

/**
 * Whether `pid` is a live process that is a gateway. A pid reused by an unrelated process (after a
 * reboot, in a container) does not count: on Linux its command line must mention the gateway.
 */
export function isGatewayProcess(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return true; // no /proc (macOS): a live pid is trusted
  }
  // A zombie has an empty command line: it is gone for our purposes.
  return cmdline.includes("gateway");
}

/** The running gateway of this home, if there is one. */
export function runningGateway(home: string): GatewayPidRecord | undefined {
  const record = readPidRecord(home);
  return record && isGatewayProcess(record.pid) ? record : undefined;
}

export type LockResult = { release: () => void; record: GatewayPidRecord } | { heldBy: GatewayPidRecord };

/** Takes the profile's gateway lock by creating the PID file; reports the holder when it is alive. */
export function acquireGatewayLock(home: string, now: Date = new Date()): LockResult {
  const path = pidFilePath(home);
  const record: GatewayPidRecord = { pid: process.pid, started_at: now.toISOString(), home };
  const content = `${JSON.stringify(record)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o644);
      try {
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
      return { record, release: () => removeIfContent(path, content) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = readPidRecord(home);
    if (holder && isGatewayProcess(holder.pid)) return { heldBy: holder };
    if (!holder && ageMs(path) < UNREADABLE_GRACE_MS) {
      return { heldBy: { pid: 0, started_at: "", home } };
    }
    takeOver(path);
  }
  throw new Error(`${path}: could not take the gateway lock (another gateway keeps starting); try again`);
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Deletes the stale PID file just judged dead (safely, should another starter replace it meanwhile). */
function takeOver(path: string): void {
  try {
    removeStaleFile(path, readFileSync(path, "utf8"));
  } catch {
    // Gone already: the next attempt creates it.
  }
}
