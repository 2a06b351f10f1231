// Bundles the CLI into dist/bundle/ (ESM, code-split at dynamic imports). One file per lazy boundary
// instead of hundreds of modules: the binary starts faster and uses less memory. The provider SDKs
// stay behind their dynamic imports, so `--help` never loads them.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { build } from "esbuild";
import { builtinsWithoutFacades } from "./builtin-imports.mjs";

const require = createRequire(import.meta.url);

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
  // Native addon, optional proxy support, the WebAssembly runtime of the bash grammar (it finds its
  // own .wasm next to itself) and Playwright (it reads files of its own package at run time) load
  // from node_modules.
  external: ["@lydell/node-pty", "undici", "web-tree-sitter", "playwright-core"],
  // CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __hermesRequire } from 'node:module'; const require = __hermesRequire(import.meta.url);" },
  chunkNames: "chunks/[name]-[hash]",
  plugins: [builtinsWithoutFacades],
  write: false,
});

rmSync("dist/bundle", { recursive: true, force: true });
for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}

// The bash grammar for command screening: only the compiled .wasm ships (tree-sitter-bash is a
// build-time dependency), next to the built code where the loader looks for it.
copyFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"), "dist/tree-sitter-bash.wasm");
