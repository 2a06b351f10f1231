// Start-up of several builds side by side: spawn → first model request and spawn → exit of
// `hermes -z` against an instant scripted server, the builds' runs interleaved with each other and
// with a bare `node -e 0`, so that a busy moment of the machine weighs on all of them alike.
// `node bench/first-request-ab.mjs [bin/hermes.js ...]` (default: this build); BENCH_RUNS runs
// each (default 41); BENCH_FRESH=1 gives every run a fresh HERMES_HOME.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { BIN, fmt, median, scriptedHome } from "./lib.mjs";

const bins = process.argv.length > 2 ? process.argv.slice(2).map((b) => resolve(b)) : [BIN];
const RUNS = Number(process.env.BENCH_RUNS ?? 41);
const FRESH = process.env.BENCH_FRESH === "1";
const fake = await startFakeLlm();
let arrival = 0;
fake.setResponder(() => {
  arrival = performance.now();
  return { text: "Hi." };
});
const root = mkdtempSync(join(tmpdir(), "hermes-bench-ab-"));
let homes = 0;
const newHome = () => scriptedHome(join(root, `home-${homes++}`), fake.openaiBaseUrl);
const kept = bins.map(() => newHome());

/** Wall times of one spawn: [to the first request (NaN without one), to exit]. */
function run(argv, env) {
  arrival = Number.NaN;
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => {
      if (code !== 0) fail(new Error(`${argv.join(" ")} exited ${code}: ${stderr}`));
      else done([arrival - started, performance.now() - started]);
    });
  });
}
const env = (home) => ({ PATH: process.env.PATH, HOME: process.env.HOME, HERMES_HOME: home });
const hermes = (i) => run([bins[i], "-z", "hi"], env(FRESH ? newHome() : kept[i]));

for (let i = 0; i < bins.length; i++) await hermes(i); // page cache, compile cache, an existing home
const bare = [];
const results = bins.map(() => ({ request: [], exit: [] }));
for (let r = 0; r < RUNS; r++) {
  bare.push((await run(["-e", "0"], env(root)))[1]);
  for (let i = 0; i < bins.length; i++) {
    const [request, exit] = await hermes(i);
    results[i].request.push(request);
    results[i].exit.push(exit);
  }
}
const base = median(bare);
console.log(`start-up, ${RUNS} interleaved runs (medians), ${FRESH ? "a fresh" : "an existing"} HERMES_HOME`);
console.log(`  node -e 0 (spawn → exit)  ${fmt(base)} ms`);
for (let i = 0; i < bins.length; i++) {
  const request = median(results[i].request);
  const exit = median(results[i].exit);
  console.log(
    `  ${bins[i]}\n    spawn → first request ${fmt(request)} ms (×${fmt(request / base, 2)}), spawn → exit ${fmt(exit)} ms (×${fmt(exit / base, 2)})`,
  );
}
await fake.close();
rmSync(root, { recursive: true, force: true });
