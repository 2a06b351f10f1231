import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPty, PtyUnavailableError } from "../../src/tools/environments/pty.js";
import { BIN, cleanEnv, killStrays, ROOT, runHermes, sandbox } from "../support/cli.js";
import { skipBecause } from "../support/skip.js";
import { skillMd, treeOf } from "./install-support.js";

/** The rest of `hermes skills`: list, uninstall, audit, reset/diff, and the confirmation on a terminal. */

const ORDINARY = join(ROOT, "test", "fixtures", "skills-ordinary");
const MALICIOUS = join(ROOT, "test", "fixtures", "skills-malicious");

afterEach(() => killStrays());

const run = (home: string, cwd: string, ...args: string[]) =>
  runHermes(["skills", ...args], { env: cleanEnv({ HERMES_HOME: home }), cwd });

describe("hermes skills", () => {
  it("lists bundled skills on a fresh home, then installed ones with their origin", async () => {
    const { home, work } = sandbox();
    const bundledCount = readdirSync(join(ROOT, "skills"), { recursive: true }).filter((p) =>
      String(p).endsWith("SKILL.md"),
    ).length;
    const first = await run(home, work, "list", "--json");
    expect(first.code).toBe(0);
    const listed = JSON.parse(first.stdout) as Array<{ name: string; origin: string }>;
    expect(listed.length).toBe(bundledCount);
    expect(listed.every((s) => s.origin === "bundled")).toBe(true);

    expect((await run(home, work, "install", join(ORDINARY, "jq-recipes"))).code).toBe(0);
    const table = await run(home, work, "list");
    expect(table.stdout).toMatch(/^NAME +CATEGORY +ORIGIN +DESCRIPTION$/m);
    expect(table.stdout).toMatch(/^jq-recipes +installed \(community\) +Reshape JSON/m);
    const inspect = await run(home, work, "inspect", "jq-recipes");
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toMatch(
      /^jq-recipes: Reshape JSON on the command line with jq\.\n {2}folder: +\S+jq-recipes\n/,
    );
    expect(inspect.stdout).toMatch(/^ {2}origin: +installed from \S+skills-ordinary\/jq-recipes/m);
    expect(inspect.stdout).toContain("Scan of jq-recipes (community source): SAFE, 0 findings in 1 file");
  }, 60_000);

  it("uninstalls a skill and forgets where it came from", async () => {
    const { home, work } = sandbox();
    await run(home, work, "install", join(ORDINARY, "git-bisect"));
    const r = await run(home, work, "uninstall", "git-bisect");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Removed 'git-bisect'");
    expect(existsSync(join(home, "skills", "git-bisect"))).toBe(false);
    const lock = JSON.parse(readFileSync(join(home, "skills", ".hub", "lock.json"), "utf8"));
    expect(lock.skills).toEqual({});
    const again = await run(home, work, "uninstall", "git-bisect");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("no skill named 'git-bisect'");
  }, 60_000);

  it("audits everything installed, including a skill copied in by hand", async () => {
    const { home, work } = sandbox();
    await run(home, work, "install", join(ORDINARY, "pytest-loop"));
    const clean = await run(home, work, "audit");
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/^pytest-loop +installed +community +safe +ok$/m);
    // Copied past the installer: the audit is what catches it.
    cpSync(join(MALICIOUS, "persist-ssh-key"), join(home, "skills", "ops-access"), { recursive: true });
    const dirty = await run(home, work, "audit");
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toMatch(/^ops-access +local +community +dangerous +REFUSED$/m);
    expect(dirty.stdout).toMatch(/ops-access \(ops-access\):\n {2}SKILL\.md:10 +CRITICAL +persist_ssh_keys/);
    expect(dirty.stdout).toContain("2 skill(s) scanned: 1 would be refused at their trust level.");
  }, 60_000);

  it("shows and resets the user's edits to a bundled skill", async () => {
    const { home, work } = sandbox();
    await run(home, work, "list");
    const installed = join(home, "skills", "software-development", "plan", "SKILL.md");
    const shipped = readFileSync(installed, "utf8");
    appendFileSync(installed, "\nAlways write the plan to PLAN.md.\n");
    const diff = await run(home, work, "diff", "plan");
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("--- shipped/SKILL.md\n+++ installed/SKILL.md (modified)\n");
    expect(diff.stdout).toContain("+Always write the plan to PLAN.md.");
    expect((await run(home, work, "reset", "plan")).code).toBe(0);
    expect(readFileSync(installed, "utf8")).toBe(shipped);
    expect((await run(home, work, "diff", "plan")).stdout).toBe("'plan' is as shipped.\n");
    expect((await run(home, work, "reset", "no-such-skill")).code).toBe(1);
  }, 60_000);
});

const pty = await loadPty();
const ptyMissing = pty instanceof PtyUnavailableError ? pty.message : undefined;

describe.skipIf(skipBecause("install confirmation on a terminal", ptyMissing))("on a terminal", () => {
  function onTerminal(home: string, cwd: string, args: string[], answer?: string) {
    if (pty instanceof PtyUnavailableError) throw pty;
    const env = cleanEnv({ HERMES_HOME: home }) as Record<string, string>;
    const child = pty(process.execPath, [BIN, "skills", ...args], { cwd, env });
    let output = "";
    let answered = false;
    return new Promise<{ code: number; output: string }>((resolve) => {
      child.onData((d) => {
        output += d;
        if (answer !== undefined && !answered && output.includes("[y/N]")) {
          answered = true;
          child.write(`${answer}\r`);
        }
      });
      child.onExit(({ exitCode }) => resolve({ code: exitCode, output }));
    });
  }

  it("asks before installing; 'n' installs nothing, 'y' and --yes install", async () => {
    const { home, work } = sandbox();
    const src = join(work, "src");
    mkdirSync(src);
    writeFileSync(join(src, "SKILL.md"), skillMd("asked", "Steps."));
    const declined = await onTerminal(home, work, ["install", src], "n");
    expect(declined.output).toContain("Install 'asked' into skills/asked? [y/N]");
    expect(declined.code).toBe(1);
    expect(treeOf(join(home, "skills"))).toEqual([]);
    const accepted = await onTerminal(home, work, ["install", src], "y");
    expect(accepted.code).toBe(0);
    expect(existsSync(join(home, "skills", "asked", "SKILL.md"))).toBe(true);
    await run(home, work, "uninstall", "asked");
    const yes = await onTerminal(home, work, ["install", src, "--yes"]);
    expect(yes.output).not.toContain("[y/N]");
    expect(yes.code).toBe(0);
  }, 60_000);
});
