import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearIndexMemory } from "../../src/skills/index-cache.js";
import { SkillSession, type SkillSessionOptions } from "../../src/skills/service.js";
import type { ApprovalRequest } from "../../src/tools/approval/types.js";
import type { ToolContext } from "../../src/tools/context.js";
import { createHarness, type ToolHarness } from "../tools/helpers.js";
import { skillText, tempDir, writeTree } from "./helpers.js";

let h: ToolHarness;
let session: SkillSession;
let ctx: ToolContext;
const savedBundle = process.env.HERMES_BUNDLED_SKILLS;

function useSession(over: Partial<SkillSessionOptions> = {}, ctxOver: Partial<ToolContext> = {}): void {
  session = new SkillSession({
    home: h.home,
    settings: h.ctx.config.skills,
    platform: "cli",
    os: "linux",
    sessionId: () => "sess-42",
    ...over,
  });
  ctx = { ...h.ctx, skills: session, ...ctxOver };
}

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  return JSON.parse(await h.registry.dispatch(name, args, ctx)) as Record<string, unknown>;
}

const manage = (args: Record<string, unknown>) => call("skill_manage", args);
const skillPath = (...rel: string[]) => join(h.home, "skills", ...rel);

let emptyBundle: ReturnType<typeof tempDir>;

beforeEach(async () => {
  // An empty bundle keeps these tests about the store itself.
  emptyBundle = tempDir();
  process.env.HERMES_BUNDLED_SKILLS = emptyBundle.dir;
  h = await createHarness();
  clearIndexMemory();
  useSession();
});
afterEach(async () => {
  emptyBundle.cleanup();
  if (savedBundle === undefined) delete process.env.HERMES_BUNDLED_SKILLS;
  else process.env.HERMES_BUNDLED_SKILLS = savedBundle;
  await h.dispose();
});

describe("skill_manage", () => {
  it("creates a skill (with category), which skills_list and skill_view see at once", async () => {
    const r = await manage({
      action: "create",
      name: "deploy",
      category: "ops",
      content: skillText("deploy", "Ship it."),
    });
    expect(r).toMatchObject({ success: true, path: skillPath("ops", "deploy", "SKILL.md") });
    expect(readFileSync(skillPath("ops", "deploy", "SKILL.md"), "utf8")).toContain("Ship it.");
    expect(await call("skills_list", {})).toMatchObject({
      skills: [{ name: "deploy", description: "Ship it.", category: "ops" }],
      count: 1,
    });
    const v = await call("skill_view", { name: "deploy" });
    expect(v).toMatchObject({
      success: true,
      name: "deploy",
      content: "# deploy\n\nDo the thing.\n",
      linked_files: {},
    });
  });

  it("refuses bad names, categories, content and duplicates with clear errors", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ action: "create", name: "Bad Name", content: skillText("x", "d") }, /Invalid skill name/],
      [
        { action: "create", name: "x", category: "../escape", content: skillText("x", "d") },
        /Invalid category/,
      ],
      [{ action: "create", name: "x" }, /content is required/],
      [{ action: "create", name: "x", content: "# no frontmatter" }, /must start with YAML frontmatter/],
      [{ action: "create", name: "x", content: "---\nname: x\n---\nbody\n" }, /description/],
      [{ action: "create", name: "x", content: skillText("y", "d") }, /does not match/],
      [{ action: "create", name: "x", content: "---\nname: x\ndescription: d\n---\n" }, /needs a body/],
      [{ action: "create", name: "x", content: skillText("x", "d".repeat(1025)) }, /1024/],
      [{ action: "create", name: "x", content: skillText("x", "d", "b".repeat(100_001)) }, /limit is 100000/],
      [{ action: "explode", name: "x" }, /must be one of/],
      [{ action: "edit", name: "ghost", content: skillText("ghost", "d") }, /not found/],
    ];
    for (const [args, why] of cases)
      expect((await manage(args)).error, JSON.stringify(args).slice(0, 60)).toMatch(why);
    expect(existsSync(join(h.home, "escape"))).toBe(false);
    await manage({ action: "create", name: "x", content: skillText("x", "d") });
    expect((await manage({ action: "create", name: "x", content: skillText("x", "d") })).error).toMatch(
      /already exists/,
    );
  });

  it("patches with the fuzzy matcher, in SKILL.md or a linked file", async () => {
    await manage({
      action: "create",
      name: "p",
      content: skillText("p", "d", "Step one:   run make.\nword word\n"),
    });
    // Different inner spacing still matches (the patch tool's strategies).
    const r = await manage({
      action: "patch",
      name: "p",
      old_string: "Step one: run make.",
      new_string: "Step one: run make test.",
    });
    expect(r.success).toBe(true);
    // The file's own spacing is kept around the replacement.
    expect(readFileSync(skillPath("p", "SKILL.md"), "utf8")).toContain("Step one:   run make test.");
    expect((await manage({ action: "patch", name: "p", old_string: "word", new_string: "w" })).error).toMatch(
      /replace_all/,
    );
    expect(
      (await manage({ action: "patch", name: "p", old_string: "word", new_string: "w", replace_all: true }))
        .success,
    ).toBe(true);
    expect(
      (await manage({ action: "patch", name: "p", old_string: "not there at all", new_string: "x" })).error,
    ).toBeTypeOf("string");
    // A patch that breaks the frontmatter is refused and leaves the file as it was.
    const before = readFileSync(skillPath("p", "SKILL.md"), "utf8");
    expect(
      (await manage({ action: "patch", name: "p", old_string: "description: d", new_string: "" })).error,
    ).toMatch(/description/);
    expect(readFileSync(skillPath("p", "SKILL.md"), "utf8")).toBe(before);
    await manage({
      action: "write_file",
      name: "p",
      file_path: "references/api.md",
      file_content: "old text here\n",
    });
    expect(
      (
        await manage({
          action: "patch",
          name: "p",
          file_path: "references/api.md",
          old_string: "old text",
          new_string: "new text",
        })
      ).success,
    ).toBe(true);
    expect(readFileSync(skillPath("p", "references", "api.md"), "utf8")).toBe("new text here\n");
  });

  it("edits, writes and removes linked files, and deletes (cleaning an empty category)", async () => {
    await manage({ action: "create", name: "e", category: "cat", content: skillText("e", "d") });
    expect((await manage({ action: "edit", name: "e", content: skillText("e", "Updated.") })).success).toBe(
      true,
    );
    expect((await manage({ action: "edit", name: "e", content: "broken" })).error).toMatch(/not changed/);
    expect(readFileSync(skillPath("cat", "e", "SKILL.md"), "utf8")).toContain("Updated.");
    const w = await manage({
      action: "write_file",
      name: "e",
      file_path: "scripts/run.sh",
      file_content: "echo hi\n",
    });
    expect(w.success).toBe(true);
    expect(await call("skill_view", { name: "e" })).toMatchObject({
      linked_files: { scripts: ["scripts/run.sh"] },
    });
    expect(await call("skill_view", { name: "e", file_path: "scripts/run.sh" })).toMatchObject({
      content: "echo hi\n",
    });
    for (const [file_path, why] of [
      ["secret/x.txt", /must be under one of/],
      ["references", /names a folder/],
      ["references/../../x", /'\.\.'/],
      ["/etc/passwd", /relative/],
    ] as const) {
      expect((await manage({ action: "write_file", name: "e", file_path, file_content: "x" })).error).toMatch(
        why,
      );
    }
    const big = "x".repeat(1024 * 1024 + 1);
    expect(
      (await manage({ action: "write_file", name: "e", file_path: "assets/big.txt", file_content: big }))
        .error,
    ).toMatch(/at most 1048576/);
    expect((await manage({ action: "remove_file", name: "e", file_path: "scripts/run.sh" })).success).toBe(
      true,
    );
    expect(existsSync(skillPath("cat", "e", "scripts"))).toBe(false);
    expect((await manage({ action: "remove_file", name: "e", file_path: "scripts/run.sh" })).error).toMatch(
      /no file/,
    );
    expect((await manage({ action: "delete", name: "e" })).success).toBe(true);
    expect(existsSync(skillPath("cat"))).toBe(false);
  });

  it("refuses to follow a symlink out of the skill folder", async () => {
    const outside = tempDir();
    writeFileSync(join(outside.dir, "keep.txt"), "keep\n");
    await manage({ action: "create", name: "s", content: skillText("s", "d") });
    mkdirSync(skillPath("s", "references"));
    symlinkSync(outside.dir, skillPath("s", "references", "escape"));
    const w = await manage({
      action: "write_file",
      name: "s",
      file_path: "references/escape/owned.md",
      file_content: "x",
    });
    expect(w.error).toMatch(/escapes/);
    expect(existsSync(join(outside.dir, "owned.md"))).toBe(false);
    expect(
      (await manage({ action: "remove_file", name: "s", file_path: "references/escape/keep.txt" })).error,
    ).toMatch(/escapes/);
    expect((await call("skill_view", { name: "s", file_path: "references/escape/keep.txt" })).error).toMatch(
      /escapes/,
    );
    outside.cleanup();
  });

  it("treats skills from external dirs as read-only", async () => {
    const ext = tempDir();
    writeTree(ext.dir, { "team/shared/SKILL.md": skillText("shared", "Team skill.") });
    h.ctx.config.skills.external_dirs = [ext.dir];
    useSession();
    expect(await call("skills_list", {})).toMatchObject({ skills: [{ name: "shared", read_only: true }] });
    expect(
      (await manage({ action: "edit", name: "shared", content: skillText("shared", "x") })).error,
    ).toMatch(/read-only/);
    expect((await manage({ action: "delete", name: "shared" })).error).toMatch(/read-only/);
    expect(await call("skill_view", { name: "shared" })).toMatchObject({ read_only: true });
    ext.cleanup();
  });

  it("asks for approval when skills.write_approval is on", async () => {
    h.ctx.config.skills.write_approval = true;
    useSession({}, { interactive: false, approve: undefined });
    expect((await manage({ action: "create", name: "a", content: skillText("a", "d") })).error).toMatch(
      /nobody can approve/,
    );
    expect(existsSync(skillPath("a"))).toBe(false);
    const asked: ApprovalRequest[] = [];
    let answer: "deny" | "once" | "session" = "deny";
    useSession(
      {},
      {
        interactive: true,
        approve: async (req) => {
          asked.push(req);
          return answer;
        },
      },
    );
    expect((await manage({ action: "create", name: "a", content: skillText("a", "d") })).error).toMatch(
      /did not approve/,
    );
    expect(asked[0]?.command).toBe("skill_manage create a");
    answer = "session";
    expect((await manage({ action: "create", name: "a", content: skillText("a", "d") })).success).toBe(true);
    // "session" covers later writes of this conversation without asking again.
    expect((await manage({ action: "delete", name: "a" })).success).toBe(true);
    expect(asked).toHaveLength(2);
    h.ctx.config.skills.write_approval = false;
  });

  it("undoes a write the scan of agent-written skills refuses", async () => {
    h.ctx.config.skills.guard_agent_created = true;
    useSession({
      scanWrite: (dir) =>
        readFileSync(join(dir, "SKILL.md"), "utf8").includes("EVIL") ? "rule x at SKILL.md:5" : undefined,
    });
    const bad = await manage({ action: "create", name: "g", content: skillText("g", "d", "EVIL\n") });
    expect(bad.error).toMatch(/Security scan refused.*rule x/);
    expect(existsSync(skillPath("g"))).toBe(false);
    expect((await manage({ action: "create", name: "g", content: skillText("g", "d") })).success).toBe(true);
    expect(
      (await manage({ action: "edit", name: "g", content: skillText("g", "d", "EVIL\n") })).error,
    ).toMatch(/undone/);
    expect(readFileSync(skillPath("g", "SKILL.md"), "utf8")).not.toContain("EVIL");
    h.ctx.config.skills.guard_agent_created = false;
  });
});

describe("skill_view", () => {
  it("fills template variables and declared settings, and names missing prerequisites", async () => {
    h.ctx.config.skills.config = { wiki: { root: "/srv/wiki" } };
    useSession({ env: { PATH: "/nonexistent" } });
    writeTree(h.home, {
      "skills/w/SKILL.md": skillText(
        "w",
        "Wiki.",
        `Run \${HERMES_SKILL_DIR}/scripts/x.sh for \${HERMES_SESSION_ID}.\n`,
        "prerequisites:\n  commands: [wikitool]\nrequired_environment_variables: [WIKI_TOKEN]\nmetadata:\n  hermes:\n    config:\n      - key: wiki.root\n        description: Wiki folder\n      - key: wiki.lang\n        default: en\n      - key: wiki.owner\n",
      ),
    });
    const v = await call("skill_view", { name: "w" });
    expect(v.content).toContain(`Run ${skillPath("w")}/scripts/x.sh for sess-42.`);
    expect(v.content).toContain('- wiki.root = "/srv/wiki" (Wiki folder)');
    expect(v.content).toContain('- wiki.lang = "en"');
    expect(v.content).toContain("- wiki.owner: not set");
    expect(v.required_environment_variables).toEqual(["WIKI_TOKEN"]);
    expect(v.setup_needed).toBe(
      "Skill 'w' needs setup: environment variable WIKI_TOKEN not set (add to HERMES_HOME/.env); command wikitool not found on PATH.",
    );
    h.ctx.config.skills.config = {};
  });

  it("hides disabled and other-platform skills and suggests close names", async () => {
    writeTree(h.home, {
      "skills/off/SKILL.md": skillText("off", "Off."),
      "skills/maconly/SKILL.md": skillText("maconly", "Mac.", "x\n", "platforms: [macos]\n"),
      "skills/deploy-site/SKILL.md": skillText("deploy-site", "Deploy."),
    });
    h.ctx.config.skills.disabled = ["off"];
    useSession();
    expect((await call("skills_list", {})).skills).toEqual([{ name: "deploy-site", description: "Deploy." }]);
    expect((await call("skill_view", { name: "off" })).error).toMatch(/disabled/);
    expect((await call("skill_view", { name: "maconly" })).error).toMatch(/macos only/);
    expect((await call("skill_view", { name: "deploy" })).error).toMatch(/Did you mean: deploy-site/);
    h.ctx.config.skills.disabled = [];
  });

  it("passes a loaded skill's variables to terminal, which otherwise hides credentials", async () => {
    process.env.HERMES_TEST_SKILL_TOKEN = "tok-123";
    try {
      writeTree(h.home, {
        "skills/t/SKILL.md": skillText(
          "t",
          "T.",
          "x\n",
          "required_environment_variables:\n  - name: HERMES_TEST_SKILL_TOKEN\n",
        ),
      });
      const before = await call("terminal", { command: `echo "[\${HERMES_TEST_SKILL_TOKEN:-unset}]"` });
      expect(before.output).toBe("[unset]\n");
      expect(session.envPassthrough()).toEqual([]);
      await call("skill_view", { name: "t" });
      expect(session.envPassthrough()).toEqual(["HERMES_TEST_SKILL_TOKEN"]);
      const after = await call("terminal", { command: `echo "[\${HERMES_TEST_SKILL_TOKEN:-unset}]"` });
      expect(after.output).toBe("[tok-123]\n");
    } finally {
      delete process.env.HERMES_TEST_SKILL_TOKEN;
    }
  });
});
