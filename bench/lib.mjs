// Shared helpers for the bench scripts: run a command, return wall time and peak RSS.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** A new HERMES_HOME at `home` holding only config.yaml, pointed at the scripted server at `baseUrl`. */
export function scriptedHome(home, baseUrl) {
  mkdirSync(home);
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: bench\n`,
  );
  return home;
}

export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** A temp folder holding `home` (a HERMES_HOME with `config` as config.yaml) and an empty `work`. */
function benchFolders(config, prefix) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, "home");
  const work = join(root, "work");
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(join(home, "config.yaml"), config);
  return { root, home, work };
}

/**
 * A fresh HERMES_HOME holding `config` (config.yaml) and an empty work folder, with an env whose
 * `hermes` writes its memory breakdown at exit (mem-report.mjs); read it with `memoryAtExit`.
 */
export function sessionSandbox(config, prefix = "hermes-bench-session-") {
  const { root, home, work } = benchFolders(config, prefix);
  const memOut = join(root, "mem.json");
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HERMES_HOME: home,
    HERMES_BENCH_MEM_OUT: memOut,
    NODE_OPTIONS: `--import ${join(import.meta.dirname, "mem-report.mjs")}`,
  };
  return { env, work, memOut };
}

/** PSS, private memory and peak RSS (MB) a sandboxed run reported at exit; NaN when it did not. */
export function memoryAtExit(memOut) {
  const mem = existsSync(memOut) ? JSON.parse(readFileSync(memOut, "utf8")) : {};
  return {
    pss: mem.Pss ?? Number.NaN,
    priv: (mem.Private_Dirty ?? Number.NaN) + (mem.Private_Clean ?? 0),
    hwm: mem.VmHWM ?? Number.NaN,
  };
}

/**
 * Whether a memory series stayed flat after warm-up: its value half-way through the run against its
 * end (the median of its last three points), within `tolerance` (10 %). Prints the verdict; a rising series sets a failing exit code.
 */
export function reportFlatAfterWarmUp(series, what, tolerance = 0.1) {
  const values = series.filter((v) => Number.isFinite(v));
  const mid = values[Math.floor((values.length - 1) / 2)];
  // The median of the last three points: one sample caught in a burst does not decide.
  const end = median(values.slice(-3));
  const growth = (end - mid) / mid;
  const flat = growth <= tolerance;
  console.log(
    `  ${what} after warm-up (half-way → end): ${fmt(mid, 0)} → ${fmt(end, 0)} MB (${growth >= 0 ? "+" : ""}${fmt(growth * 100, 1)} %): ${flat ? "flat" : "RISING"}`,
  );
  if (!flat) process.exitCode = 1;
  return flat;
}

/** A memory curve as text: one bar per point, `labels[i]` in front, the value behind. */
export function curveChart(labels, values, width = 48) {
  const top = Math.max(...values.filter((v) => Number.isFinite(v)));
  const pad = Math.max(...labels.map((l) => l.length));
  return labels
    .map((label, i) => {
      const v = values[i];
      const bar = Number.isFinite(v) ? "█".repeat(Math.max(1, Math.round((v / top) * width))) : "";
      return `  ${label.padStart(pad)} ${bar} ${Number.isFinite(v) ? fmt(v, 0) : "?"} MB`;
    })
    .join("\n");
}

/**
 * Starts `hermes api serve --port 0` (the built binary) in a fresh HERMES_HOME holding `config`
 * (config.yaml); resolves once it listens with its url, the child and `stop()` (SIGTERM, waits for
 * the exit, removes the home unless BENCH_KEEP_HOME=1, which prints where it is). `env` adds
 * variables (NODE_OPTIONS for a profile, ...).
 */
export async function startApiServe(config, { key, env = {}, prefix = "hermes-bench-api-" }) {
  const { root, home, work } = benchFolders(config, prefix);
  const child = spawn(process.execPath, [BIN, "api", "serve", "--port", "0"], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HERMES_HOME: home,
      API_SERVER_KEY: key,
      OPENAI_API_KEY: "x",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /API server listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`hermes api serve exited (${code}): ${stderr}`)));
  });
  const stop = async () => {
    child.kill("SIGTERM");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    if (process.env.BENCH_KEEP_HOME === "1") console.log(`  HERMES_HOME kept: ${home}`);
    else rmSync(root, { recursive: true, force: true });
    return code;
  };
  return { url, child, stop };
}

/** User + system CPU seconds a process has used so far (/proc/<pid>/stat, 100 ticks a second on Linux). */
export function cpuSecondsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
