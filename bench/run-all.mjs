// Runs every bench script in turn (npm run bench). Each prints its own figures.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

for (const script of [
  "startup.mjs",
  "session.mjs",
  "long-session.mjs",
  "turn-overhead.mjs",
  "approval-corpus.mjs",
  "terminal.mjs",
  "classify-and-retry.mjs",
  "state.mjs",
  "compression.mjs",
  "code-exec.mjs",
  "skills-index.mjs",
  "browser.mjs",
]) {
  execFileSync(process.execPath, [join(import.meta.dirname, script)], { stdio: "inherit" });
}
