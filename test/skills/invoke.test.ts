import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import { clearIndexMemory } from "../../src/skills/index-cache.js";
import { parseSkillCommand } from "../../src/skills/invoke.js";
import { SkillSession } from "../../src/skills/service.js";
import { skillText, tempDir, writeTree } from "./helpers.js";

let home: string;
let cleanup: () => void;
let cleanupBundle: () => void;
const saved = process.env.HERMES_BUNDLED_SKILLS;

beforeEach(() => {
  ({ dir: home, cleanup } = tempDir());
  const b = tempDir();
  cleanupBundle = b.cleanup;
  process.env.HERMES_BUNDLED_SKILLS = b.dir;
  clearIndexMemory();
});
afterEach(() => {
  cleanup();
  cleanupBundle();
  if (saved === undefined) delete process.env.HERMES_BUNDLED_SKILLS;
  else process.env.HERMES_BUNDLED_SKILLS = saved;
});

describe("parseSkillCommand", () => {
  it("splits the name from its arguments", () => {
    expect(parseSkillCommand("/deploy staging now")).toEqual({ name: "deploy", args: "staging now" });
    expect(parseSkillCommand("  /Deploy\n  multi\nline ")).toEqual({ name: "deploy", args: "multi\nline" });
    expect(parseSkillCommand("/plan")).toEqual({ name: "plan", args: "" });
  });
  it("ignores text that is not a command", () => {
    for (const t of ["deploy", "/", "/usr/bin/env is a path", "//x", "/-x", "/a b".slice(0, 1)]) {
      expect(parseSkillCommand(t), t).toBeUndefined();
    }
  });
});

describe("invoke", () => {
  const session = () =>
    new SkillSession({ home, settings: DEFAULT_CONFIG.skills, platform: "cli", os: "linux" });

  it("carries the body and the arguments, and registers the skill's variables", async () => {
    writeTree(home, {
      "skills/ops/deploy/SKILL.md": skillText(
        "deploy",
        "Deploy.",
        "1. Build\n2. Upload\n",
        "required_environment_variables: [DEPLOY_KEY]\n",
      ),
      "skills/ops/deploy/templates/notes.md": "t\n",
    });
    const s = session();
    const r = await s.invoke("deploy", "to staging");
    expect("message" in r).toBe(true);
    if (!("message" in r)) return;
    expect(r.message).toContain("# deploy\n\n1. Build\n2. Upload");
    expect(r.message).toContain("Arguments: to staging");
    expect(r.message).toContain("templates/notes.md");
    expect(r.message).not.toContain("description: Deploy.");
    expect(s.envPassthrough()).toEqual(["DEPLOY_KEY"]);
    expect(s.commandNames()).toEqual(["deploy"]);
  });

  it("says when no arguments were given and errors on unknown skills", async () => {
    writeTree(home, { "skills/plan/SKILL.md": skillText("plan", "Plan.") });
    const r = await session().invoke("plan", "");
    expect("message" in r && r.message).toContain("[No arguments were given with the command.]");
    expect(await session().invoke("nope", "x")).toEqual({
      error: "Skill 'nope' not found. skills_list shows what exists.",
    });
  });
});
