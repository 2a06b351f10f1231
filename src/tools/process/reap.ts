import { groupAlive, killGroup } from "../environments/process-groups.js";
import { isRecordAlive, loadProcessRecords, type ProcessRecord, saveRecordsLocked } from "./store.js";

/**
 * Orphans: background processes still running although the Hermes process that started them is
 * gone. A Hermes that exits normally ends its own (ProcessRegistry.shutdown); one killed outright
 * (SIGKILL, the OOM killer, a power cut of its container) cannot, so each Hermes that starts ends
 * what such a predecessor left behind. Processes started to survive Hermes (`nohup`) are left alone.
 */

const TERM_GRACE_MS = 2_000;
const POLL_MS = 50;

/** True while the Hermes process that started the record runs (same pid and start time). */
function ownerAlive(record: ProcessRecord): boolean {
  if (record.owner_pid === process.pid) return true;
  return isRecordAlive({ pid: record.owner_pid, start_ticks: record.owner_start_ticks });
}

/**
 * The running records of `home` whose Hermes process is gone and that were not started to survive
 * it. Only records with a start time: without one (no /proc) a recycled pid could be taken for the
 * process, and an unrelated process group signalled.
 */
export function findOrphans(home: string): ProcessRecord[] {
  return loadProcessRecords(home).filter(
    (r) => r.status === "running" && !r.detached && r.start_ticks !== undefined && !ownerAlive(r),
  );
}

/**
 * Ends every orphan of `home` (SIGTERM to its process group, SIGKILL after a grace) and records it
 * as killed. Returns what it ended. Never throws: a record it cannot update is retried next start.
 */
export async function reapOrphans(home: string): Promise<ProcessRecord[]> {
  const orphans = findOrphans(home);
  if (orphans.length === 0) return [];
  for (const r of orphans) killGroup(r.pid, "SIGTERM");
  const deadline = Date.now() + TERM_GRACE_MS;
  while (orphans.some((r) => groupAlive(r.pid)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  for (const r of orphans) if (groupAlive(r.pid)) killGroup(r.pid, "SIGKILL");
  const ended = new Date().toISOString();
  const reaped = orphans.map((r): ProcessRecord => ({ ...r, status: "killed", exit_code: null, ended }));
  await saveRecordsLocked(home, reaped).catch(() => undefined);
  return reaped;
}
