import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkSyntax, jsonErrorOffset } from "../../src/tools/builtin/files/syntax-check.js";
import { findExecutable } from "../../src/tools/environments/shell-state.js";
import { skipBecause } from "../support/skip.js";
import { createHarness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.dispose();
});

const write = (path: string, content: string) => h.call("write_file", { path, content });
const noPython = skipBecause("Python syntax check", !findExecutable("python3") && "python3 is not on PATH");

describe("syntax warnings after write_file and patch", () => {
  it("reports a JSON error with line and column, and still writes the file", async () => {
    const r = await write("package.json", '{\n  "name": "x",\n  "version": 1.0.0\n}\n');
    expect(r.success).toBe(true);
    expect(r.syntax_warnings).toEqual([expect.stringMatching(/^line 3, column 17: /)]);
    expect((await write("ok.json", '{"a": [1, 2]}\n')).syntax_warnings).toBeUndefined();
  });

  it("does not check JSONC files such as tsconfig.json", async () => {
    expect((await write("tsconfig.json", '{\n  // comment\n  "a": 1,\n}\n')).syntax_warnings).toBeUndefined();
  });

  it("reports only errors the edit introduced", async () => {
    await writeFile(join(h.root, "broken.json"), '{"a": 1,, "b": 2}\n');
    const same = await h.call("patch", { path: "broken.json", old_string: '"b": 2', new_string: '"b": 3' });
    expect(same.success).toBe(true);
    expect(same.syntax_warnings).toBeUndefined();
    await writeFile(join(h.root, "app.yaml"), "a: 1\nb: 2\n");
    const yaml = await h.call("patch", { path: "app.yaml", old_string: "b: 2", new_string: "b: [2, 3" });
    expect(yaml.syntax_warnings).toEqual([expect.stringMatching(/^line \d+, column \d+: /)]);
  });

  it("checks JavaScript as a module or a script, and TypeScript", async () => {
    const esm = await write("m.mjs", "export const a = 1;\nexport const b = ;\n");
    expect(esm.syntax_warnings).toEqual(["line 2, column 18: Unexpected token ';'"]);
    expect(
      (await write("ok.js", "import x from 'y';\nexport default x;\nawait 0;\n")).syntax_warnings,
    ).toBeUndefined();
    expect(
      (await write("c.cjs", "#!/usr/bin/env node\nmodule.exports = () => 1;\n")).syntax_warnings,
    ).toBeUndefined();
    const ts = await write("t.ts", "enum E { A }\nconst n: number = ;\n");
    expect(ts.syntax_warnings).toEqual([expect.stringMatching(/^line 2, column \d+: /)]);
    expect(
      (await write("ok.ts", "enum E { A }\nexport const n: number = E.A;\n")).syntax_warnings,
    ).toBeUndefined();
  });

  it.skipIf(noPython)("checks Python without writing __pycache__", async () => {
    const r = await write("s.py", "def f(:\n    pass\n");
    expect(r.syntax_warnings).toEqual([expect.stringMatching(/^line 1, column \d+: /)]);
    expect((await write("ok.py", "print('hi')\n")).syntax_warnings).toBeUndefined();
    expect(await h.call("search_files", { pattern: "__pycache__", target: "files" })).toMatchObject({
      total: 0,
    });
  });

  it("leaves other file types alone", async () => {
    expect(await checkSyntax("notes.md", "{{{")).toBeUndefined();
  });
});

describe("jsonErrorOffset", () => {
  it("finds where JSON stops being valid", () => {
    expect(jsonErrorOffset('{"a": 1}')).toBe(-1);
    expect(jsonErrorOffset('{"a": 1,}')).toBe(8);
    expect(jsonErrorOffset("[1, 2")).toBe(5);
    expect(jsonErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonErrorOffset("1 2")).toBe(2);
  });
});
