// Start-up as the user feels it, against an instant scripted server: spawn → first model request
// received (with an existing HERMES_HOME and a fresh one), spawn → exit of a one-line answer
// (`hermes -z`), `--help` and `--version`, each beside bare `node -e 0`. Median of BENCH_RUNS (≥ 9).
// `node bench/first-request.mjs [path/to/bin/hermes.js]` measures another build (e.g. an older one).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { BIN, fmt, median, scriptedHome } from "./lib.mjs";

const RUNS = Math.max(9, Number(process.env.BENCH_RUNS ?? 11));
const bin = process.argv[2] ? resolve(process.argv[2]) : BIN;
const node = process.execPath;
const fake = await startFakeLlm();
const root = mkdtempSync(join(tmpdir(), "hermes-bench-first-"));

// The moment each model request arrives, on this process's clock (the spawn times use it too).
let arrivals = [];
fake.setResponder(() => {
  arrivals.push(performance.now());
  return { text: "Hi." };
});

/** Spawns argv with no shell and no time wrapper; resolves to wall times since spawn. */
function run(argv, env = {}, cwd = root) {
  arrivals = [];
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => {
      const exit = performance.now() - started;
      if (code !== 0) fail(new Error(`${argv.slice(1).join(" ")} exited ${code}: ${stderr}`));
      else done({ exit, request: arrivals.length ? arrivals[0] - started : Number.NaN, stdout });
    });
  });
}

let homes = 0;
/** A HERMES_HOME holding only config.yaml, pointed at the scripted server: the state of a first run. */
const freshHome = () => scriptedHome(join(root, `home-${homes++}`), fake.openaiBaseUrl);

const oneLine = async (home) => {
  const r = await run([node, bin, "-z", "say hi"], { HERMES_HOME: home });
  if (r.stdout !== "Hi.\n") throw new Error(`unexpected answer: ${JSON.stringify(r.stdout)}`);
  return r;
};

async function series(fn) {
  await fn(); // warm the page cache and the compile cache
  const rs = [];
  for (let i = 0; i < RUNS; i++) rs.push(await fn());
  return { exit: median(rs.map((r) => r.exit)), request: median(rs.map((r) => r.request)) };
}

const bare = await series(() => run([node, "-e", "0"]));
const existing = freshHome();
await oneLine(existing); // the home now holds state.db, logs and caches, as after any earlier run
const warm = await series(() => oneLine(existing));
const fresh = await series(() => oneLine(freshHome()));
const help = await series(() => run([node, bin, "--help"]));
const version = await series(() => run([node, bin, "--version"]));

const x = (ms) => `×${fmt(ms / bare.exit, 2)}`;
console.log(`start-up against an instant server (median of ${RUNS}; ${bin})`);
console.log(`  node -e 0 (spawn → exit)                 ${fmt(bare.exit)} ms`);
console.log(`  spawn → first request, existing home     ${fmt(warm.request)} ms  ${x(warm.request)}`);
console.log(`  spawn → first request, fresh home        ${fmt(fresh.request)} ms  ${x(fresh.request)}`);
console.log(`  one-line answer, spawn → exit (-z)       ${fmt(warm.exit)} ms  ${x(warm.exit)}`);
console.log(`  one-line answer, fresh home              ${fmt(fresh.exit)} ms  ${x(fresh.exit)}`);
console.log(`  hermes --help                            ${fmt(help.exit)} ms  ${x(help.exit)}`);
console.log(`  hermes --version                         ${fmt(version.exit)} ms  ${x(version.exit)}`);
await fake.close();
rmSync(root, { recursive: true, force: true });
