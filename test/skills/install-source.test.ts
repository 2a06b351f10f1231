import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isRemote, parseSource } from "../../src/skills/install-source.js";

const cwd = mkdtempSync(join(tmpdir(), "source-"));
mkdirSync(join(cwd, "my-skill"));
writeFileSync(join(cwd, "pack.tar.gz"), "");
writeFileSync(join(cwd, "SKILL.md"), "");
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("parseSource", () => {
  it.each([
    ["my-skill", { kind: "local", location: join(cwd, "my-skill") }],
    ["./pack.tar.gz", { kind: "tarball", location: join(cwd, "pack.tar.gz") }],
    ["SKILL.md", { kind: "local", location: join(cwd, "SKILL.md") }],
    ["git@github.com:acme/skills.git", { kind: "git", location: "git@github.com:acme/skills.git" }],
    ["git+https://git.example.com/x/y", { kind: "git", location: "https://git.example.com/x/y" }],
    [
      "https://gitlab.com/acme/skills.git#v2",
      { kind: "git", location: "https://gitlab.com/acme/skills.git", ref: "v2" },
    ],
    [
      "https://github.com/acme/skills/tree/main/skills/pdf",
      { kind: "git", location: "https://github.com/acme/skills.git", ref: "main", subpath: "skills/pdf" },
    ],
    ["https://github.com/acme/skills", { kind: "git", location: "https://github.com/acme/skills.git" }],
    [
      "acme/skills/skills/pdf",
      { kind: "git", location: "https://github.com/acme/skills.git", subpath: "skills/pdf" },
    ],
    [
      "https://github.com/acme/skills/blob/main/pdf/SKILL.md",
      { kind: "skill-file", location: "https://raw.githubusercontent.com/acme/skills/main/pdf/SKILL.md" },
    ],
    [
      "https://cdn.example.com/s/pdf.tgz?sig=1",
      { kind: "tarball", location: "https://cdn.example.com/s/pdf.tgz?sig=1" },
    ],
    ["file:///srv/repos/skills.git", { kind: "git", location: "file:///srv/repos/skills.git" }],
  ])("reads %s", (spec, expected) => {
    expect(parseSource(spec, cwd)).toEqual(expected);
  });

  it("adds --ref and --path, and refuses what it cannot read", () => {
    expect(parseSource("acme/skills", cwd, { ref: "dev", path: "x" })).toEqual({
      kind: "git",
      location: "https://github.com/acme/skills.git",
      ref: "dev",
      subpath: "x",
    });
    expect(() => parseSource("./missing", cwd)).toThrow(/does not exist/);
    expect(() => parseSource("not a source", cwd)).toThrow(/is not a folder, a URL or owner\/repo/);
  });

  it("counts only URLs as remote (a local archive is a local source)", () => {
    expect(isRemote(parseSource("./pack.tar.gz", cwd))).toBe(false);
    expect(isRemote(parseSource("my-skill", cwd))).toBe(false);
    expect(isRemote(parseSource("https://cdn.example.com/pdf.tgz", cwd))).toBe(true);
    expect(isRemote(parseSource("acme/skills", cwd))).toBe(true);
  });
});
