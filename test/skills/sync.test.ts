import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bundledSkillStates,
  diffBundledSkill,
  resetBundledSkill,
  syncBundledSkills,
} from "../../src/skills/sync.js";
import { skillText, tempDir, writeTree } from "./helpers.js";

let bundle: string;
let home: string;
let cleanups: Array<() => void>;

beforeEach(() => {
  const a = tempDir();
  const b = tempDir();
  bundle = a.dir;
  home = b.dir;
  cleanups = [a.cleanup, b.cleanup];
  writeTree(bundle, {
    "dev/alpha/SKILL.md": skillText("alpha", "First."),
    "dev/alpha/references/notes.md": "alpha notes v1\n",
    "beta/SKILL.md": skillText("beta", "Second."),
  });
});
afterEach(() => {
  for (const c of cleanups) c();
});

const installed = (rel: string): string => readFileSync(join(home, "skills", rel), "utf8");

describe("syncBundledSkills", () => {
  it("seeds a fresh home with every bundled skill and its files", () => {
    const r = syncBundledSkills(home, bundle);
    expect(r.added.sort()).toEqual(["alpha", "beta"]);
    expect(installed("dev/alpha/SKILL.md")).toContain("First.");
    expect(installed("dev/alpha/references/notes.md")).toBe("alpha notes v1\n");
    expect(installed("beta/SKILL.md")).toContain("Second.");
    expect(existsSync(join(home, "skills", ".bundled_manifest"))).toBe(true);
    // Second run: nothing to do.
    expect(syncBundledSkills(home, bundle)).toEqual({
      added: [],
      updated: [],
      keptEdited: [],
      skippedDeleted: [],
    });
  });

  it("updates untouched skills, keeps edited ones, never re-adds deleted ones, adds new ones", () => {
    syncBundledSkills(home, bundle);
    // The user edits alpha and deletes beta.
    writeFileSync(join(home, "skills/dev/alpha/SKILL.md"), skillText("alpha", "First, my way."));
    rmSync(join(home, "skills/beta"), { recursive: true });
    // A new release changes both, adds gamma and changes a file of a fourth untouched skill.
    writeTree(bundle, {
      "dev/alpha/SKILL.md": skillText("alpha", "First v2."),
      "beta/SKILL.md": skillText("beta", "Second v2."),
      "gamma/SKILL.md": skillText("gamma", "Third."),
    });
    const r = syncBundledSkills(home, bundle);
    expect(r.added).toEqual(["gamma"]);
    expect(r.keptEdited).toEqual(["alpha"]);
    expect(r.skippedDeleted).toEqual(["beta"]);
    expect(installed("dev/alpha/SKILL.md")).toContain("First, my way.");
    expect(existsSync(join(home, "skills/beta"))).toBe(false);
    expect(installed("gamma/SKILL.md")).toContain("Third.");
  });

  it("updates an untouched skill, removing files the new version dropped", () => {
    syncBundledSkills(home, bundle);
    writeTree(bundle, { "dev/alpha/SKILL.md": skillText("alpha", "First v2.") });
    rmSync(join(bundle, "dev/alpha/references"), { recursive: true });
    const r = syncBundledSkills(home, bundle);
    expect(r.updated).toEqual(["alpha"]);
    expect(installed("dev/alpha/SKILL.md")).toContain("First v2.");
    expect(existsSync(join(home, "skills/dev/alpha/references/notes.md"))).toBe(false);
  });

  it("adopts a user's own skill of the same name without overwriting it", () => {
    writeTree(home, { "skills/mine/alpha/SKILL.md": skillText("alpha", "Mine.") });
    writeTree(bundle, { "dev/alpha/SKILL.md": skillText("alpha", "First.") });
    // Same folder as the bundle: kept as an edit.
    writeTree(home, { "skills/dev/alpha/SKILL.md": skillText("alpha", "Mine too.") });
    const r = syncBundledSkills(home, bundle);
    expect(r.keptEdited).toEqual(["alpha"]);
    expect(installed("dev/alpha/SKILL.md")).toContain("Mine too.");
  });

  it("reports no bundle when none ships", () => {
    expect(syncBundledSkills(home, null).noBundle).toBe(true);
  });
});

describe("reset and diff", () => {
  it("diffs an edited skill and resets it to the shipped files", () => {
    syncBundledSkills(home, bundle);
    expect(diffBundledSkill(home, "alpha", bundle)).toMatchObject({ ok: true, files: [] });
    writeFileSync(join(home, "skills/dev/alpha/SKILL.md"), skillText("alpha", "Edited."));
    writeTree(home, { "skills/dev/alpha/references/extra.md": "mine\n" });
    rmSync(join(home, "skills/dev/alpha/references/notes.md"));
    const d = diffBundledSkill(home, "alpha", bundle);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.files.map((f) => [f.path, f.status])).toEqual([
      ["SKILL.md", "modified"],
      ["references/extra.md", "added"],
      ["references/notes.md", "removed"],
    ]);
    expect(d.files[0]?.installed).toContain("Edited.");
    expect(d.files[0]?.bundled).toContain("First.");
    expect(bundledSkillStates(home, bundle).get("alpha")).toBe("modified");

    const r = resetBundledSkill(home, "alpha", bundle);
    expect(r.ok).toBe(true);
    expect(installed("dev/alpha/SKILL.md")).toContain("First.");
    expect(existsSync(join(home, "skills/dev/alpha/references/extra.md"))).toBe(false);
    expect(bundledSkillStates(home, bundle).get("alpha")).toBe("pristine");
  });

  it("reset restores a deleted skill; diff says it is missing; unknown names are errors", () => {
    syncBundledSkills(home, bundle);
    rmSync(join(home, "skills/beta"), { recursive: true });
    expect(bundledSkillStates(home, bundle).get("beta")).toBe("deleted");
    const d = diffBundledSkill(home, "beta", bundle);
    expect(d.ok === false && d.error).toMatch(/not installed/);
    expect(resetBundledSkill(home, "beta", bundle).ok).toBe(true);
    expect(installed("beta/SKILL.md")).toContain("Second.");
    expect(resetBundledSkill(home, "nope", bundle)).toEqual({
      ok: false,
      error: "'nope' is not a bundled skill.",
    });
  });
});
