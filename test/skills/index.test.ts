import { existsSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scanSkills } from "../../src/skills/discovery.js";
import { clearIndexMemory, loadIndexEntries, snapshotPath } from "../../src/skills/index-cache.js";
import {
  buildSkillsIndex,
  clipDescription,
  renderSkillsIndex,
  SKILLS_INDEX_HEADER,
} from "../../src/skills/prompt-index.js";
import { hiddenReason, type VisibilityContext } from "../../src/skills/visibility.js";
import { skillText, tempDir, writeTree } from "./helpers.js";

let home: string;
let ext: string;
let cleanups: Array<() => void>;

beforeEach(() => {
  const a = tempDir();
  const b = tempDir();
  home = a.dir;
  ext = b.dir;
  cleanups = [a.cleanup, b.cleanup];
  clearIndexMemory();
});
afterEach(() => {
  for (const c of cleanups) c();
});

const ctx = (over: Partial<VisibilityContext> = {}): VisibilityContext => ({
  os: "linux",
  tools: new Set(["terminal", "skill_view"]),
  toolsets: new Set(["terminal", "skills"]),
  disabled: new Set(),
  ...over,
});

describe("discovery", () => {
  it("finds skills in category folders and external dirs, skipping broken and duplicate ones", () => {
    writeTree(home, {
      "skills/dev/one/SKILL.md": skillText("one", "First."),
      "skills/dev/one/references/deep/SKILL.md": skillText("nested", "Not a skill: inside a skill."),
      "skills/two/SKILL.md": skillText("two", "Second."),
      "skills/broken/SKILL.md": "no frontmatter\n",
      "skills/.archive/old/SKILL.md": skillText("old", "Archived."),
    });
    writeTree(ext, {
      "x/three/SKILL.md": skillText("three", "Third."),
      "x/one/SKILL.md": skillText("one", "Shadowed by the home's."),
    });
    const r = scanSkills(home, [ext]);
    expect(r.skills.map((s) => [s.skill.name, s.category, s.source])).toEqual([
      ["one", "dev", "home"],
      ["two", undefined, "home"],
      ["three", "x", "external"],
    ]);
    expect(r.problems).toHaveLength(2);
    expect(r.problems.find((p) => p.includes("broken"))).toMatch(
      /broken\/SKILL\.md: missing YAML frontmatter/,
    );
    expect(r.problems.find((p) => p.includes("already defined"))).toContain(join(ext, "x/one/SKILL.md"));
  });

  it("follows a symlinked category without looping on a link to an ancestor", () => {
    writeTree(ext, { "cat/linked/SKILL.md": skillText("linked", "Via link.") });
    writeTree(home, { "skills/a/SKILL.md": skillText("a", "A.") });
    symlinkSync(join(ext, "cat"), join(home, "skills", "cat"));
    symlinkSync(join(home, "skills"), join(home, "skills", "loop"));
    const names = scanSkills(home).skills.map((s) => s.skill.name);
    expect(names).toEqual(["a", "linked"]);
  });
});

describe("visibility", () => {
  const base = {
    name: "s",
    platforms: [] as string[],
    requiresToolsets: [] as string[],
    requiresTools: [] as string[],
    fallbackForToolsets: [] as string[],
    fallbackForTools: [] as string[],
  };
  it("applies platforms, disabled names, requirements and fallbacks", () => {
    expect(hiddenReason(base, ctx())).toBeUndefined();
    expect(hiddenReason({ ...base, platforms: ["macos"] }, ctx())?.kind).toBe("platform");
    expect(hiddenReason({ ...base, platforms: ["darwin"] }, ctx({ os: "darwin" }))).toBeUndefined();
    expect(hiddenReason(base, ctx({ disabled: new Set(["s"]) }))?.kind).toBe("disabled");
    expect(hiddenReason({ ...base, requiresToolsets: ["browser"] }, ctx())).toEqual({
      kind: "requires",
      missing: ["browser"],
    });
    expect(hiddenReason({ ...base, requiresTools: ["terminal"] }, ctx())).toBeUndefined();
    expect(hiddenReason({ ...base, fallbackForToolsets: ["terminal"] }, ctx())).toEqual({
      kind: "fallback",
      present: ["terminal"],
    });
    expect(hiddenReason({ ...base, fallbackForTools: ["web_search"] }, ctx())).toBeUndefined();
  });
});

describe("index", () => {
  it("lists name and description by category, never the body", () => {
    writeTree(home, {
      "skills/dev/alpha/SKILL.md": skillText("alpha", "Alpha things.", "SECRET BODY STEP\n"),
      "skills/beta/SKILL.md": skillText("beta", "Beta things."),
      "skills/mac/SKILL.md": skillText("mac", "Mac only.", "x\n", "platforms: [macos]\n"),
      "skills/nobrowser/SKILL.md": skillText(
        "nobrowser",
        "Fallback.",
        "x\n",
        "metadata:\n  hermes:\n    fallback_for_toolsets: [terminal]\n",
      ),
    });
    const { entries } = loadIndexEntries(home);
    const text = renderSkillsIndex(entries, ctx());
    expect(text.startsWith(SKILLS_INDEX_HEADER)).toBe(true);
    expect(text).toBe(`${SKILLS_INDEX_HEADER}\ndev: alpha (Alpha things)\ngeneral: beta (Beta things)`);
    expect(text).not.toContain("SECRET BODY STEP");
    expect(text).not.toContain("mac");
    expect(text).not.toContain("nobrowser");
    expect(renderSkillsIndex(entries, ctx({ disabled: new Set(["alpha", "beta"]) }))).toBe("");
  });

  it("puts a category's skills on one line, each description cut at a word", () => {
    writeTree(home, {
      "skills/dev/zeta/SKILL.md": skillText("zeta", "Zeta."),
      "skills/dev/alpha/SKILL.md": skillText(
        "alpha",
        "Reproduce the failure, narrow it down, prove the cause with a test, then fix it.",
      ),
    });
    const text = renderSkillsIndex(loadIndexEntries(home).entries, ctx());
    expect(text.split("\n").at(-1)).toBe("dev: alpha (Reproduce the failure, narrow…); zeta (Zeta)");
  });

  it("is empty without skill_view and syncs the bundled skills before reading", () => {
    const settings = {};
    expect(
      buildSkillsIndex({
        home,
        platform: "cli",
        os: "linux",
        tools: new Set(),
        toolsets: new Set(),
        settings,
      }).text,
    ).toBe("");
    const built = buildSkillsIndex({
      home,
      platform: "cli",
      os: "linux",
      tools: new Set(["skill_view", "skill_manage", "terminal"]),
      toolsets: new Set(["skills", "terminal"]),
      settings,
    });
    // The package's own bundled skills are seeded into the fresh home.
    expect(existsSync(join(home, "skills/software-development/systematic-debugging/SKILL.md"))).toBe(true);
    expect(built.text).toMatch(/^software-development: .*systematic-debugging \(Find a bug's root cause/m);
  });

  it("caches in memory and on disk, keyed by the tree's mtimes", () => {
    writeTree(home, { "skills/a/SKILL.md": skillText("a", "Version one.") });
    expect(loadIndexEntries(home).from).toBe("scan");
    expect(loadIndexEntries(home).from).toBe("memory");
    clearIndexMemory();
    const fromDisk = loadIndexEntries(home);
    expect(fromDisk.from).toBe("disk");
    expect(fromDisk.entries[0]?.description).toBe("Version one.");
    expect(JSON.parse(readFileSync(snapshotPath(home), "utf8")).entries).toHaveLength(1);
    // An edit (new size and mtime) invalidates both layers.
    const path = join(home, "skills/a/SKILL.md");
    writeFileSync(path, skillText("a", "Version two, longer."));
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const rebuilt = loadIndexEntries(home);
    expect(rebuilt.from).toBe("scan");
    expect(rebuilt.entries[0]?.description).toBe("Version two, longer.");
    // A new skill invalidates too.
    writeTree(home, { "skills/b/SKILL.md": skillText("b", "B.") });
    expect(loadIndexEntries(home).entries.map((e) => e.name)).toEqual(["a", "b"]);
  });
});

describe("clipDescription", () => {
  it("keeps a short description without its final period and cuts a long one at a word", () => {
    expect(clipDescription(" Beta\n things. ")).toBe("Beta things");
    expect(
      clipDescription("Review a change for correctness, risk and clarity, with ranked findings.", 40),
    ).toBe("Review a change for correctness, risk…");
    // Little words a cut leaves at the end go too: they only make the line longer.
    expect(clipDescription("Find a bug's root cause by reproducing it first.")).toBe(
      "Find a bug's root cause…",
    );
    expect(clipDescription("Write or improve a skill so that the next run goes better.")).toBe(
      "Write or improve a skill…",
    );
    expect(clipDescription("Supercalifragilisticexpialidocious-and-more", 10)).toBe("Supercalif…");
    expect(clipDescription("")).toBe("");
  });
});
