import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../core/fs.js";
import { hashSkillFiles, sha256 } from "./bundled-files.js";
import type { TrustLevel, Verdict } from "./guard/types.js";
import type { SourceKind } from "./install-source.js";
import { skillsDir } from "./paths.js";

/**
 * What `hermes skills install` put in the home, in skills/.hub/lock.json: where each installed
 * skill came from (for `check` and `update`), how it was judged, and a hash of its files as
 * installed (to tell upstream changes from local edits).
 */

export interface InstallRecord {
  name: string;
  /** Folder under skills/ ('/' separators). */
  dir: string;
  kind: SourceKind;
  location: string;
  ref?: string;
  subpath?: string;
  trust: TrustLevel;
  verdict: Verdict;
  /** Installed although the verdict was caution. */
  forced?: boolean;
  installedAt: string;
  /** sha256 over the installed files (see contentHash). */
  hash: string;
}

interface LockFile {
  version: 1;
  skills: Record<string, InstallRecord>;
}

export const lockPath = (home: string): string => join(skillsDir(home), ".hub", "lock.json");

export function readLock(home: string): Record<string, InstallRecord> {
  try {
    const raw = JSON.parse(readFileSync(lockPath(home), "utf8")) as Partial<LockFile>;
    return raw && typeof raw.skills === "object" && raw.skills !== null ? raw.skills : {};
  } catch {
    return {};
  }
}

function writeLock(home: string, skills: Record<string, InstallRecord>): void {
  const file: LockFile = { version: 1, skills };
  writeFileAtomic(lockPath(home), `${JSON.stringify(file, null, 2)}\n`);
}

export function saveRecord(home: string, record: InstallRecord): void {
  writeLock(home, { ...readLock(home), [record.name]: record });
}

export function dropRecord(home: string, name: string): void {
  const skills = readLock(home);
  if (!(name in skills)) return;
  delete skills[name];
  writeLock(home, skills);
}

/** One hash for a folder's files (paths and contents), hidden entries skipped. */
export function contentHash(dir: string): string {
  const files = hashSkillFiles(dir);
  return sha256(
    Object.keys(files)
      .sort()
      .map((rel) => `${rel}\0${files[rel]}`)
      .join("\n"),
  );
}
