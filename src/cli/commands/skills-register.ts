/**
 * `hermes skills ...`: command definitions only. The implementations load on use, so
 * `hermes --help` stays fast.
 */
import type { Command } from "commander";

const loadMain = () => import("./skills.js");
const loadInstall = () => import("./skills-install.js");

export function addSkillsCommands(program: Command, setExit: (code: number) => void): void {
  const skills = program
    .command("skills")
    .description(
      "skills: list | inspect | install | uninstall | check | update | audit | reset | diff | curate | pin | unpin | restore",
    );
  skills
    .command("list")
    .description("list the skills of this profile (bundled ones are added or updated first)")
    .option("--category <name>", "only this category")
    .option("--json", "print JSON")
    .action(async (opts: { category?: string; json?: boolean }) =>
      setExit(await (await loadMain()).skillsList(opts)),
    );
  skills
    .command("inspect")
    .description("show an installed skill, or fetch and scan a source without installing it")
    .argument("<name|source>", "a skill name, a folder, a git URL, a .tar.gz URL or a SKILL.md URL")
    .option("--path <dir>", "folder of the skill inside the source")
    .option("--ref <ref>", "git branch or tag")
    .option("--all", "list low-severity findings too")
    .action(async (target: string, opts) => setExit(await (await loadInstall()).skillsInspect(target, opts)));
  skills
    .command("install")
    .description("install a skill after a security scan (refused ones leave nothing behind)")
    .argument("<source>", "a folder, a git URL, a .tar.gz URL, a SKILL.md URL or owner/repo[/dir]")
    .option("--path <dir>", "folder of the skill inside the source")
    .option("--ref <ref>", "git branch or tag")
    .option("--force", "install despite a 'caution' verdict (never a 'dangerous' one)")
    .option("-y, --yes", "do not ask for confirmation on a terminal")
    .option("--all", "list low-severity findings too")
    .action(async (source: string, opts) => setExit(await (await loadInstall()).skillsInstall(source, opts)));
  skills
    .command("uninstall")
    .description("remove a skill of this profile")
    .argument("<name>", "skill name")
    .option("-y, --yes", "do not ask for confirmation on a terminal")
    .action(async (name: string, opts) => setExit(await (await loadInstall()).skillsUninstall(name, opts)));
  skills
    .command("check")
    .description("compare installed skills with their sources (nothing is changed)")
    .argument("[name]", "only this skill")
    .action(async (name?: string) => setExit(await (await loadInstall()).skillsCheck(name)));
  skills
    .command("update")
    .description("reinstall skills whose source changed (each passes the scan again)")
    .argument("[name]", "only this skill")
    .option("--force", "admit a 'caution' verdict; replace local edits")
    .option("-y, --yes", "do not ask for confirmation on a terminal")
    .action(async (name: string | undefined, opts) =>
      setExit(await (await loadInstall()).skillsUpdate(name, opts)),
    );
  skills
    .command("audit")
    .description("rescan every skill of this profile; exit 1 if one would be refused at its trust level")
    .option("--all", "list every finding, not only high and critical ones")
    .option("--json", "print JSON")
    .action(async (opts) => setExit(await (await loadMain()).skillsAudit(opts)));
  skills
    .command("reset")
    .description("restore a bundled skill to its shipped files")
    .argument("<name>", "bundled skill name")
    .action(async (name: string) => setExit((await loadMain()).skillsReset(name)));
  skills
    .command("diff")
    .description("show how a bundled skill differs from the shipped one")
    .argument("<name>", "bundled skill name")
    .action(async (name: string) => setExit((await loadMain()).skillsDiff(name)));
  skills
    .command("curate")
    .description("archive agent-created skills unused for curator.archive_after_days (never deletes)")
    .option("--dry-run", "only report what would be archived")
    .action(async (opts: { dryRun?: boolean }) => setExit((await loadMain()).skillsCurate(opts)));
  skills
    .command("pin")
    .description("keep a skill from ever being archived by the curator")
    .argument("<name>", "skill name")
    .action(async (name: string) => setExit((await loadMain()).skillsPin(name, true)));
  skills
    .command("unpin")
    .description("let the curator archive a skill again")
    .argument("<name>", "skill name")
    .action(async (name: string) => setExit((await loadMain()).skillsPin(name, false)));
  skills
    .command("restore")
    .description("bring an archived skill back")
    .argument("<name>", "skill name")
    .action(async (name: string) => setExit((await loadMain()).skillsRestore(name)));
}
