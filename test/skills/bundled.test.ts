import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundledSkillsDir, listBundledSkills } from "../../src/skills/bundled-files.js";
import { parseSkillMd } from "../../src/skills/skill-file.js";

const root = join(import.meta.dirname, "..", "..", "skills");

describe("bundled skills", () => {
  const skills = listBundledSkills(root);

  it("are found next to package.json", () => {
    expect(bundledSkillsDir({})).toBe(root);
  });

  it("ship at least twelve valid skills with unique names matching their folders", () => {
    expect(skills.length).toBeGreaterThanOrEqual(12);
    expect(new Set(skills.map((s) => s.name)).size).toBe(skills.length);
    for (const s of skills) {
      const path = join(s.dir, "SKILL.md");
      const parsed = parseSkillMd(readFileSync(path, "utf8"), path);
      expect(parsed.ok, path).toBe(true);
      if (!parsed.ok) continue;
      expect(basename(s.dir)).toBe(s.name);
      // Categories are folders: skills/<category>/<name>.
      expect(s.relDir.split("/")).toHaveLength(2);
      const { skill } = parsed;
      expect(skill.description.length, s.name).toBeLessThanOrEqual(80);
      expect(skill.version, s.name).toBeTruthy();
      expect(skill.tags.length, s.name).toBeGreaterThan(0);
      // A real procedure: several sections and a list of pitfalls.
      expect(skill.body.match(/^## /gm)?.length ?? 0, s.name).toBeGreaterThanOrEqual(3);
      expect(skill.body, s.name).toMatch(/^## Pitfalls/m);
      for (const related of skill.relatedSkills) {
        expect(
          skills.map((x) => x.name),
          `${s.name} → ${related}`,
        ).toContain(related);
      }
    }
  });
});
