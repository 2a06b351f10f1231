// Bundles the CLI into dist/bundle/ (ESM, code-split at dynamic imports). One file per lazy boundary
// instead of hundreds of modules: the binary starts faster and uses less memory. The provider SDKs
// stay behind their dynamic imports, so `--help` never loads them.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire, isBuiltin } from "node:module";
import { dirname } from "node:path";
import { build } from "esbuild";

const require = createRequire(import.meta.url);

/**
 * Node's built-in modules are taken with `process.getBuiltinModule()` instead of `import`: an ESM
 * import of a built-in builds a facade that reads every export, getters included, and node:http's
 * WebSocket alone loads the whole fetch stack (~60 ms, ~15 MB); node:process, node:util and others
 * load modules nobody uses. Only the import block a file starts with is rewritten (the place
 * where import declarations stand in this code base and its dependencies), into `const`
 * declarations binding the same names; type-only imports are left for esbuild to drop.
 */
const builtinsWithoutFacades = {
  name: "builtins-without-facades",
  setup(b) {
    b.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const contents = rewriteBuiltinImports(source);
      if (contents === source) return undefined;
      return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js" };
    });
  },
};

const LEADING = /(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|#![^\n]*)/y;
const IMPORT = /import(?![\w$])\s*(?:([^"';]*?)\s*from\s*)?(["'])([^"']+)\2\s*;?/y;

function rewriteBuiltinImports(source) {
  let out = "";
  let at = 0;
  for (;;) {
    LEADING.lastIndex = at;
    const skipped = LEADING.exec(source);
    if (skipped) {
      out += skipped[0];
      at = LEADING.lastIndex;
      continue;
    }
    IMPORT.lastIndex = at;
    const m = IMPORT.exec(source);
    if (!m) break;
    const [text, clause, , spec] = m;
    out += isBuiltin(spec) && !/^type\s/.test(clause ?? "") ? bindings(spec, clause) : text;
    at = IMPORT.lastIndex;
  }
  return at === 0 ? source : out + source.slice(at);
}

/** `const` declarations binding what an import clause bound: the module object, or named exports. */
function bindings(spec, clause) {
  const module = `globalThis.process.getBuiltinModule(${JSON.stringify(spec)})`;
  if (!clause) return `${module};`;
  const braces = /\{([^}]*)\}/.exec(clause);
  const whole = clause.replace(/\{[^}]*\}/, "").replace(/[\s,]+$|^[\s,]+/g, "").replace(/^\*\s*as\s+/, "");
  const picks = (braces?.[1] ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n && !n.startsWith("type "))
    .map((n) => n.replace(/\s+as\s+/, ": "));
  const decls = [];
  if (whole) decls.push(`${whole} = ${module}`);
  if (picks.length) decls.push(`{ ${picks.join(", ")} } = ${whole || module}`);
  return decls.length ? `const ${decls.join(", ")};` : "";
}

const result = await build({
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
