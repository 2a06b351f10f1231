import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
const file = (name: string): string => join(h.root, name);
const read = (name: string): Promise<string> => readFile(file(name), "utf8");
const apply = (patch: string) => h.call("patch", { mode: "patch", patch });
const lines = (n: number): string => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

describe("patch mode hardening", () => {
  it("returns a unified diff of everything it changed", async () => {
    await writeFile(file("a.txt"), "a\nb\nc\n");
    const r = await apply(
      ["--- a/a.txt", "+++ b/a.txt", "@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"].join("\n"),
    );
    expect(r.success).toBe(true);
    expect(r.diff).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  });

  it("applies with fuzz when an outer context line changed, and says so", async () => {
    await writeFile(file("f.txt"), lines(10).replace("line 3\n", "line three\n"));
    const patch = [
      "--- a/f.txt",
      "+++ b/f.txt",
      "@@ -3,5 +3,5 @@",
      " line 3",
      " line 4",
      "-line 5",
      "+LINE 5",
      " line 6",
      " line 7",
    ];
    const r = await apply(patch.join("\n"));
    expect(r.success).toBe(true);
    expect(String(r.note)).toContain("f.txt: hunk 1 applied with 1 context line(s) of fuzz");
    expect(await read("f.txt")).toContain("line three\nline 4\nLINE 5\nline 6");
  });

  it("explains a context mismatch with the first differing line", async () => {
    await writeFile(file("g.txt"), lines(8));
    const patch = [
      "--- a/g.txt",
      "+++ b/g.txt",
      "@@ -3,4 +3,4 @@",
      " line 3",
      " line 4",
      "-line five",
      "+X",
      " line 6",
    ];
    const r = await apply(patch.join("\n"));
    const err = JSON.stringify(r.files);
    expect(err).toContain("first difference at line 5");
    expect(err).toContain('the hunk expects \\"line five\\" but the file has \\"line 5\\"');
    expect(await read("g.txt")).toBe(lines(8));
  });

  it("refuses to add a file that exists and to delete a file whose content changed", async () => {
    await writeFile(file("exists.txt"), "hi\n");
    const add = await apply(["--- /dev/null", "+++ b/exists.txt", "@@ -0,0 +1 @@", "+new"].join("\n"));
    expect(JSON.stringify(add.files)).toContain("already exists");
    await writeFile(file("del.txt"), "changed\n");
    const del = await apply(["--- a/del.txt", "+++ /dev/null", "@@ -1 +0,0 @@", "-original"].join("\n"));
    expect(JSON.stringify(del.files)).toContain("does not match the deletion");
    expect(existsSync(file("del.txt"))).toBe(true);
    expect(await read("exists.txt")).toBe("hi\n");
  });

  it("merges two update sections for the same file", async () => {
    await writeFile(file("m.py"), "a = 1\nb = 2\nc = 3\n");
    const patch = [
      "*** Begin Patch",
      "*** Update File: m.py",
      "-a = 1",
      "+a = 10",
      "*** Update File: m.py",
      "-c = 3",
      "+c = 30",
      "*** End Patch",
    ].join("\n");
    const r = await apply(patch);
    expect(r.success).toBe(true);
    expect(await read("m.py")).toBe("a = 10\nb = 2\nc = 30\n");
  });

  it("moves a file with changes, refusing to overwrite an existing target", async () => {
    await writeFile(file("old.txt"), "x\ny\n");
    const patch = ["--- a/old.txt", "+++ b/new.txt", "@@ -1,2 +1,2 @@", " x", "-y", "+Y"].join("\n");
    await writeFile(file("new.txt"), "taken\n");
    expect(JSON.stringify((await apply(patch)).files)).toContain("target already exists");
    await rm(file("new.txt"));
    const r = await apply(patch);
    expect(r.files).toEqual([{ path: file("new.txt"), action: "moved", added: 1, removed: 1 }]);
    expect(existsSync(file("old.txt"))).toBe(false);
    expect(await read("new.txt")).toBe("x\nY\n");
  });

  it("rolls back files already written when a later write fails", async () => {
    await writeFile(file("first.txt"), "one\n");
    await writeFile(file("blocker"), "a regular file, so blocker/child.txt cannot be created\n");
    const patch = [
      "--- a/first.txt",
      "+++ b/first.txt",
      "@@ -1 +1 @@",
      "-one",
      "+ONE",
      "--- /dev/null",
      "+++ b/blocker/child.txt",
      "@@ -0,0 +1 @@",
      "+x",
    ].join("\n");
    const r = await apply(patch);
    expect(String(r.error)).toMatch(/^Patch not applied \(changes rolled back\)/);
    expect(await read("first.txt")).toBe("one\n");
  });

  it("reports new syntax errors per file without blocking the patch", async () => {
    await writeFile(file("cfg.json"), '{\n  "a": 1\n}\n');
    const patch = [
      "--- a/cfg.json",
      "+++ b/cfg.json",
      "@@ -1,3 +1,3 @@",
      " {",
      '-  "a": 1',
      '+  "a": 1,',
      " }",
    ].join("\n");
    const r = await apply(patch);
    expect(r.success).toBe(true);
    expect(r.syntax_warnings).toEqual([expect.stringMatching(/^cfg\.json: line 3, column 1: /)]);
    expect(await read("cfg.json")).toBe('{\n  "a": 1,\n}\n');
  });
});
