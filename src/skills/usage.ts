import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { lockFileSync } from "../core/file-lock.js";
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

/** Read-modify-write under the lock; `change` edits the map in place. */
export function updateUsage(home: string, change: (usage: UsageMap) => void): void {
  const path = usagePath(home);
  mkdirSync(dirname(path), { recursive: true });
  const release = lockFileSync(`${path}.lock`, { timeoutMs: 2000 });
  try {
    const usage = readUsage(home);
    change(usage);
    writeFileAtomic(path, `${JSON.stringify(usage, null, 2)}\n`);
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
    updateUsage(home, (usage) => {
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
