// A second pass of scripts/bundle.mjs: the code every agent run loads in two files, not dozens.
import { readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, join } from "node:path";
import { build } from "rolldown";

/** Chunks (by esbuild's name) that run the agent: the one-shot run, the chat, the gateway, the API server, `mcp serve` and `prompt-size`. */
const AGENT_ENTRIES = ["oneshot", "repl", "main", "serve", "mcp-serve", "prompt-size"];

/**
 * esbuild splits the bundle at every dynamic import, and the code shared by the lazy boundaries
 * ends up in dozens of small chunks: a `-z` run loaded ~36 files before its first request, and
 * each ESM module costs ~0.3 ms to resolve, read and link however small it is. This pass re-bundles
 * esbuild's output with rolldown and puts the modules both front ends load statically (the one-shot
 * run's and the chat's) into two chunks: `shared`, the part the quick commands (`config`,
 * `sessions`, ...) load too, and `startup`, the rest. Everything else keeps rolldown's own
 * splitting. Code stays where it was relative to dist/bundle, so `import.meta.url` lookups still
 * find their files. Nothing is duplicated: a module is in exactly one chunk.
 */
export async function mergeStartupChunks(dir, external) {
  const chunks = join(dir, "chunks");
  const file = (name) => (name === "hermes.js" ? join(dir, name) : join(chunks, name));
  const staticImports = (name) =>
    [...readFileSync(file(name), "utf8").matchAll(/(?:from|import)\s*"\.\/(?:chunks\/)?([\w.-]+\.js)"/g)].map(
      (m) => m[1],
    );
  const closure = (root) => {
    const seen = new Set();
    const visit = (name) => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const dep of staticImports(name)) visit(dep);
    };
    visit(root);
    return seen;
  };
  const entryOf = (prefix) => {
    const name = readdirSync(chunks).find((f) => f.startsWith(prefix));
    if (!name) throw new Error(`merge-startup: no ${prefix}*.js chunk in ${chunks}`);
    return name;
  };
  // What `hermes --version`, `config path`, `sessions list` and the other quick commands load stays
  // out: merged, they would load the whole agent.
  for (const prefix of AGENT_ENTRIES) entryOf(`${prefix}-`);
  const root = closure("hermes.js");
  const light = new Set(root);
  for (const [, name] of readFileSync(file("hermes.js"), "utf8").matchAll(/import\("\.\/chunks\/([\w.-]+\.js)"\)/g)) {
    if (!AGENT_ENTRIES.some((prefix) => name.startsWith(`${prefix}-`))) for (const f of closure(name)) light.add(f);
  }
  const chat = closure(entryOf("repl-"));
  const agentRun = [...closure(entryOf("oneshot-"))].filter((f) => chat.has(f) && !root.has(f));
  const startup = new Set(agentRun.filter((f) => !light.has(f)));
  // The part the quick commands share with an agent run (config, state.db, ...): one chunk too.
  const shared = new Set(agentRun.filter((f) => light.has(f)));
  const filesBefore = readdirSync(chunks).length + 1;

  const out = `${dir}.merging`;
  rmSync(out, { recursive: true, force: true });
  await build({
    input: { hermes: file("hermes.js") },
    external: (id) => isBuiltin(id) || external.some((pkg) => id === pkg || id.startsWith(`${pkg}/`)),
    platform: "node",
    logLevel: "warn",
    // The entry's exports stay as they are; rolldown may add the ones its chunks need.
    preserveEntrySignatures: "allow-extension",
    output: {
      dir: out,
      format: "esm",
      chunkFileNames: "chunks/[name]-[hash].js",
      minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
      // Only the chosen modules: what they import from the quick commands' code stays in its own
      // chunks (none of that imports back into these, so no cycle between the chunks can form).
      codeSplitting: {
        groups: [
          { name: "startup", test: (id) => startup.has(basename(id)), includeDependenciesRecursively: false },
          { name: "shared", test: (id) => shared.has(basename(id)), includeDependenciesRecursively: false },
        ],
      },
    },
  });
  rmSync(dir, { recursive: true, force: true });
  renameSync(out, dir);
  return { merged: startup.size + shared.size, filesBefore, filesAfter: readdirSync(chunks).length + 1 };
}
