// Bundles the CLI into dist/bundle/ (ESM, code-split at dynamic imports). One file per lazy boundary
// instead of hundreds of modules: the binary starts faster and uses less memory. The provider SDKs
// stay behind their dynamic imports, so `--help` never loads them.
import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { build } from "esbuild";
import { readFile } from "node:fs/promises";
import { builtinsWithoutFacades, rewriteBuiltinImports } from "./builtin-imports.mjs";
import { mergeStartupChunks } from "./merge-startup.mjs";

const require = createRequire(import.meta.url);

/**
 * Native addon, optional proxy support, the WebAssembly runtime of the bash grammar (it finds its
 * own .wasm next to itself) and Playwright (it reads files of its own package at run time) load
 * from node_modules; so does sharp (native image library, imported when an image needs resizing).
 */
const EXTERNAL = ["@lydell/node-pty", "undici", "web-tree-sitter", "playwright-core", "sharp"];

/** The root help, pre-rendered (bin/hermes.js prints it). */
const HELP_FILE = "dist/root-help.txt";

/**
 * Commander imports node:child_process (net, dgram and streams with it: ~3 ms) for executable
 * subcommands, which Hermes does not use; `hermes --help` should not pay for it. Its one use,
 * `childProcess.spawn`, loads the module when called. Fails the build if commander changes shape.
 */
const commanderWithoutChildProcess = {
  name: "commander-without-child-process",
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const eager = "import childProcess from 'node:child_process';";
      if (!source.includes(eager) || (source.match(/childProcess\.(?!spawn\()/g) ?? []).length > 0) {
        throw new Error(`${args.path}: commander no longer uses node:child_process as expected`);
      }
      const lazy =
        "const childProcess = { spawn: (...a) => globalThis.process.getBuiltinModule('node:child_process').spawn(...a) };";
      // After the import block, which rewriteBuiltinImports only reads from the file's start.
      return { contents: `${rewriteBuiltinImports(source.replace(eager, ""))}\n${lazy}\n`, loader: "js" };
    });
  },
};

// Ties dist/bundled-skills.json to this bundle: the code only trusts a table made with its own parser.
const buildId = randomUUID();

const result = await build({
  entryPoints: { hermes: "src/hermes.ts" },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node24",
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  external: EXTERNAL,
  // CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __hermesRequire } from 'node:module'; const require = __hermesRequire(import.meta.url);" },
  chunkNames: "chunks/[name]-[hash]",
  define: { __HERMES_BUILD_ID__: JSON.stringify(buildId) },
  plugins: [commanderWithoutChildProcess, builtinsWithoutFacades],
  write: false,
});

rmSync("dist/bundle", { recursive: true, force: true });
for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}
const merge = await mergeStartupChunks("dist/bundle", EXTERNAL);
console.log(
  `bundle: ${merge.merged} chunks of the start-up path merged into two (${merge.filesBefore} → ${merge.filesAfter} files)`,
);

// The bash grammar for command screening: only the compiled .wasm ships (tree-sitter-bash is a
// build-time dependency), next to the built code where the loader looks for it.
copyFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"), "dist/tree-sitter-bash.wasm");

// The bundled skills as the bundled parser reads them (src/skills/bundled-parsed.ts): a new home
// installs and indexes them before its first request without parsing their YAML. The same source
// compiled now, without the build id, so that it parses; an entry that JSON would change is left out.
const parser = await build({
  stdin: {
    contents:
      'export { listBundledSkills } from "./src/skills/bundled-files.ts"; export { parseSkillMd } from "./src/skills/skill-file.ts";',
    resolveDir: process.cwd(),
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node24",
  logLevel: "warning",
  banner: { js: "import { createRequire as __hermesRequire } from 'node:module'; const require = __hermesRequire(import.meta.url);" },
  write: false,
});
const parserDir = mkdtempSync(join(tmpdir(), "hermes-bundle-"));
writeFileSync(join(parserDir, "parser.mjs"), parser.outputFiles[0].contents);
const { listBundledSkills, parseSkillMd } = await import(pathToFileURL(join(parserDir, "parser.mjs")).href);
rmSync(parserDir, { recursive: true, force: true });
const skills = {};
for (const skill of listBundledSkills("skills")) {
  const text = readFileSync(join(skill.dir, "SKILL.md"), "utf8");
  const parsed = parseSkillMd(text, join(skill.dir, "SKILL.md"));
  if (!parsed.ok || !isDeepStrictEqual(JSON.parse(JSON.stringify(parsed.skill)), parsed.skill)) continue;
  skills[`${skill.relDir}\0${createHash("sha256").update(text).digest("hex")}`] = parsed.skill;
}
writeFileSync("dist/bundled-skills.json", JSON.stringify({ buildId, skills }));

// `hermes --help` as the CLI just built prints it: the root help depends on nothing but the build
// (plugin commands join only when a command line names a plugin), so the launcher prints this file
// instead of loading the CLI to format it. Rendered for a pipe (80 columns); the launcher lets the
// CLI format it for a terminal narrower than that.
rmSync(HELP_FILE, { force: true });
const help = spawnSync(process.execPath, ["bin/hermes.js", "--help"], {
  encoding: "utf8",
  env: { PATH: process.env.PATH, HOME: tmpdir(), NO_COLOR: "1" },
});
if (help.status !== 0 || !help.stdout.includes("Usage: hermes")) {
  throw new Error(`bin/hermes.js --help failed (exit ${help.status}): ${help.stderr}`);
}
writeFileSync(HELP_FILE, help.stdout);
