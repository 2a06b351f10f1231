import { rmSync } from "node:fs";
import { relative, sep } from "node:path";
import { findSkill, scanSkills } from "./discovery.js";
import { decideInstall, type InstallDecision, trustOfUrl } from "./guard/policy.js";
import { scanSkillDir } from "./guard/scan.js";
import type { GuardScreens, ScanResult, TrustLevel } from "./guard/types.js";
import { locateSkillRoot } from "./install.js";
import { contentHash, dropRecord, type InstallRecord, readLock } from "./install-lock.js";
import { type SkillOrigin, skillOrigins } from "./install-origin.js";
import { fetchSource, type SkillSource } from "./install-source.js";
import { skillsDir } from "./paths.js";

/** Uninstall, update checks and the audit of everything installed. */

export type UninstallResult = { ok: true; dir: string; wasInstalled: boolean } | { ok: false; error: string };

/** Removes a skill of the home (its folder and its install record). */
export function uninstallSkill(home: string, name: string): UninstallResult {
  const record = findSkill(home, name);
  if (!record) return { ok: false, error: `no skill named '${name}' in ${skillsDir(home)}` };
  if (relative(skillsDir(home), record.dir).startsWith(".."))
    return {
      ok: false,
      error: `'${name}' lives outside the home's skills folder (${record.dir}); remove it there`,
    };
  const wasInstalled = name in readLock(home);
  rmSync(record.dir, { recursive: true, force: true });
  dropRecord(home, name);
  return { ok: true, dir: record.dir, wasInstalled };
}

export const sourceOf = (r: InstallRecord): SkillSource => ({
  kind: r.kind,
  location: r.location,
  ...(r.ref ? { ref: r.ref } : {}),
  ...(r.subpath ? { subpath: r.subpath } : {}),
});

export type CheckStatus = "up-to-date" | "update-available" | "modified" | "missing" | "error";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail?: string;
}

/** Compares an installed skill with its source (fetched again into quarantine) and with its install-time hash. */
export async function checkSkill(
  home: string,
  record: InstallRecord,
  signal?: AbortSignal,
): Promise<CheckResult> {
  const installed = findSkill(home, record.name);
  if (!installed) return { name: record.name, status: "missing", detail: "its folder is gone" };
  const localHash = contentHash(installed.dir);
  let upstream: string;
  try {
    const fetched = await fetchSource(sourceOf(record), home, signal);
    try {
      upstream = contentHash(locateSkillRoot(fetched.tree, record.subpath));
    } finally {
      fetched.discard();
    }
  } catch (err) {
    return { name: record.name, status: "error", detail: (err as Error).message };
  }
  if (upstream !== record.hash) return { name: record.name, status: "update-available" };
  if (localHash !== record.hash)
    return { name: record.name, status: "modified", detail: "edited since install" };
  return { name: record.name, status: "up-to-date" };
}

export interface AuditEntry {
  name: string;
  /** Folder under skills/ ('/' separators). */
  dir: string;
  trust: TrustLevel;
  /** Where it came from; that decides its trust (an edited bundled skill is the user's, so community). */
  origin: SkillOrigin;
  scan: ScanResult;
  decision: InstallDecision;
}

/** Rescans every skill of the home (or only one) with the trust it has today. */
export function auditSkills(
  home: string,
  opts: { screens?: GuardScreens; trustedSources?: readonly string[]; only?: string } = {},
): AuditEntry[] {
  const originOf = skillOrigins(home);
  const out: AuditEntry[] = [];
  for (const record of scanSkills(home).skills) {
    const name = record.skill.name;
    if (opts.only !== undefined && name !== opts.only) continue;
    const origin = originOf(name);
    const installed = originOf.record(name);
    const trust: TrustLevel = installed
      ? installed.kind === "local"
        ? "community"
        : trustOfUrl(installed.location, opts.trustedSources)
      : origin === "bundled"
        ? "bundled"
        : origin === "agent"
          ? "agent-created"
          : "community";
    const scan = scanSkillDir(record.dir, opts.screens ? { screens: opts.screens } : {});
    out.push({
      name,
      dir: relative(skillsDir(home), record.dir).split(sep).join("/"),
      trust,
      origin,
      scan,
      decision: decideInstall(scan.verdict, trust, installed?.forced === true),
    });
  }
  return out;
}
