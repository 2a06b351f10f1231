import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { lockFile, lockFileSync, type ReleaseLock, tryLockFile } from "../core/file-lock.js";
import { writeFileAtomic } from "../core/fs.js";
import { skillsDir } from "./paths.js";

/**
 * When each skill was last viewed and used, who created it, whether it is pinned and whether the
 * curator archived it: skills/.usage.json, shared by every process of the profile (writes take a
 * lock file). Tracking never fails the action it records.
 */

export interface UsageEntry {
  /** "agent": written by skill_manage or the learning review (the curator may archive it). */
  created_by?: "agent";
  created_at?: string;
  last_viewed?: string;
  last_used?: string;
  last_changed?: string;
  views?: number;
  uses?: number;
  /** Pinned skills are never archived. */
  pinned?: boolean;
  archived_at?: string;
  /** Folders under skills/ ('/' separators) the skill was archived from and to. */
  archived_from?: string;
  archived_to?: string;
}

export type UsageMap = Record<string, UsageEntry>;

/** What happened to a skill: loaded, run as a command, written or removed. */
export type UsageEvent =
  | "view"
  | "invoke"
  | "create"
  | "edit"
  | "patch"
  | "write_file"
  | "remove_file"
  | "delete";

export const usagePath = (home: string): string => join(skillsDir(home), ".usage.json");

export function readUsage(home: string): UsageMap {
  try {
    const raw = JSON.parse(readFileSync(usagePath(home), "utf8")) as unknown;
    return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as UsageMap) : {};
  } catch {
    return {};
  }
}

const LOCK_WAIT_MS = 2000;

/** Read-modify-write under the lock, waiting for it (one-shot CLI commands: the curator). */
export function updateUsage(home: string, change: (usage: UsageMap) => void): void {
  const path = usagePath(home);
  mkdirSync(dirname(path), { recursive: true });
  changeLocked(home, lockFileSync(`${path}.lock`, { timeoutMs: LOCK_WAIT_MS }), change);
}

/**
 * updateUsage for the paths a running agent takes: now when the lock is free, else once another
 * process releases it, waiting on timers (never on the event loop). Failures are dropped.
 */
function updateUsageSoon(home: string, change: (usage: UsageMap) => void): void {
  const path = usagePath(home);
  mkdirSync(dirname(path), { recursive: true });
  const release = tryLockFile(`${path}.lock`);
  if (release) {
    changeLocked(home, release, change);
    return;
  }
  lockFile(`${path}.lock`, { timeoutMs: LOCK_WAIT_MS }).then(
    (later) => {
      try {
        changeLocked(home, later, change);
      } catch {
        // Tracking never fails what it records.
      }
    },
    () => {
      // Held past the wait: this one record is lost.
    },
  );
}

function changeLocked(home: string, release: ReleaseLock, change: (usage: UsageMap) => void): void {
  try {
    const usage = readUsage(home);
    change(usage);
    writeFileAtomic(usagePath(home), `${JSON.stringify(usage, null, 2)}\n`);
  } finally {
    release();
  }
}

/** The last moment a skill was viewed, used, changed or created (ms), or undefined. */
export function lastActivity(entry: UsageEntry | undefined): number | undefined {
  if (!entry) return undefined;
  const times = [entry.last_viewed, entry.last_used, entry.last_changed, entry.created_at]
    .map((t) => (t ? Date.parse(t) : Number.NaN))
    .filter((t) => Number.isFinite(t));
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** Records one event. Never throws (a read-only home or a held lock only loses the record). */
export function recordSkillUse(home: string, name: string, event: UsageEvent, now: Date = new Date()): void {
  try {
    updateUsageSoon(home, (usage) => {
      const at = now.toISOString();
      if (event === "delete") {
        delete usage[name];
        return;
      }
      const e: UsageEntry = usage[name] ?? {};
      switch (event) {
        case "view":
          e.last_viewed = at;
          e.views = (e.views ?? 0) + 1;
          break;
        case "invoke":
          e.last_used = at;
          e.uses = (e.uses ?? 0) + 1;
          break;
        case "create":
          e.created_by = "agent";
          e.created_at = at;
          e.last_changed = at;
          break;
        default:
          e.last_changed = at;
      }
      usage[name] = e;
    });
  } catch {
    // tracking is best effort
  }
}

/** Pins or unpins a skill (pinned skills are never archived). */
export function setPinned(home: string, name: string, pinned: boolean): void {
  updateUsage(home, (usage) => {
    const e = usage[name] ?? {};
    if (pinned) e.pinned = true;
    else delete e.pinned;
    usage[name] = e;
  });
}
