import { type InstallRecord, readLock } from "./install-lock.js";
import { bundledSkillStates } from "./sync.js";
import { readUsage } from "./usage.js";

/**
 * Where a skill of the home came from: installed from a source, bundled (as shipped or edited by
 * the user), written by the agent, or the user's own. The install lock, the bundled manifest and
 * the usage file each know part of it; this puts them together.
 */

export type SkillOrigin = "installed" | "bundled" | "bundled-edited" | "agent" | "local";

export interface OriginOf {
  (name: string): SkillOrigin;
  /** The install record of an installed skill. */
  record(name: string): InstallRecord | undefined;
}

/** Reads the three sources once; the returned function answers per skill name. */
export function skillOrigins(home: string): OriginOf {
  const lock = readLock(home);
  const usage = readUsage(home);
  let bundled = new Map<string, string>();
  try {
    bundled = bundledSkillStates(home);
  } catch {
    // no bundle shipped: nothing is bundled
  }
  const of = (name: string): SkillOrigin => {
    if (lock[name]) return "installed";
    const state = bundled.get(name);
    if (state === "pristine") return "bundled";
    if (state === "modified") return "bundled-edited";
    return usage[name]?.created_by === "agent" ? "agent" : "local";
  };
  return Object.assign(of, { record: (name: string) => lock[name] });
}
