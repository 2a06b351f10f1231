import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Newest modification time under a folder (ms). */
function newest(dir: string): number {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return max;
}

/**
 * End-to-end tests run the real binary, which loads dist/: rebuild it when src/ is newer. After the
 * run, whatever the tests created in the temp folder and left there is listed: tests clean up.
 */
export default function setup(): () => void {
  const before = new Set(readdirSync(tmpdir()));
  buildIfStale();
  return () => {
    const left = readdirSync(tmpdir()).filter((name) => !before.has(name));
    if (left.length > 0) {
      process.stderr.write(
        `\nThe tests left ${left.length} entries in ${tmpdir()}: ${left.slice(0, 20).join(", ")}\n`,
      );
    }
  };
}

function buildIfStale(): void {
  const root = join(import.meta.dirname, "..");
  const entry = join(root, "dist", "bundle", "hermes.js");
  if (existsSync(entry) && statSync(entry).mtimeMs >= newest(join(root, "src"))) return;
  execFileSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  // The binary runs the esbuild bundle, not tsc's output: rebuild that too (as `npm run build` does).
  execFileSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { cwd: root, stdio: "inherit" });
}
