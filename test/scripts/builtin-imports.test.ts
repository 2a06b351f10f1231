import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rewriteBuiltinImports } from "../../scripts/builtin-imports.mjs";

const G = (id: string) => `globalThis.process.getBuiltinModule(${JSON.stringify(id)})`;

/** Runs rewritten declarations and returns the named bindings. */
function bind(code: string, names: string[]): Record<string, unknown> {
  return new Function(`${code}\nreturn { ${names.join(", ")} };`)() as Record<string, unknown>;
}

describe("imports of Node built-ins in the bundle", () => {
  it("become const declarations binding what the import bound", () => {
    const out = rewriteBuiltinImports(
      [
        'import { readFileSync, statSync as stat } from "node:fs";',
        'import path from "node:path";',
        'import * as os from "node:os";',
        'import events, { once } from "node:events";',
        'import { default as cp, spawn } from "node:child_process";',
        "import 'node:process';",
        "const x = 1;",
      ].join("\n"),
    );
    expect(out).toBe(
      [
        `const { readFileSync, statSync: stat } = ${G("node:fs")};`,
        `const path = ${G("node:path")};`,
        `const os = ${G("node:os")};`,
        `const events = ${G("node:events")}, { once } = events;`,
        `const cp = ${G("node:child_process")}, { spawn } = cp;`,
        `${G("node:process")};`,
        "const x = 1;",
      ].join("\n"),
    );
    const b = bind(out.split("\nconst x")[0]!, ["readFileSync", "stat", "path", "os", "once", "cp", "spawn"]);
    expect(b.readFileSync).toBe(fs.readFileSync);
    expect(b.stat).toBe(fs.statSync);
    expect(b.path).toBe(path);
    expect(typeof b.once).toBe("function");
    expect(typeof (b.cp as { spawn: unknown }).spawn).toBe("function");
    expect(b.spawn).toBe((b.cp as { spawn: unknown }).spawn);
  });

  it("keeps type-only imports, other packages and everything after the leading block as they are", () => {
    const source = [
      "#!/usr/bin/env node",
      "/** A module. */",
      "// a comment",
      'import type { Stats } from "node:fs";',
      'import { type Dirent, readdirSync } from "node:fs";',
      'import { Command } from "commander";',
      "import fs from 'fs';",
      "export const n = 1;",
      "const later = 'import { x } from \"node:fs\"';",
    ].join("\n");
    const out = rewriteBuiltinImports(source);
    expect(out).toContain('import type { Stats } from "node:fs";');
    expect(out).toContain(`const { readdirSync } = ${G("node:fs")};`);
    expect(out).toContain('import { Command } from "commander";');
    expect(out).toContain(`const fs = ${G("fs")};`);
    expect(out.endsWith("export const n = 1;\nconst later = 'import { x } from \"node:fs\"';")).toBe(true);
  });

  it("binds functions of child_process and fs/promises lazily, constants and classes eagerly", async () => {
    const out = rewriteBuiltinImports(
      [
        'import { type ChildProcess, spawn, execFile as run } from "node:child_process";',
        'import { constants, readFile } from "node:fs/promises";',
      ].join("\n"),
    );
    expect(out).toBe(
      [
        `const spawn = (...args) => ${G("node:child_process")}.spawn(...args), run = (...args) => ${G("node:child_process")}.execFile(...args);`,
        `const readFile = (...args) => ${G("node:fs/promises")}.readFile(...args), { constants } = ${G("node:fs/promises")};`,
      ].join("\n"),
    );
    const b = bind(out, ["spawn", "run", "readFile", "constants"]);
    expect(b.constants).toBe(fs.constants);
    const read = b.readFile as (p: string, e: string) => Promise<string>;
    expect(await read(import.meta.filename, "utf8")).toBe(fs.readFileSync(import.meta.filename, "utf8"));
    const child = (b.spawn as typeof import("node:child_process").spawn)(process.execPath, ["-e", "0"]);
    const code = await new Promise((done) => child.on("close", done));
    expect(code).toBe(0);
  });

  it("leaves a file that does not start with imports untouched", () => {
    const source = '"use strict";\nconst fs = require("node:fs");\n';
    expect(rewriteBuiltinImports(source)).toBe(source);
    const later = 'export const a = 1;\nimport { b } from "node:fs";\n';
    expect(rewriteBuiltinImports(later)).toBe(later);
  });
});
