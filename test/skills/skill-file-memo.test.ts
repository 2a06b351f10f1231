import { describe, expect, it } from "vitest";
import { parseSkillMd } from "../../src/skills/skill-file.js";

// The bundled copy and the installed copy of a skill hold the same text: the second parse is a
// lookup. These tests pin that the lookup answers exactly what a fresh parse would.
describe("parseSkillMd on a text parsed before", () => {
  const text = "---\ndescription: Checks things.\ntags: [a, b]\n---\n\nBody.\n";

  it("gives the folder-name fallback of each path, not of the first one parsed", () => {
    const first = parseSkillMd(text, "/bundle/tools/checker/SKILL.md");
    const second = parseSkillMd(text, "/home/.hermes/skills/tools/other-name/SKILL.md");
    expect(first.ok && first.skill.name).toBe("checker");
    expect(second.ok && second.skill.name).toBe("other-name");
  });

  it("returns a result of its own: changing one does not change the next", () => {
    const a = parseSkillMd(text, "/x/checker/SKILL.md");
    if (!a.ok) throw new Error(a.error);
    a.skill.tags.push("added");
    a.skill.frontmatter.description = "changed";
    const b = parseSkillMd(text, "/y/checker/SKILL.md");
    if (!b.ok) throw new Error(b.error);
    expect(b.skill.tags).toEqual(["a", "b"]);
    expect(b.skill.frontmatter.description).toBe("Checks things.");
  });

  it("names the path of each call in errors", () => {
    const bad = "---\nname: x\n---\nno description\n";
    const one = parseSkillMd(bad, "/a/x/SKILL.md");
    const two = parseSkillMd(bad, "/b/x/SKILL.md");
    expect(!one.ok && one.error.startsWith("/a/x/SKILL.md:")).toBe(true);
    expect(!two.ok && two.error.startsWith("/b/x/SKILL.md:")).toBe(true);
  });
});
