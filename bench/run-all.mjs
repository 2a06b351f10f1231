// Runs every bench script in turn (npm run bench). Each prints its own figures.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

for (const script of [
  "startup.mjs",
  "first-request.mjs",
  "first-request-ab.mjs",
  "module-cost.mjs",
  "session.mjs",
  "long-session.mjs",
  "turn-overhead.mjs",
  "approval-corpus.mjs",
  "terminal.mjs",
  "classify-and-retry.mjs",
  "state.mjs",
  "state-contention.mjs",
  "redact.mjs",
  "compression.mjs",
  "code-exec.mjs",
  "skills-index.mjs",
  "skills-scan.mjs",
  "browser.mjs",
  "web.mjs",
  "mcp.mjs",
  "tool-search.mjs",
  "api-soak.mjs",
  "telegram-soak.mjs",
]) {
  execFileSync(process.execPath, [join(import.meta.dirname, script)], { stdio: "inherit" });
}
