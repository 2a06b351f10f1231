import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, killStrays, ROOT, runHermes, sandbox } from "../support/cli.js";
import { bundledSkillDirs, inBatches, treeOf } from "./install-support.js";

/** Both corpora through the real `hermes skills install`. */

const MALICIOUS = join(ROOT, "test", "fixtures", "skills-malicious");
const ORDINARY = join(ROOT, "test", "fixtures", "skills-ordinary");
const BUNDLED = join(ROOT, "skills");
const WIDTH = 3;

afterEach(() => killStrays());

const dirs = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(root, e.name))
    .sort();

describe("hermes skills install", () => {
  it("refuses every malicious skill and leaves nothing of it under skills/ or in quarantine", async () => {
    const skills = dirs(MALICIOUS);
    expect(skills.length).toBeGreaterThanOrEqual(40);
    const { home, work } = sandbox();
    const env = cleanEnv({ HERMES_HOME: home });
    const results = await inBatches(skills, WIDTH, (dir) =>
      runHermes(["skills", "install", dir], { env, cwd: work }),
    );
    const accepted = results.flatMap((r, i) => (r.code === 0 ? [skills[i]] : []));
    expect(accepted).toEqual([]);
    for (const r of results) {
      expect(r.stdout).toMatch(/: (DANGEROUS|CAUTION), \d+ findings? in \d+ files?/);
      expect(r.stdout).toMatch(/^ {2}\S+:\d+ +(CRITICAL|HIGH) +\w+ /m);
      expect(r.stderr).toMatch(/refused to install '[\w.-]+'/);
    }
    expect(treeOf(join(home, "skills"))).toEqual([]);
    expect(treeOf(join(home, "cache", "quarantine"))).toEqual([]);
  }, 600_000);

  it("installs every ordinary skill, bundled ones included, without asking when there is no terminal", async () => {
    const skills = [...dirs(ORDINARY), ...bundledSkillDirs()];
    expect(skills.length).toBeGreaterThanOrEqual(40 + 12);
    // Bundled skills go to a home of their own: their names would meet the bundled copies in one.
    const homes = [sandbox(), sandbox()];
    const homeOf = (dir: string) => homes[dir.startsWith(BUNDLED) ? 1 : 0]!;
    const results = await inBatches(skills, WIDTH, (dir) =>
      runHermes(["skills", "install", dir], {
        env: cleanEnv({ HERMES_HOME: homeOf(dir).home }),
        cwd: homeOf(dir).work,
      }),
    );
    const refused = results.flatMap((r, i) => (r.code === 0 ? [] : [`${skills[i]}: ${r.stdout}${r.stderr}`]));
    expect(refused).toEqual([]);
    for (const r of results) expect(r.stdout).toMatch(/SAFE.*\n(?:.*\n)*Installed '[\w.-]+' in skills\//);
    for (const { home } of homes) {
      const lock = JSON.parse(readFileSync(join(home, "skills", ".hub", "lock.json"), "utf8")) as {
        skills: Record<string, { dir: string; trust: string; verdict: string; kind: string }>;
      };
      for (const rec of Object.values(lock.skills)) {
        expect(rec).toMatchObject({ trust: "community", verdict: "safe", kind: "local" });
        expect(existsSync(join(home, "skills", rec.dir, "SKILL.md"))).toBe(true);
      }
    }
    const total = homes.map(
      ({ home }) => treeOf(join(home, "skills")).filter((p) => p.endsWith("/SKILL.md")).length,
    );
    expect(total[0]! + total[1]!).toBe(skills.length);
    expect(treeOf(join(homes[0]!.home, "cache", "quarantine"))).toEqual([]);
  }, 600_000);
});
