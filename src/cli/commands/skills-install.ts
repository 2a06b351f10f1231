import { relative } from "node:path";
import { formatScanReport } from "../../skills/guard/report.js";
import { type Candidate, prepareInstall } from "../../skills/install.js";
import { readLock } from "../../skills/install-lock.js";
import { checkSkill, sourceOf, uninstallSkill } from "../../skills/install-manage.js";
import { sourceLabel } from "../../skills/install-source.js";
import { skillsDir } from "../../skills/paths.js";
import { confirm, fail, screens, skillsContext, skillsInspectInstalled } from "./skills.js";

/** `hermes skills install | inspect | uninstall | check | update`. */

export interface InstallFlags {
  path?: string;
  ref?: string;
  force?: boolean;
  yes?: boolean;
  all?: boolean;
}

/** Confirmation is asked only on a terminal without --yes; piped runs install what the policy allows. */
const mustAsk = (flags: InstallFlags): boolean => !flags.yes && Boolean(process.stdin.isTTY);

/** Prints the report; commits when the policy and the user agree. Returns the exit code. */
async function finish(
  candidate: Candidate,
  flags: InstallFlags,
  home: string,
  verb: string,
): Promise<number> {
  const label = `${candidate.name} from ${sourceLabel(candidate.source)}`;
  process.stdout.write(
    `${formatScanReport(label, candidate.scan, candidate.trust, candidate.decision, flags)}\n`,
  );
  if (candidate.decision.action !== "allow") {
    candidate.discard();
    process.stderr.write(`hermes: refused to ${verb} '${candidate.name}': ${candidate.decision.reason}\n`);
    return 1;
  }
  const where = relative(home, candidate.destination);
  if (
    mustAsk(flags) &&
    !(await confirm(`${verb === "update" ? "Update" : "Install"} '${candidate.name}' into ${where}?`))
  ) {
    candidate.discard();
    process.stderr.write("Nothing installed.\n");
    return 1;
  }
  try {
    candidate.commit();
  } catch (err) {
    return fail(err);
  }
  process.stdout.write(`${verb === "update" ? "Updated" : "Installed"} '${candidate.name}' in ${where}\n`);
  return 0;
}

export async function skillsInstall(source: string, flags: InstallFlags): Promise<number> {
  try {
    const { home, config } = skillsContext();
    const candidate = await prepareInstall({
      home,
      source,
      cwd: process.cwd(),
      ...(flags.path ? { path: flags.path } : {}),
      ...(flags.ref ? { ref: flags.ref } : {}),
      force: flags.force === true,
      trustedSources: config.skills.trusted_sources,
      screens: await screens(),
    });
    return await finish(candidate, flags, home, "install");
  } catch (err) {
    return fail(err);
  }
}

/** An installed skill by name, or any source: fetched into quarantine, scanned, reported, never installed. */
export async function skillsInspect(target: string, flags: InstallFlags): Promise<number> {
  try {
    const known = await skillsInspectInstalled(target, flags);
    if (known !== undefined) return known;
    const { home, config } = skillsContext();
    const candidate = await prepareInstall({
      home,
      source: target,
      cwd: process.cwd(),
      ...(flags.path ? { path: flags.path } : {}),
      ...(flags.ref ? { ref: flags.ref } : {}),
      trustedSources: config.skills.trusted_sources,
      screens: await screens(),
      replace: true,
    });
    candidate.discard();
    const label = `${candidate.name} from ${sourceLabel(candidate.source)}`;
    process.stdout.write(
      `${candidate.name}: ${candidate.description}\n\n${formatScanReport(label, candidate.scan, candidate.trust, candidate.decision, flags)}\n`,
    );
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function skillsUninstall(name: string, flags: InstallFlags): Promise<number> {
  try {
    const { home } = skillsContext();
    if (mustAsk(flags) && !(await confirm(`Remove the skill '${name}' and its files?`))) return 1;
    const r = uninstallSkill(home, name);
    if (!r.ok) return fail(new Error(r.error));
    process.stdout.write(`Removed '${name}' (${relative(skillsDir(home), r.dir)})\n`);
    return 0;
  } catch (err) {
    return fail(err);
  }
}

export async function skillsCheck(name: string | undefined): Promise<number> {
  try {
    const { home } = skillsContext();
    const records = Object.values(readLock(home)).filter((r) => !name || r.name === name);
    if (records.length === 0) {
      process.stdout.write(
        name ? `'${name}' was not installed from a source.\n` : "No installed skills to check.\n",
      );
      return name ? 1 : 0;
    }
    let failed = false;
    for (const r of records) {
      const c = await checkSkill(home, r);
      if (c.status === "error" || c.status === "missing") failed = true;
      process.stdout.write(`${r.name.padEnd(24)}  ${c.status}${c.detail ? ` (${c.detail})` : ""}\n`);
    }
    return failed ? 1 : 0;
  } catch (err) {
    return fail(err);
  }
}

/** Reinstalls skills whose source changed; each new version passes the scan again. */
export async function skillsUpdate(name: string | undefined, flags: InstallFlags): Promise<number> {
  try {
    const { home, config } = skillsContext();
    const records = Object.values(readLock(home)).filter((r) => !name || r.name === name);
    if (records.length === 0) {
      process.stdout.write(
        name ? `'${name}' was not installed from a source.\n` : "No installed skills to update.\n",
      );
      return name ? 1 : 0;
    }
    let code = 0;
    const guard = await screens();
    for (const r of records) {
      const c = await checkSkill(home, r);
      if (c.status === "up-to-date" || (c.status === "modified" && !flags.force)) {
        process.stdout.write(
          `${r.name}: ${c.status === "modified" ? "edited since install; --force replaces the edits" : "up to date"}\n`,
        );
        continue;
      }
      if (c.status !== "update-available" && c.status !== "modified") {
        process.stderr.write(`hermes: ${r.name}: ${c.status}${c.detail ? ` (${c.detail})` : ""}\n`);
        code = 1;
        continue;
      }
      const candidate = await prepareInstall({
        home,
        source: sourceOf(r),
        force: flags.force === true,
        trustedSources: config.skills.trusted_sources,
        screens: guard,
        replace: true,
      });
      code = Math.max(code, await finish(candidate, flags, home, "update"));
    }
    return code;
  } catch (err) {
    return fail(err);
  }
}
