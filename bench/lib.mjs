// Shared helpers for the bench scripts: run a command, return wall time and peak RSS.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..");
export const BIN = join(ROOT, "bin", "hermes.js");
const TIME = "/usr/bin/time";

/** Runs argv once; resolves to { ms, rssMb, code, stdout }. Peak RSS comes from GNU time when present. */
export function runOnce(argv, { env = process.env, cwd = ROOT, onStderr, measureRss = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-"));
  const out = join(dir, "time.txt");
  const useTime =
    measureRss &&
    (() => {
      try {
        readFileSync(TIME);
        return true;
      } catch {
        return false;
      }
    })();
  const cmd = useTime ? TIME : argv[0];
  const args = useTime ? ["-f", "%M", "-o", out, ...argv] : argv.slice(1);
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => onStderr?.(String(d), child));
    child.on("close", (code) => {
      const ms = performance.now() - started;
      let rssMb = Number.NaN;
      if (useTime) {
        const kb = Number.parseInt(readFileSync(out, "utf8").trim().split("\n").pop() ?? "", 10);
        rssMb = kb / 1024;
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ ms, rssMb, code, stdout });
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

export async function repeat(n, fn) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await fn(i));
  return results;
}

export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
