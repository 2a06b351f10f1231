// An esbuild plugin for scripts/bundle.mjs: Node's built-in modules without ESM facades.
import { readFile } from "node:fs/promises";
import { isBuiltin } from "node:module";

/**
 * Node's built-in modules are taken with `process.getBuiltinModule()` instead of `import`: an ESM
 * import of a built-in builds a facade that reads every export, getters included, and node:http's
 * WebSocket alone loads the whole fetch stack (~60 ms, ~15 MB); node:process, node:util and others
 * load modules nobody uses. Only the import block a file starts with is rewritten (the place
 * where import declarations stand in this code base and its dependencies), into `const`
 * declarations binding the same names; type-only imports are left for esbuild to drop.
 */
export const builtinsWithoutFacades = {
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

/** `source` with its leading imports of built-ins as `const` declarations; the rest untouched. */
export function rewriteBuiltinImports(source) {
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

/**
 * Built-ins whose named functions are bound lazily: `spawn` becomes a function that takes the module
 * when first called. child_process (net, dgram, streams), fs/promises (readline, streams) and crypto
 * (~5 ms) cost milliseconds at start-up in modules that only use them later, if at all. Only plain functions are
 * listed: a class or a constant must stay the module's own value.
 */
const LAZY_FUNCTIONS = new Map([
  ["node:child_process", new Set(["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"])],
  [
    "node:crypto",
    new Set(["createHash", "createHmac", "randomBytes", "randomInt", "randomUUID", "scrypt", "scryptSync", "timingSafeEqual"]),
  ],
  [
    "node:fs/promises",
    new Set([
      "access",
      "appendFile",
      "chmod",
      "copyFile",
      "cp",
      "lstat",
      "mkdir",
      "mkdtemp",
      "open",
      "opendir",
      "readdir",
      "readFile",
      "readlink",
      "realpath",
      "rename",
      "rm",
      "rmdir",
      "stat",
      "symlink",
      "truncate",
      "unlink",
      "utimes",
      "writeFile",
    ]),
  ],
]);

/** `const` declarations binding what an import clause bound: the module object, or named exports. */
function bindings(spec, clause) {
  const module = `globalThis.process.getBuiltinModule(${JSON.stringify(spec)})`;
  if (!clause) return `${module};`;
  const braces = /\{([^}]*)\}/.exec(clause);
  const whole = clause.replace(/\{[^}]*\}/, "").replace(/[\s,]+$|^[\s,]+/g, "").replace(/^\*\s*as\s+/, "");
  const named = (braces?.[1] ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n && !n.startsWith("type "))
    .map((n) => n.split(/\s+as\s+/));
  // `{ default as x }` is the module object itself, as the default import is.
  const alias = named.find(([name]) => name === "default")?.[1];
  const lazy = !whole && !alias ? LAZY_FUNCTIONS.get(spec) : undefined;
  const decls = [];
  for (const [name, as] of named) {
    if (lazy?.has(name)) decls.push(`${as ?? name} = (...args) => ${module}.${name}(...args)`);
  }
  const picks = named
    .filter(([name]) => name !== "default" && !lazy?.has(name))
    .map(([name, as]) => (as ? `${name}: ${as}` : name));
  const bound = whole || alias;
  if (whole) decls.push(`${whole} = ${module}`);
  if (alias) decls.push(whole ? `${alias} = ${whole}` : `${alias} = ${module}`);
  if (picks.length) decls.push(`{ ${picks.join(", ")} } = ${bound || module}`);
  return decls.length ? `const ${decls.join(", ")};` : "";
}

