// What each heavy module adds to a process: wall time and resident memory of loading it and doing
// the one thing Hermes does with it, each in a fresh `node` (median of BENCH_RUNS). Peak RSS
// (VmHWM) counts transient spikes too, such as the optimizing compile of a WebAssembly function.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import v8 from "node:v8";
import { fmt, median } from "./lib.mjs";

const require = createRequire(import.meta.url);
const COMMANDS = 30;

/** Each case: what it loads and uses, as Hermes does (may return `settle`, awaited after timing). Runs in the child. */
const CASES = {
  "openai SDK (import + client)": async () => {
    const { default: OpenAI } = await import("openai");
    new OpenAI({ apiKey: "x", baseURL: "http://127.0.0.1:9/v1" });
  },
  "@anthropic-ai/sdk (import + client)": async () => {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    new Anthropic({ apiKey: "x" });
  },
  "built-in fetch, first use": async () => {
    await (await fetch("data:text/plain,x")).text();
  },
  "undici package (import; proxies, web tools)": async () => {
    await import("undici");
  },
  "pino + file destination (no longer used)": async (dir) => {
    const { default: pino } = await import("pino");
    pino(pino.destination({ dest: join(dir, "a.log"), sync: true })).info("x");
  },
  "ajv (import + one schema)": async () => {
    const { Ajv } = await import("ajv");
    new Ajv({ strict: false }).compile({ type: "object", properties: { path: { type: "string" } } })({
      path: "a",
    });
  },
  "yaml (import + parse)": async () => {
    (await import("yaml")).parse("model:\n  default: x\n");
  },
  "node:sqlite (open a WAL db)": async (dir) => {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(join(dir, "s.db"));
    db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('a')");
    db.close();
  },
  [`bash grammar, ${COMMANDS} commands, default tiering`]: async () => parseCommands(false),
  [`bash grammar, ${COMMANDS} commands, baseline compiler only`]: async () => parseCommands(true),
};

async function parseCommands(baselineOnly) {
  // The grammar's own switch (src/tools/approval/grammar.ts) does the same.
  if (baselineOnly) v8.setFlagsFromString("--wasm-tier-up-filter=2147483647");
  const ts = await import("web-tree-sitter");
  await ts.Parser.init();
  const wasm = readFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  const parser = new ts.Parser();
  parser.setLanguage(await ts.Language.load(new Uint8Array(wasm)));
  for (let i = 0; i < COMMANDS; i++) parser.parse(`cd proj${i} && grep -c Hello app.py > out.txt`)?.delete();
  // The optimizing compiler runs on background threads: its memory shows after the load is timed.
  return { settle: new Promise((r) => setTimeout(r, 1500)) };
}

function status() {
  const s = readFileSync("/proc/self/status", "utf8");
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

if (process.argv[2] === "--case") {
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-module-"));
  const before = status();
  const started = performance.now();
  const result = await CASES[process.argv[3]](dir);
  const ms = performance.now() - started;
  await result?.settle;
  const after = status();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    JSON.stringify({ ms, rss: after.rss - before.rss, peak: after.hwm - before.rss, base: before.rss }),
  );
} else {
  const RUNS = Number(process.env.BENCH_RUNS ?? 5);
  console.log(`what each module adds to a fresh node process (median of ${RUNS})`);
  console.log(
    `  ${"module".padEnd(46)} ${"load ms".padStart(8)} ${"+RSS MB".padStart(8)} ${"+peak MB".padStart(9)}`,
  );
  for (const name of Object.keys(CASES)) {
    const rs = [];
    for (let i = 0; i < RUNS; i++) {
      const r = spawnSync(process.execPath, [import.meta.filename, "--case", name], { encoding: "utf8" });
      // A package Hermes no longer depends on may be gone from node_modules.
      if (r.status !== 0 && r.stderr.includes("ERR_MODULE_NOT_FOUND")) break;
      if (r.status !== 0) throw new Error(`${name}: ${r.stderr}`);
      rs.push(JSON.parse(r.stdout));
    }
    if (rs.length === 0) {
      console.log(`  ${name.padEnd(46)} (not installed)`);
      continue;
    }
    const m = (k) => median(rs.map((r) => r[k]));
    console.log(
      `  ${name.padEnd(46)} ${fmt(m("ms")).padStart(8)} ${fmt(m("rss")).padStart(8)} ${fmt(m("peak")).padStart(9)}`,
    );
  }
}
