import { createInterface } from "node:readline";
import { type HermesConfig, loadConfig } from "../../core/config.js";
import { ensureHermesHome, getHermesHome } from "../../core/home.js";
import { loadSkillScreens } from "../../runtime/skill-screens.js";
import { restoreSkill, runCurator } from "../../skills/curator.js";
import { scanSkills } from "../../skills/discovery.js";
import { formatFindings, formatScanReport } from "../../skills/guard/report.js";
import type { GuardScreens } from "../../skills/guard/types.js";
import { readLock } from "../../skills/install-lock.js";
import { auditSkills } from "../../skills/install-manage.js";
import { skillOrigins } from "../../skills/install-origin.js";
import { diffBundledSkill, resetBundledSkill, syncBundledSkills } from "../../skills/sync.js";
import { readUsage, setPinned } from "../../skills/usage.js";
import { describeFatal } from "../errors.js";

/** `hermes skills ...`: listing, inspection, audit, bundled-skill reset/diff and the curator. */

export interface SkillsContext {
  home: string;
  config: HermesConfig;
}

export function skillsContext(): SkillsContext {
  const paths = ensureHermesHome(getHermesHome());
  return { home: paths.home, config: loadConfig(paths.config).config };
}

export function fail(err: unknown): number {
  process.stderr.write(`${describeFatal(err)}\n`);
  return 1;
}

/** The command and injection screens the scan adds to its own rules. */
export const screens = (): Promise<GuardScreens> => loadSkillScreens();

/** Asks a yes/no question on the terminal; false when there is no answer. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(`${question} [y/N] `, resolve);
      rl.once("close", () => resolve(""));
    });
    return /^y(?:es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
};

const clipText = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export async function skillsList(opts: { json?: boolean; category?: string }): Promise<number> {
  try {
    const { home, config } = skillsContext();
    const sync = syncBundledSkills(home);
    const { skills, problems } = scanSkills(home, config.skills.external_dirs);
    const originOf = skillOrigins(home);
    const origin = (name: string, source: string): string => {
      if (source === "external") return "external";
      const o = originOf(name);
      return o === "installed"
        ? `installed (${originOf.record(name)!.trust})`
        : o === "bundled-edited"
          ? "bundled, edited"
          : o;
    };
    const rows = skills
      .filter((s) => !opts.category || s.category === opts.category)
      .map((s) => ({
        name: s.skill.name,
        category: s.category ?? "",
        origin: origin(s.skill.name, s.source),
        description: s.skill.description,
        dir: s.dir,
      }));
    for (const p of problems) process.stderr.write(`warning: ${p}\n`);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (sync.added.length > 0) process.stderr.write(`Added ${sync.added.length} bundled skill(s).\n`);
    if (rows.length === 0) {
      process.stdout.write("No skills yet.\n");
      return 0;
    }
    const body = rows.map((r) => [r.name, r.category, r.origin, clipText(r.description, 70)]);
    process.stdout.write(`${table([["NAME", "CATEGORY", "ORIGIN", "DESCRIPTION"], ...body])}\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function skillsAudit(opts: { all?: boolean; json?: boolean }): Promise<number> {
  try {
    const { home, config } = skillsContext();
    const entries = auditSkills(home, {
      screens: await screens(),
      trustedSources: config.skills.trusted_sources,
    });
    const refused = entries.filter((e) => e.decision.action === "block");
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      return refused.length > 0 ? 1 : 0;
    }
    if (entries.length === 0) {
      process.stdout.write("No skills installed.\n");
      return 0;
    }
    const rows = entries.map((e) => [
      e.name,
      e.origin,
      e.trust,
      e.scan.verdict,
      e.decision.action === "block" ? "REFUSED" : e.decision.action === "ask" ? "ask" : "ok",
    ]);
    process.stdout.write(`${table([["NAME", "ORIGIN", "TRUST", "VERDICT", "POLICY"], ...rows])}\n`);
    for (const e of entries) {
      const shown = e.scan.findings.filter(
        (f) => opts.all || f.severity === "critical" || f.severity === "high",
      );
      if (shown.length === 0) continue;
      process.stdout.write(`\n${e.name} (${e.dir}):\n${formatFindings(shown).join("\n")}\n`);
    }
    process.stdout.write(
      `\n${entries.length} skill(s) scanned: ${refused.length} would be refused at their trust level.\n`,
    );
    return refused.length > 0 ? 1 : 0;
  } catch (err) {
    return fail(err);
  }
}

export async function skillsInspectInstalled(
  name: string,
  opts: { all?: boolean },
): Promise<number | undefined> {
  const { home, config } = skillsContext();
  const [entry] = auditSkills(home, {
    screens: await screens(),
    trustedSources: config.skills.trusted_sources,
    only: name,
  });
  if (!entry) return undefined;
  const record = scanSkills(home).skills.find((s) => s.skill.name === name)!;
  const lock = readLock(home)[name];
  const usage = readUsage(home)[name];
  const lines = [
    `${name}: ${record.skill.description}`,
    `  folder:   ${record.dir}`,
    `  origin:   ${entry.origin}${lock ? ` from ${lock.location}${lock.ref ? `#${lock.ref}` : ""} (${lock.installedAt})` : ""}`,
  ];
  if (record.skill.version) lines.push(`  version:  ${record.skill.version}`);
  if (record.skill.author) lines.push(`  author:   ${record.skill.author}`);
  if (usage?.last_viewed || usage?.last_used)
    lines.push(`  used:     viewed ${usage.last_viewed ?? "never"}, run ${usage.last_used ?? "never"}`);
  if (usage?.pinned) lines.push("  pinned:   yes (the curator never archives it)");
  lines.push("", formatScanReport(name, entry.scan, entry.trust, entry.decision, opts));
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

export function skillsReset(name: string): number {
  try {
    const r = resetBundledSkill(skillsContext().home, name);
    if (!r.ok) return fail(new Error(r.error));
    process.stdout.write(`Restored bundled skill '${name}' in ${r.dir}\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

/** A plain line diff (shipped → installed), enough to see what a user changed. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  // Longest common subsequence table, bounded so a huge file cannot stall the command.
  if (n * m > 4_000_000) return [...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)];
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+${b[j++]}`);
    else out.push(`-${a[i++]}`);
  }
  return out;
}

export function skillsDiff(name: string): number {
  try {
    const r = diffBundledSkill(skillsContext().home, name);
    if (!r.ok) return fail(new Error(r.error));
    if (r.files.length === 0) {
      process.stdout.write(`'${name}' is as shipped.\n`);
      return 0;
    }
    for (const f of r.files) {
      process.stdout.write(`--- shipped/${f.path}\n+++ installed/${f.path} (${f.status})\n`);
      const lines = lineDiff(f.bundled ?? "", f.installed ?? "");
      process.stdout.write(`${lines.filter((l) => !l.startsWith(" ")).join("\n")}\n`);
    }
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export function skillsPin(name: string, pinned: boolean): number {
  try {
    const { home } = skillsContext();
    if (!scanSkills(home).skills.some((s) => s.skill.name === name))
      return fail(new Error(`no skill named '${name}'`));
    setPinned(home, name, pinned);
    process.stdout.write(pinned ? `Pinned '${name}': never archived.\n` : `Unpinned '${name}'.\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export function skillsCurate(opts: { dryRun?: boolean }): number {
  try {
    const { home, config } = skillsContext();
    const { curator } = config;
    const report = runCurator({
      home,
      archiveAfterDays: curator.archive_after_days,
      staleAfterDays: curator.stale_after_days,
      pruneBuiltins: curator.prune_builtins,
      backupKeep: curator.backup.enabled ? curator.backup.keep : 0,
      ...(opts.dryRun ? { dryRun: true } : {}),
    });
    if (report.backup) process.stdout.write(`Backed up the skills folder to ${report.backup}\n`);
    const verb = opts.dryRun ? "Would archive" : "Archived";
    for (const a of report.archived)
      process.stdout.write(
        `${verb} '${a.name}' (${a.origin}, unused for ${a.idleDays} days) → skills/${a.archivedTo}\n`,
      );
    for (const s of report.stale)
      process.stdout.write(`Stale: '${s.name}' (unused for ${s.idleDays} days)\n`);
    process.stdout.write(
      `${report.considered} skill(s) looked after, ${report.archived.length} ${opts.dryRun ? "to archive" : "archived"}, ${report.pinned.length} pinned. Archived skills are kept; 'hermes skills restore NAME' brings one back.\n`,
    );
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export function skillsRestore(name: string): number {
  try {
    const r = restoreSkill(skillsContext().home, name);
    if (!r.ok) return fail(new Error(r.error));
    process.stdout.write(`Restored '${name}' to ${r.dir}\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}
