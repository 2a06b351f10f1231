// Bundles the CLI into dist/bundle/ (ESM, code-split at dynamic imports). One file per lazy boundary
// instead of hundreds of modules: the binary starts faster and uses less memory. The provider SDKs
// stay behind their dynamic imports, so `--help` never loads them.
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
  // Native addon, optional proxy support and the logger's worker-based transports load from node_modules.
  external: ["@lydell/node-pty", "undici", "pino"],
  // CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __hermesRequire } from 'node:module'; const require = __hermesRequire(import.meta.url);" },
  chunkNames: "chunks/[name]-[hash]",
});
