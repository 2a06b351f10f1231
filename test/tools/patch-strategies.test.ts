import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shouldParallelize } from "../../src/agent/parallel.js";
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

const replace = (path: string, old_string: string, new_string: string, extra: Record<string, unknown> = {}) =>
  h.call("patch", { path, old_string, new_string, ...extra });

describe("patch replace strategies", () => {
  it("says nothing extra for an exact match", async () => {
    await writeFile(file("a.txt"), "alpha\nbeta\n");
    const r = await replace("a.txt", "beta", "BETA");
    expect(r.success).toBe(true);
    expect(r).not.toHaveProperty("strategy");
  });

  it("line endings: an LF old_string edits a CRLF file, which stays CRLF", async () => {
    await writeFile(file("w.txt"), "one\r\ntwo\r\nthree\r\n");
    const r = await replace("w.txt", "one\ntwo\n", "ONE\nTWO\n");
    expect(r).toMatchObject({ success: true, strategy: "line_endings" });
    expect(await read("w.txt")).toBe("ONE\r\nTWO\r\nthree\r\n");
  });

  it("trailing whitespace", async () => {
    await writeFile(file("t.py"), "x = 1   \ny = 2\t\n");
    const r = await replace("t.py", "x = 1\ny = 2", "x = 10\ny = 20");
    expect(r).toMatchObject({ success: true, strategy: "trailing_whitespace" });
    expect(await read("t.py")).toBe("x = 10\ny = 20\n");
  });

  it("indentation: re-indents the replacement by the detected offset", async () => {
    await writeFile(file("c.py"), "class A:\n    def f(self):\n        if x:\n            return 1\n");
    const r = await replace("c.py", "if x:\n    return 1", "if x:\n    log()\n    return 2");
    expect(r).toMatchObject({ success: true, strategy: "indentation" });
    expect(await read("c.py")).toBe(
      "class A:\n    def f(self):\n        if x:\n            log()\n            return 2\n",
    );
  });

  it("unicode: curly quotes, dashes, ellipses and nbsp match their ASCII forms; repeated text keeps the file's", async () => {
    await writeFile(file("doc.md"), "Title\n“Quoted” — it’s here…\nnext\u00a0line\n");
    const r = await replace(
      "doc.md",
      '"Quoted" - it\'s here...\nnext line',
      '"Quoted" - it\'s here...\nnext line, changed',
    );
    expect(r).toMatchObject({ success: true, strategy: "unicode" });
    expect(await read("doc.md")).toBe("Title\n“Quoted” — it’s here…\nnext\u00a0line, changed\n");
  });

  it('escapes: literal \\n and \\" in both strings are undone', async () => {
    await writeFile(file("e.js"), 'const s = "a";\nconsole.log(s);\n');
    const r = await replace(
      "e.js",
      'const s = \\"a\\";\\nconsole.log(s);',
      'const s = \\"b\\";\\nconsole.log(s);',
    );
    expect(r).toMatchObject({ success: true, strategy: "escapes" });
    expect(await read("e.js")).toBe('const s = "b";\nconsole.log(s);\n');
  });

  it("blank lines: old_string without the file's blank lines still matches", async () => {
    await writeFile(file("b.py"), "import os\n\n\ndef main():\n    pass\n");
    const r = await replace("b.py", "import os\ndef main():", "import sys\n\n\ndef main():");
    expect(r).toMatchObject({ success: true, strategy: "blank_lines" });
    expect(await read("b.py")).toBe("import sys\n\n\ndef main():\n    pass\n");
  });

  it("accepts a tolerant match only when it is unique", async () => {
    const src = "def a():\n    x = 1\n    y = 2\ndef b():\n        x = 1\n        y = 2\n";
    await writeFile(file("d.py"), src);
    const r = await replace("d.py", "x = 1\n  y = 2", "x = 3\n  y = 4");
    expect(String(r.error)).toMatch(/matches 2 times ignoring indentation .*lines 2, 5/);
    expect(await read("d.py")).toBe(src);
  });

  it("explains a miss with the closest region", async () => {
    await writeFile(file("m.txt"), "alpha beta\ngamma delta\n");
    const r = await replace("m.txt", "gamma delta epsilon", "x");
    expect(String(r.error)).toMatch(/not found .*none ignoring whitespace, indentation, typography/);
  });
});

describe("parallel batches and path-less calls", () => {
  it("never runs patch mode (no path) in parallel with other path-scoped calls", () => {
    const traits = (name: string) => {
      const e = h.registry.get(name);
      return e ? { parallelSafe: e.parallelSafe, pathScoped: e.pathScoped } : undefined;
    };
    const patchMode = { name: "patch", args: { mode: "patch", patch: "--- a/x\n+++ b/x\n" } };
    expect(
      shouldParallelize(
        [patchMode, { name: "write_file", args: { path: "y", content: "" } }],
        traits,
        h.root,
      ),
    ).toBe(false);
    expect(shouldParallelize([patchMode, { name: "read_file", args: { path: "z" } }], traits, h.root)).toBe(
      false,
    );
    const two = [
      { name: "patch", args: { path: "a.txt", old_string: "a", new_string: "b" } },
      { name: "patch", args: { path: "b.txt", old_string: "a", new_string: "b" } },
    ];
    expect(shouldParallelize(two, traits, h.root)).toBe(true);
    expect(
      shouldParallelize(
        [two[0]!, { name: "write_file", args: { path: "./a.txt", content: "" } }],
        traits,
        h.root,
      ),
    ).toBe(false);
  });
});
