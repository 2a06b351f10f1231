// Bundles the CLI into dist/bundle/ (ESM, code-split at dynamic imports). One file per lazy boundary
// instead of hundreds of modules: the binary starts faster and uses less memory. The provider SDKs
// stay behind their dynamic imports, so `--help` never loads them.
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

await build({
  entryPoints: { hermes: "src/cli/main.ts" },
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
  // Native addon, optional proxy support, the logger's worker-based transports and the WebAssembly
  // runtime of the bash grammar (it finds its own .wasm next to itself) load from node_modules.
  external: ["@lydell/node-pty", "undici", "pino", "web-tree-sitter"],
  // CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __hermesRequire } from 'node:module'; const require = __hermesRequire(import.meta.url);" },
  chunkNames: "chunks/[name]-[hash]",
});

// The bash grammar for command screening: only the compiled .wasm ships (tree-sitter-bash is a
// build-time dependency), next to the built code where the loader looks for it.
const grammar = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
copyFileSync(grammar, "dist/tree-sitter-bash.wasm");
