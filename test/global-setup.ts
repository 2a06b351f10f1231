import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
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

/** End-to-end tests run the real binary, which loads dist/: rebuild it when src/ is newer. */
export default function setup(): void {
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
