import { describe, expect, it } from "vitest";
import { validateCategory, validateSkillName } from "../../src/skills/paths.js";
import { parseSkillMd } from "../../src/skills/skill-file.js";

const full = `---
name: deploy-blog
description: Deploy the blog to staging.
version: 1.2
author: Ada
license: MIT
platforms: [Linux, macos]
prerequisites:
  commands: [rsync, ssh]
  env_vars: [DEPLOY_HOST]
required_environment_variables:
  - name: DEPLOY_TOKEN
    prompt: Token for the deploy API
    help: https://example.com/tokens
    required_for: uploading
  - EXTRA_VAR
metadata:
  hermes:
    tags: [deploy, blog]
    category: web
    related_skills: [git-workflow]
    config:
      - key: blog.root
        description: Where the site lives
        default: ~/site
    requires_toolsets: [terminal]
    requires_tools: [terminal]
    fallback_for_toolsets: [browser]
    fallback_for_tools: [web_extract]
---

# Deploy

1. Build.
`;

describe("parseSkillMd", () => {
  it("reads every modelled field", () => {
    const r = parseSkillMd(full, "/s/web/deploy-blog/SKILL.md");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.skill;
    expect(s).toMatchObject({
      name: "deploy-blog",
      description: "Deploy the blog to staging.",
      version: "1.2",
      author: "Ada",
      license: "MIT",
      platforms: ["linux", "macos"],
      prerequisites: { commands: ["rsync", "ssh"], envVars: ["DEPLOY_HOST"] },
      tags: ["deploy", "blog"],
      category: "web",
      relatedSkills: ["git-workflow"],
      requiresToolsets: ["terminal"],
      requiresTools: ["terminal"],
      fallbackForToolsets: ["browser"],
      fallbackForTools: ["web_extract"],
    });
    expect(s.requiredEnvironmentVariables).toEqual([
      {
        name: "DEPLOY_TOKEN",
        prompt: "Token for the deploy API",
        help: "https://example.com/tokens",
        requiredFor: "uploading",
      },
      { name: "EXTRA_VAR" },
    ]);
    expect(s.config).toEqual([{ key: "blog.root", description: "Where the site lives", default: "~/site" }]);
    expect(s.body).toBe("# Deploy\n\n1. Build.\n");
    expect(s.frontmatter.author).toBe("Ada");
  });

  it("accepts top-level tags and category, comma lists and CRLF line endings", () => {
    const text = "---\r\nname: a1\r\ndescription: d\r\ntags: x, y\r\ncategory: misc\r\n---\r\nBody\r\n";
    const r = parseSkillMd(text, "/s/a1/SKILL.md");
    expect(r.ok && r.skill).toMatchObject({ tags: ["x", "y"], category: "misc", body: "Body\r\n" });
  });

  it("falls back to the folder name when the frontmatter has no name", () => {
    const r = parseSkillMd("---\ndescription: d\n---\nx\n", "/skills/tools/my-tool/SKILL.md");
    expect(r.ok && r.skill.name).toBe("my-tool");
  });

  it("reports broken files by path instead of throwing", () => {
    const cases: Array<[string, RegExp]> = [
      ["# no frontmatter\n", /missing YAML frontmatter/],
      ["---\nname: x\ndescription: [unclosed\n---\nbody\n", /invalid YAML frontmatter/],
      ["---\n- a\n- b\n---\nbody\n", /mapping/],
      ["---\nname: x\n---\nbody\n", /description/],
      ["---\nname: Bad Name\ndescription: d\n---\nbody\n", /Invalid skill name/],
      [`---\nname: x\ndescription: ${"d".repeat(1025)}\n---\nbody\n`, /1024/],
      [`---\nname: x\ndescription: d\n---\n${"b".repeat(100_001)}`, /100000/],
    ];
    for (const [text, why] of cases) {
      const r = parseSkillMd(text, "/p/x/SKILL.md");
      expect(r.ok, text.slice(0, 30)).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(/^\/p\/x\/SKILL\.md: /);
        expect(r.error).toMatch(why);
      }
    }
  });

  it("reads an empty frontmatter block as no fields", () => {
    const r = parseSkillMd("---\n---\nbody\n", "/p/x/SKILL.md");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/description/);
  });
});

describe("names", () => {
  it("follows the name rule", () => {
    for (const ok of ["a", "my-skill", "skill_2.v3", "0day"]) expect(validateSkillName(ok)).toBeUndefined();
    for (const bad of ["", "-x", ".x", "My", "a b", "a/b", "../x", "a".repeat(65)]) {
      expect(validateSkillName(bad), bad).toBeTypeOf("string");
    }
    expect(validateSkillName("a".repeat(64))).toBeUndefined();
    expect(validateCategory("../escape")).toMatch(/Invalid category/);
  });
});
