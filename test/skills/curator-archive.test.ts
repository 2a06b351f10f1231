import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { restoreSkill, runCurator } from "../../src/skills/curator.js";
import { scanSkills } from "../../src/skills/discovery.js";
import { bundledSkillStates, syncBundledSkills } from "../../src/skills/sync.js";
import { readUsage, recordSkillUse, setPinned, updateUsage } from "../../src/skills/usage.js";
import { cleanEnv, killStrays, runHermes, sandbox } from "../support/cli.js";
import { skillMd, treeOf } from "./install-support.js";

const DAY = 86_400_000;
const NOW = new Date("2025-06-01T12:00:00Z");
const daysAgo = (n: number): Date => new Date(NOW.getTime() - n * DAY);

const temps: string[] = [];
afterEach(() => {
  killStrays();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function home(): string {
  const h = mkdtempSync(join(tmpdir(), "curator-"));
  temps.push(h);
  return h;
}

function addSkill(h: string, rel: string, name: string, mtime?: Date): void {
  const dir = join(h, "skills", rel);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), skillMd(name, "Steps."));
  if (mtime) utimesSync(join(dir, "SKILL.md"), mtime, mtime);
}

const names = (h: string): string[] =>
  scanSkills(h)
    .skills.map((s) => s.skill.name)
    .sort();

describe("usage tracking", () => {
  it("records views, runs and writes, and marks skills the agent created", () => {
    const h = home();
    recordSkillUse(h, "a", "create", daysAgo(10));
    recordSkillUse(h, "a", "view", daysAgo(5));
    recordSkillUse(h, "a", "view", daysAgo(4));
    recordSkillUse(h, "a", "invoke", daysAgo(3));
    recordSkillUse(h, "a", "edit", daysAgo(2));
    recordSkillUse(h, "b", "view", daysAgo(1));
    expect(readUsage(h)).toEqual({
      a: {
        created_by: "agent",
        created_at: daysAgo(10).toISOString(),
        last_changed: daysAgo(2).toISOString(),
        last_viewed: daysAgo(4).toISOString(),
        views: 2,
        last_used: daysAgo(3).toISOString(),
        uses: 1,
      },
      b: { last_viewed: daysAgo(1).toISOString(), views: 1 },
    });
    recordSkillUse(h, "a", "delete");
    expect(Object.keys(readUsage(h))).toEqual(["b"]);
  });

  it("never throws, even when the home cannot be written", () => {
    const h = home();
    writeFileSync(join(h, "skills"), "a file where the folder should be");
    expect(() => recordSkillUse(h, "a", "view")).not.toThrow();
  });
});

describe("the curator", () => {
  function populated(): string {
    const h = home();
    addSkill(h, "old-agent", "old-agent");
    addSkill(h, "notes/recent-agent", "recent-agent");
    addSkill(h, "pinned-agent", "pinned-agent");
    addSkill(h, "stale-agent", "stale-agent");
    addSkill(h, "users-own", "users-own", daysAgo(400));
    recordSkillUse(h, "old-agent", "create", daysAgo(200));
    recordSkillUse(h, "old-agent", "view", daysAgo(120));
    recordSkillUse(h, "recent-agent", "create", daysAgo(200));
    recordSkillUse(h, "recent-agent", "invoke", daysAgo(3));
    recordSkillUse(h, "pinned-agent", "create", daysAgo(300));
    recordSkillUse(h, "stale-agent", "create", daysAgo(45));
    setPinned(h, "pinned-agent", true);
    return h;
  }

  it("archives idle agent-created skills, never deletes, and leaves pinned and other skills alone", () => {
    const h = populated();
    const before = readFileSync(join(h, "skills", "old-agent", "SKILL.md"), "utf8");
    const report = runCurator({ home: h, archiveAfterDays: 90, staleAfterDays: 30, now: NOW });
    expect(report).toEqual({
      archived: [
        {
          name: "old-agent",
          dir: "old-agent",
          idleDays: 120,
          origin: "agent",
          archivedTo: ".archive/old-agent-20250601T120000",
        },
      ],
      stale: [{ name: "stale-agent", dir: "stale-agent", idleDays: 45, origin: "agent" }],
      pinned: ["pinned-agent"],
      considered: 4,
    });
    expect(names(h)).toEqual(["pinned-agent", "recent-agent", "stale-agent", "users-own"]);
    expect(readFileSync(join(h, "skills", ".archive", "old-agent-20250601T120000", "SKILL.md"), "utf8")).toBe(
      before,
    );
    expect(readUsage(h)["old-agent"]).toMatchObject({
      archived_from: "old-agent",
      archived_to: ".archive/old-agent-20250601T120000",
    });
    expect(JSON.parse(readFileSync(join(h, "skills", ".curator_state"), "utf8"))).toEqual({
      last_run: NOW.toISOString(),
      archived: 1,
    });
  });

  it("reports without moving anything on a dry run", () => {
    const h = populated();
    const tree = treeOf(join(h, "skills"));
    const report = runCurator({ home: h, archiveAfterDays: 90, now: NOW, dryRun: true });
    expect(report.archived.map((a) => a.name)).toEqual(["old-agent"]);
    expect(treeOf(join(h, "skills"))).toEqual(tree);
  });

  it("falls back to the file's age when usage has no dates", () => {
    const h = home();
    addSkill(h, "undated", "undated", daysAgo(100));
    updateUsage(h, (u) => {
      u.undated = { created_by: "agent" };
    });
    expect(runCurator({ home: h, archiveAfterDays: 90, now: NOW }).archived.map((a) => a.idleDays)).toEqual([
      100,
    ]);
  });

  it("archives unedited bundled skills only with prune_builtins, after a backup", () => {
    const h = home();
    syncBundledSkills(h);
    const now = new Date();
    const old = new Date(now.getTime() - 200 * DAY);
    const plan = join(h, "skills", "software-development", "plan", "SKILL.md");
    const review = join(h, "skills", "software-development", "code-review", "SKILL.md");
    writeFileSync(review, `${readFileSync(review, "utf8")}\nMy own rule.\n`);
    utimesSync(plan, old, old);
    utimesSync(review, old, old);
    expect(runCurator({ home: h, archiveAfterDays: 90, now }).considered).toBe(0);
    const bundledCount = bundledSkillStates(h).size;
    const report = runCurator({ home: h, archiveAfterDays: 90, now, pruneBuiltins: true, backupKeep: 2 });
    expect(report.considered).toBe(bundledCount - 1);
    expect(report.archived.map((a) => [a.name, a.origin])).toEqual([["plan", "bundled"]]);
    expect(readFileSync(join(report.backup!, "software-development", "plan", "SKILL.md"), "utf8")).toContain(
      "name: plan",
    );
    // The sync treats an archived bundled skill like a deleted one: it does not come back.
    syncBundledSkills(h);
    expect(names(h)).not.toContain("plan");
    expect(names(h)).toContain("code-review");
    for (let i = 1; i <= 3; i++) {
      addSkill(h, `agent-${i}`, `agent-${i}`);
      recordSkillUse(h, `agent-${i}`, "create", old);
      runCurator({ home: h, archiveAfterDays: 90, now: new Date(now.getTime() + i * 1000), backupKeep: 2 });
    }
    expect(readdirSync(join(h, "backups", "skills"))).toHaveLength(2);
  });

  it("restores an archived skill to where it was", () => {
    const h = populated();
    runCurator({ home: h, archiveAfterDays: 90, now: NOW });
    expect(restoreSkill(h, "old-agent", NOW)).toEqual({ ok: true, dir: join(h, "skills", "old-agent") });
    expect(names(h)).toContain("old-agent");
    expect(readUsage(h)["old-agent"]?.archived_to).toBeUndefined();
    // Restored means used again: the next run keeps it.
    expect(runCurator({ home: h, archiveAfterDays: 90, now: NOW }).archived).toEqual([]);
    expect(restoreSkill(h, "old-agent")).toEqual({
      ok: false,
      error: "'old-agent' is not an archived skill",
    });
  });
});

describe("hermes skills curate", () => {
  it("archives with curator.archive_after_days, and pin protects a skill", async () => {
    const { home: h, work } = sandbox("curator:\n  archive_after_days: 7\n");
    addSkill(h, "tools/one-off", "one-off");
    addSkill(h, "tools/keeper", "keeper");
    const old = new Date(Date.now() - 30 * DAY);
    recordSkillUse(h, "one-off", "create", old);
    recordSkillUse(h, "keeper", "create", old);
    const env = cleanEnv({ HERMES_HOME: h });
    expect((await runHermes(["skills", "pin", "keeper"], { env, cwd: work })).code).toBe(0);
    const dry = await runHermes(["skills", "curate", "--dry-run"], { env, cwd: work });
    expect(dry.stdout).toMatch(/^Would archive 'one-off' \(agent, unused for 30 days\)/m);
    const r = await runHermes(["skills", "curate"], { env, cwd: work });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Archived 'one-off' \(agent, unused for 30 days\) → skills\/\.archive\/one-off-\d{8}T\d{6}$/m,
    );
    expect(r.stdout).toContain("2 skill(s) looked after, 1 archived, 1 pinned.");
    expect(names(h)).toEqual(["keeper"]);
    expect(r.stdout).toMatch(/^Backed up the skills folder to .*backups\/skills\/\d{8}T\d{6}$/m);
    const back = await runHermes(["skills", "restore", "one-off"], { env, cwd: work });
    expect(back.code).toBe(0);
    expect(names(h)).toEqual(["keeper", "one-off"]);
  }, 60_000);
});
