import { execFileSync } from "node:child_process";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findRipgrep } from "../../src/tools/builtin/files/search-rg.js";
import type { ExecutionEnvironment } from "../../src/tools/environments/types.js";
import { skipBecause } from "../support/skip.js";
import { createHarness, type ToolHarness } from "./helpers.js";

const hasRg = findRipgrep() !== null;
const noRg = hasRg ? undefined : "ripgrep (rg) is not on PATH";
const rgHasPcre2 = (() => {
  try {
    execFileSync("rg", ["--pcre2-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

let h: ToolHarness;

async function put(rel: string, content: string | Buffer, mtimeSec?: number): Promise<void> {
  const full = join(h.root, rel);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, content);
  if (mtimeSec !== undefined) await utimes(full, mtimeSec, mtimeSec);
}

async function fixture(): Promise<void> {
  await put("src/app.ts", "import x from 'y';\nconst TODO_ITEM = 1;\n// TODO: fix\n", 1_000_000);
  await put("src/util/helpers.ts", "export function helper() {}\n// todo lowercase\n", 3_000_000);
  await put("src/util/test_helpers.py", "def test_x():\n    assert TODO\n", 2_000_000);
  await put(".hidden/config.ts", "TODO hidden\n", 500_000);
  await put(".git/info.txt", "TODO inside git\n");
  await put("node_modules/pkg/index.js", "TODO in deps\n");
  await put(".gitignore", "node_modules/\n");
  await put("bin.dat", Buffer.concat([Buffer.from("TODO"), Buffer.from([0, 1, 2])]));
}

const search = (args: Record<string, unknown>) => h.call("search_files", args);
const lines = (r: Record<string, unknown>): string[] => String(r.results).split("\n").filter(Boolean);

const engines: { name: "js" | "rg"; skip: boolean }[] = [
  { name: "js", skip: false },
  { name: "rg", skip: !hasRg },
];

for (const engine of engines) {
  // Skipped when rg is not installed (`which rg` finds nothing): the JS fallback tests still run.
  const skip = skipBecause(`search_files (${engine.name} engine)`, engine.skip && noRg);
  describe.skipIf(skip)(`search_files (${engine.name} engine)`, () => {
    const saved = process.env.HERMES_SEARCH_ENGINE;
    beforeAll(() => {
      if (engine.name === "js") process.env.HERMES_SEARCH_ENGINE = "js";
      else delete process.env.HERMES_SEARCH_ENGINE;
    });
    afterAll(() => {
      if (saved === undefined) delete process.env.HERMES_SEARCH_ENGINE;
      else process.env.HERMES_SEARCH_ENGINE = saved;
    });
    beforeEach(async () => {
      h = await createHarness();
      await fixture();
    });
    afterEach(async () => {
      await h.dispose();
    });

    it("finds content matches as path:line:text, skipping .git, node_modules and binaries", async () => {
      const r = await search({ pattern: "TODO" });
      expect(r).toMatchObject({ total: 4, returned: 4, offset: 0 });
      expect(lines(r).sort()).toEqual([
        ".hidden/config.ts:1:TODO hidden",
        "src/app.ts:2:const TODO_ITEM = 1;",
        "src/app.ts:3:// TODO: fix",
        "src/util/test_helpers.py:2:    assert TODO",
      ]);
      expect(r).not.toHaveProperty("next_offset");
    });

    it("supports files_with_matches and count modes", async () => {
      const files = await search({ pattern: "TODO", output_mode: "files_with_matches" });
      expect(lines(files).sort()).toEqual([".hidden/config.ts", "src/app.ts", "src/util/test_helpers.py"]);
      const counts = await search({ pattern: "TODO", output_mode: "count" });
      expect(lines(counts)).toContain("src/app.ts:2");
      expect(counts).toMatchObject({ total: 3, total_matches: 4 });
    });

    it("shows context lines around matches", async () => {
      const r = await search({ pattern: "TODO: fix", context: 1 });
      expect(lines(r)).toEqual(["src/app.ts-2-const TODO_ITEM = 1;", "src/app.ts:3:// TODO: fix"]);
    });

    it("honours file_glob, path and (?i)", async () => {
      const py = await search({ pattern: "TODO", file_glob: "*.py" });
      expect(lines(py)).toEqual(["src/util/test_helpers.py:2:    assert TODO"]);
      const sub = await search({ pattern: "(?i)todo", path: "src/util" });
      expect(lines(sub).sort()).toEqual([
        "src/util/helpers.ts:2:// todo lowercase",
        "src/util/test_helpers.py:2:    assert TODO",
      ]);
      const anchored = await search({ pattern: "todo", path: "src", file_glob: "util/*.ts" });
      expect(lines(anchored)).toEqual(["src/util/helpers.ts:2:// todo lowercase"]);
    });

    it("pages results with offset and next_offset", async () => {
      await put("many.txt", `${Array.from({ length: 120 }, (_, i) => `needle ${i + 1}`).join("\n")}\n`);
      const p1 = await search({ pattern: "needle" });
      expect(p1).toMatchObject({ total: 120, returned: 50, next_offset: 50 });
      expect(lines(p1)[0]).toBe("many.txt:1:needle 1");
      const p3 = await search({ pattern: "needle", offset: 100 });
      expect(p3).toMatchObject({ total: 120, returned: 20, offset: 100 });
      expect(lines(p3)[0]).toBe("many.txt:101:needle 101");
      expect(p3).not.toHaveProperty("next_offset");
    });

    it("finds files by glob, newest first", async () => {
      const ts = await search({ pattern: "*.ts", target: "files" });
      expect(lines(ts)).toEqual(["src/util/helpers.ts", "src/app.ts", ".hidden/config.ts"]);
      const deep = await search({ pattern: "**/test_*.py", target: "files" });
      expect(lines(deep)).toEqual(["src/util/test_helpers.py"]);
      const word = await search({ pattern: "helpers", target: "files" });
      expect(lines(word)).toEqual(["src/util/helpers.ts", "src/util/test_helpers.py"]);
      const paged = await search({ pattern: "*.ts", target: "files", limit: 2 });
      expect(paged).toMatchObject({ total: 3, returned: 2, next_offset: 2 });
    });

    it("reports invalid regexes, missing paths and empty results clearly", async () => {
      const bad = await search({ pattern: "foo(" });
      expect(String(bad.error)).toMatch(/Invalid (regex|search pattern)/);
      const missing = await search({ pattern: "x", path: "nope" });
      expect(String(missing.error)).toMatch(/does not exist/);
      const none = await search({ pattern: "zzz_not_here" });
      expect(none).toMatchObject({ total: 0, returned: 0 });
      expect(String(none.note)).toMatch(/No matches/);
      expect(String((await search({ pattern: "" })).error)).toMatch(/pattern is required/);
    });
  });
}

const noPcre2 = skipBecause("search_files PCRE2 retry", !rgHasPcre2 && (noRg ?? "this rg has no PCRE2"));

describe.skipIf(skipBecause("ripgrep specifics", noRg))("search_files (ripgrep specifics)", () => {
  beforeEach(async () => {
    delete process.env.HERMES_SEARCH_ENGINE;
    h = await createHarness();
    await fixture();
  });
  afterEach(async () => {
    await h.dispose();
  });

  it("respects .gitignore in a git repository", async () => {
    await put("ignored.txt", "TODO ignored\n");
    await put(".gitignore", "node_modules/\nignored.txt\n");
    const r = await search({ pattern: "TODO", output_mode: "files_with_matches" });
    expect(lines(r)).not.toContain("ignored.txt");
  });

  it.skipIf(noPcre2)("retries look-around patterns with PCRE2", async () => {
    const r = await search({ pattern: "TODO(?=:)" });
    expect(lines(r)).toEqual(["src/app.ts:3:// TODO: fix"]);
  });

  it("runs through the environment on non-local backends", async () => {
    const local = h.ctx.env;
    const remote: ExecutionEnvironment = {
      backend: "remote-test",
      run: (c, o) => local.run(c, o),
      getCwd: () => local.getCwd(),
      resolvePath: (p) => local.resolvePath(p),
      readFile: (p) => local.readFile(p),
      writeFile: (p, d) => local.writeFile(p, d),
      stat: (p) => local.stat(p),
      listDir: (p) => local.listDir(p),
      probe: () => local.probe(),
      dispose: () => local.dispose(),
    };
    const raw = await h.registry.dispatch(
      "search_files",
      { pattern: "TODO: fix" },
      { ...h.ctx, env: remote },
    );
    expect(JSON.parse(raw)).toMatchObject({ total: 1, results: "src/app.ts:3:// TODO: fix" });
  });
});
