import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bundledSkillsDir, listBundledSkills } from "../../src/skills/bundled-files.js";
import { parseSkillMd } from "../../src/skills/skill-file.js";

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
const TEXT = "---\nname: tidy\ndescription: Tidies things.\n---\nBody.\n";
const PARSED = parseSkillMd(TEXT, "/bundle/tools/tidy/SKILL.md");

const dirs: string[] = [];
afterEach(() => {
  delete (globalThis as { __HERMES_BUILD_ID__?: string }).__HERMES_BUILD_ID__;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A package folder holding dist/bundled-skills.json with one entry for TEXT at tools/tidy. */
function packageWithTable(buildId: string): string {
  const root = mkdtempSync(join(tmpdir(), "hermes-prebuilt-"));
  dirs.push(root);
  mkdirSync(join(root, "dist"));
  if (!PARSED.ok) throw new Error(PARSED.error);
  const skills = { [`tools/tidy\0${sha(TEXT)}`]: PARSED.skill };
  writeFileSync(join(root, "dist", "bundled-skills.json"), JSON.stringify({ buildId, skills }));
  return root;
}

/** bundled-parsed.ts with fresh module state (it loads its table once per process). */
async function freshModule(buildId: string | undefined) {
  vi.resetModules();
  if (buildId) (globalThis as { __HERMES_BUILD_ID__?: string }).__HERMES_BUILD_ID__ = buildId;
  return import("../../src/skills/bundled-parsed.js");
}

describe("bundled skills parsed at build time", () => {
  it("answers for the exact text and folder of an entry made by the same build", async () => {
    const root = packageWithTable("build-1");
    const { prebuiltParse } = await freshModule("build-1");
    expect(prebuiltParse(root, "tools/tidy", sha(TEXT))).toEqual(PARSED.ok && PARSED.skill);
    expect(prebuiltParse(root, "tools/tidy", sha(`${TEXT}\nmore`))).toBeUndefined();
    expect(prebuiltParse(root, "other/tidy", sha(TEXT))).toBeUndefined();
  });

  it("is not used by another build, nor outside a bundle (no build id)", async () => {
    const root = packageWithTable("build-1");
    expect((await freshModule("build-2")).prebuiltParse(root, "tools/tidy", sha(TEXT))).toBeUndefined();
    expect((await freshModule(undefined)).prebuiltParse(root, "tools/tidy", sha(TEXT))).toBeUndefined();
  });

  it("hands out copies: changing one answer does not change the next", async () => {
    const root = packageWithTable("build-1");
    const { prebuiltParse } = await freshModule("build-1");
    prebuiltParse(root, "tools/tidy", sha(TEXT))?.tags.push("changed");
    expect(prebuiltParse(root, "tools/tidy", sha(TEXT))?.tags).toEqual([]);
  });

  it("holds what parseSkillMd gives for every shipped skill (when a bundle was built)", () => {
    const table = join(import.meta.dirname, "..", "..", "dist", "bundled-skills.json");
    if (!existsSync(table)) return; // `npm test` builds dist/ first
    const { skills } = JSON.parse(readFileSync(table, "utf8")) as { skills: Record<string, unknown> };
    const shipped = listBundledSkills(bundledSkillsDir({}));
    expect(shipped.length).toBeGreaterThan(0);
    for (const skill of shipped) {
      const path = join(skill.dir, "SKILL.md");
      const text = readFileSync(path, "utf8");
      const parsed = parseSkillMd(text, path);
      expect(skills[`${skill.relDir}\0${sha(text)}`], skill.relDir).toEqual(parsed.ok && parsed.skill);
    }
  });
});
