import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Parser, Tree } from "web-tree-sitter";
import { BashWalker, type Budget } from "./bash-walk.js";
import type { RawScript } from "./shell-parse.js";

/**
 * The bash grammar (tree-sitter-bash compiled to WebAssembly, run by web-tree-sitter). Loaded on
 * first use only, by `loadShellGrammar()`, which the approval gate awaits before screening; until
 * then, or if it cannot load, screening uses the hand-written splitter in shell-parse.ts.
 */

const WASM = "tree-sitter-bash.wasm";
/** Longer scripts are left to the hand-written splitter. */
const MAX_SOURCE = 256 * 1024;
/** Statements walked per script, loop bodies and function calls included. */
const STATEMENT_BUDGET = 20_000;
/**
 * The grammar's lexer is one huge WebAssembly function. After a few commands V8's optimizing tier
 * recompiles it on background threads: ~500 MB of peak memory, seconds of CPU and ~50 MB kept.
 * The baseline tier parses a command in well under a millisecond, so tier-up is limited to a
 * function index no module has (V8 reads this flag at each tier-up decision).
 */
const NO_WASM_TIER_UP = "--wasm-tier-up-filter=2147483647";

let parser: Parser | undefined;
let loading: Promise<boolean> | undefined;
let loadMs: number | undefined;

/**
 * The grammar file: copied next to the built code (dist/) by the build, or the package's own copy
 * in node_modules when running from source.
 */
function grammarPath(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++) {
    const candidate = join(dir, WASM);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  try {
    return createRequire(import.meta.url).resolve(`tree-sitter-bash/${WASM}`);
  } catch {
    return undefined;
  }
}

async function load(): Promise<boolean> {
  const started = performance.now();
  try {
    const path = grammarPath();
    if (!path) return false;
    process.getBuiltinModule("node:v8").setFlagsFromString(NO_WASM_TIER_UP);
    const ts = await import("web-tree-sitter");
    await ts.Parser.init();
    // The file's own buffer (a Uint8Array): a copy would add 1.4 MB to the run's peak.
    const language = await ts.Language.load(await readFile(path));
    const p = new ts.Parser();
    p.setLanguage(language);
    parser = p;
    loadMs = performance.now() - started;
    return true;
  } catch {
    return false;
  }
}

/** Loads the grammar once; later calls return the same promise. Resolves false if it cannot load. Never rejects. */
export function loadShellGrammar(): Promise<boolean> {
  loading ??= load();
  return loading;
}

/** Milliseconds the one-time load took, once it has succeeded. */
export const grammarLoadMs = (): number | undefined => loadMs;

/**
 * Parses `src` with the grammar into simple commands. Undefined when the grammar is not loaded,
 * the script is too long, or walking it failed; `error` is set when the grammar had to recover
 * from a syntax error or the walk skipped a statement (the caller screens the hand-written
 * splitter's reading too). Never throws.
 */
export function parseWithGrammar(
  src: string,
  depth: number,
): { script: RawScript; error: boolean } | undefined {
  const p = parser;
  if (!p || src.length > MAX_SOURCE) return undefined;
  // Trees parsed along the way (eval, source) stay alive until the walk is over.
  const trees: Tree[] = [];
  const parse = (text: string): Tree | null => {
    const tree = text.length <= MAX_SOURCE ? p.parse(text) : null;
    if (tree) trees.push(tree);
    return tree;
  };
  try {
    const tree = parse(src);
    if (!tree) return undefined;
    const budget: Budget = { left: STATEMENT_BUDGET, incomplete: false };
    const script = new BashWalker(src, depth, parse, budget).program(tree.rootNode);
    return { script, error: tree.rootNode.hasError || budget.incomplete };
  } catch {
    return undefined;
  } finally {
    for (const t of trees) t.delete();
  }
}
