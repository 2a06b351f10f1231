import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unifiedDiff } from "../../src/tools/builtin/files/diff.js";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
const file = (name: string): string => join(h.root, name);
const read = (name: string): Promise<string> => readFile(file(name), "utf8");

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

describe("patch (replace mode)", () => {
  it("replaces a unique match and returns a unified diff", async () => {
    await writeFile(file("a.py"), "def f():\n    return 1\n\n\ndef g():\n    return 2\n");
    const r = await h.call("patch", { path: "a.py", old_string: "return 2", new_string: "return 3" });
    expect(r).toMatchObject({ success: true, path: file("a.py"), replacements: 1 });
    expect(await read("a.py")).toBe("def f():\n    return 1\n\n\ndef g():\n    return 3\n");
    expect(r.diff).toBe(
      [
        "--- a/a.py",
        "+++ b/a.py",
        "@@ -3,4 +3,4 @@",
        " ",
        " ",
        " def g():",
        "-    return 2",
        "+    return 3",
        "",
      ].join("\n"),
    );
  });

  it("refuses ambiguous matches with count and line numbers unless replace_all", async () => {
    await writeFile(file("b.txt"), "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n");
    const r = await h.call("patch", { path: "b.txt", old_string: "x = 1", new_string: "x = 9" });
    expect(String(r.error)).toMatch(/matches 3 times .*lines 1, 3, 5.*replace_all/);
    expect(await read("b.txt")).toBe("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n");
    const all = await h.call("patch", {
      path: "b.txt",
      old_string: "x = 1",
      new_string: "x = 9",
      replace_all: true,
    });
    expect(all).toMatchObject({ success: true, replacements: 3 });
    expect(await read("b.txt")).toBe("x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n");
  });

  it("preserves CRLF line endings", async () => {
    await writeFile(file("w.txt"), "one\r\ntwo\r\nthree\r\n");
    const r = await h.call("patch", {
      path: "w.txt",
      old_string: "two\nthree",
      new_string: "TWO\nTHREE\nFOUR",
    });
    expect(r.success).toBe(true);
    expect(await read("w.txt")).toBe("one\r\nTWO\r\nTHREE\r\nFOUR\r\n");
    expect(String(r.diff)).toContain("+FOUR");
  });

  it("keeps a UTF-8 byte-order mark", async () => {
    await writeFile(file("bom.txt"), "\uFEFFfirst\nsecond\n");
    await h.call("patch", { path: "bom.txt", old_string: "first", new_string: "1st" });
    expect(await read("bom.txt")).toBe("\uFEFF1st\nsecond\n");
  });

  it("leaves other lines of a mixed-ending file untouched", async () => {
    await writeFile(file("m.txt"), "a\r\nb\nc\r\nd\r\n");
    await h.call("patch", { path: "m.txt", old_string: "d", new_string: "D" });
    expect(await read("m.txt")).toBe("a\r\nb\nc\r\nD\r\n");
  });

  it("falls back to whitespace-tolerant matching and keeps the file's indentation", async () => {
    const src = "class A:\n    def run(self):\n        x = 1   \n        return x\n";
    await writeFile(file("c.py"), src);
    const r = await h.call("patch", {
      path: "c.py",
      old_string: "def run(self):\n    x = 1\n    return x",
      new_string: "def run(self):\n    x = 2\n    return x * 2",
    });
    expect(r).toMatchObject({ success: true, replacements: 1 });
    expect(String(r.note)).toMatch(/indentation/);
    expect(await read("c.py")).toBe("class A:\n    def run(self):\n        x = 2\n        return x * 2\n");
  });

  it("tolerates trailing-whitespace differences", async () => {
    await writeFile(file("t.txt"), "alpha  \nbeta\t\ngamma\n");
    const r = await h.call("patch", {
      path: "t.txt",
      old_string: "alpha\nbeta\n",
      new_string: "ALPHA\nBETA\n",
    });
    expect(r).toMatchObject({ success: true });
    expect(String(r.note)).toMatch(/trailing whitespace/);
    expect(await read("t.txt")).toBe("ALPHA\nBETA\ngamma\n");
  });

  it("explains a miss and shows the closest region", async () => {
    await writeFile(
      file("d.js"),
      "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n",
    );
    const r = await h.call("patch", {
      path: "d.js",
      old_string: "function sub(a, b) {\n  return a - c;\n}",
      new_string: "x",
    });
    const err = String(r.error);
    expect(err).toMatch(/not found .*0 exact matches/);
    expect(err).toContain("5|function sub(a, b) {");
    expect(err).toContain("read_file");
  });

  it("validates arguments", async () => {
    await writeFile(file("e.txt"), "x\n");
    expect(String((await h.call("patch", { path: "e.txt", new_string: "y" })).error)).toMatch(
      /old_string is required/,
    );
    expect(String((await h.call("patch", { path: "e.txt", old_string: "x" })).error)).toMatch(
      /new_string is required/,
    );
    expect(
      String((await h.call("patch", { path: "e.txt", old_string: "x", new_string: "x" })).error),
    ).toMatch(/identical/);
    expect(
      String((await h.call("patch", { path: "nope.txt", old_string: "x", new_string: "y" })).error),
    ).toMatch(/File not found/);
  });
});

describe("patch (patch mode)", () => {
  it("applies a multi-file unified diff: modify, add and delete", async () => {
    await writeFile(file("keep.txt"), "a\nb\nc\nd\ne\nf\ng\nh\n");
    await writeFile(file("gone.txt"), "bye\n");
    const patch = [
      "diff --git a/keep.txt b/keep.txt",
      "--- a/keep.txt",
      "+++ b/keep.txt",
      "@@ -2,3 +2,3 @@",
      " b",
      "-c",
      "+C",
      " d",
      "@@ -7,2 +7,3 @@",
      " g",
      " h",
      "+i",
      "--- /dev/null",
      "+++ b/new/dir/added.txt",
      "@@ -0,0 +1,2 @@",
      "+hello",
      "+world",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
      "",
    ].join("\n");
    const r = await h.call("patch", { mode: "patch", patch });
    expect(r.success).toBe(true);
    expect(r.files).toEqual([
      { path: file("keep.txt"), action: "modified", added: 2, removed: 1 },
      { path: file("new/dir/added.txt"), action: "added", added: 2, removed: 0 },
      { path: file("gone.txt"), action: "deleted", added: 0, removed: 1 },
    ]);
    expect(await read("keep.txt")).toBe("a\nb\nC\nd\ne\nf\ng\nh\ni\n");
    expect(await read("new/dir/added.txt")).toBe("hello\nworld\n");
    expect(existsSync(file("gone.txt"))).toBe(false);
  });

  it("verifies context and changes nothing when any file fails", async () => {
    await writeFile(file("one.txt"), "1\n2\n3\n");
    await writeFile(file("two.txt"), "x\ny\n");
    const patch = [
      "--- a/one.txt",
      "+++ b/one.txt",
      "@@ -1,3 +1,3 @@",
      " 1",
      "-2",
      "+TWO",
      " 3",
      "--- a/two.txt",
      "+++ b/two.txt",
      "@@ -1,2 +1,2 @@",
      " x",
      "-not-there",
      "+z",
    ].join("\n");
    const r = await h.call("patch", { mode: "patch", patch });
    expect(String(r.error)).toMatch(/no files were changed/);
    expect(JSON.stringify(r.files)).toContain("two.txt");
    expect(await read("one.txt")).toBe("1\n2\n3\n");
  });

  it("finds hunks whose line numbers are off and keeps CRLF", async () => {
    await writeFile(file("crlf.txt"), "head\r\nfoo\r\nbar\r\ntail\r\n");
    const patch = ["--- a/crlf.txt", "+++ b/crlf.txt", "@@ -40,2 +40,2 @@", " foo", "-bar", "+BAR"].join(
      "\n",
    );
    const r = await h.call("patch", { mode: "patch", patch });
    expect(r.success).toBe(true);
    expect(await read("crlf.txt")).toBe("head\r\nfoo\r\nBAR\r\ntail\r\n");
  });

  it("applies a *** Begin Patch block", async () => {
    await writeFile(file("app.py"), "def main():\n    print('hi')\n\n\ndef other():\n    pass\n");
    const patch = [
      "*** Begin Patch",
      "*** Update File: app.py",
      "@@ def other():",
      "-    pass",
      "+    return 42",
      "*** Add File: extra.py",
      "+X = 1",
      "*** End Patch",
    ].join("\n");
    const r = await h.call("patch", { mode: "patch", patch });
    expect(r.success).toBe(true);
    expect(await read("app.py")).toBe("def main():\n    print('hi')\n\n\ndef other():\n    return 42\n");
    expect(await read("extra.py")).toBe("X = 1\n");
  });

  it("rejects text without file headers", async () => {
    const r = await h.call("patch", { mode: "patch", patch: "just some text" });
    expect(String(r.error)).toMatch(/No file headers found/);
  });
});

describe("unifiedDiff", () => {
  it("is empty for equal texts and marks a missing final newline", () => {
    expect(unifiedDiff("a\n", "a\n", "f")).toBe("");
    expect(unifiedDiff("a\n", "a", "f")).toBe(
      "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n",
    );
  });

  it("splits distant changes into separate hunks", () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    const b = [...a];
    b[1] = "X";
    b[17] = "Y";
    const d = unifiedDiff(`${a.join("\n")}\n`, `${b.join("\n")}\n`, "f");
    expect(d.match(/^@@/gm)).toHaveLength(2);
    expect(d).toContain("@@ -1,5 +1,5 @@");
    expect(d).toContain("@@ -15,6 +15,6 @@");
  });

  it("handles insertions into an empty file", () => {
    expect(unifiedDiff("", "x\n", "f")).toBe("--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n");
  });
});
