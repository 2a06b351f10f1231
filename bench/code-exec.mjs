// execute_code: RPC round trips per second from a script to a no-op tool, start-up overhead of one
// run (empty script), how soon a timeout or an interrupt returns while a setsid grandchild holds the
// script's stdout, and what one execute_code call saves against the same 10 tool calls made one
// per model turn (requests and bytes sent to the LLM, through the real agent against the fake
// server). Figures only, no pass/fail. Run after a build (imports dist/).
import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../dist/agent/agent.js";
import { DEFAULT_CONFIG } from "../dist/core/config.js";
import { findPython } from "../dist/tools/builtin/code-exec/env.js";
import { runScript } from "../dist/tools/builtin/code-exec/run.js";
import { registerBuiltinTools } from "../dist/tools/builtin/index.js";
import { createLocalEnvironmentProvider } from "../dist/tools/environments/local.js";
import { ToolRegistry } from "../dist/tools/registry.js";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { fmt, median, ROOT } from "./lib.mjs";

const ROUND_TRIPS = Number(process.env.BENCH_RPC_CALLS ?? 20000);
const STARTS = Number(process.env.BENCH_RUNS ?? 20);
const python = findPython("strict");

/** runScript with one no-op tool, as execute_code runs it (minus argument parsing). */
const run = (language, code, maxToolCalls = 10, extra = {}) =>
  runScript({
    language,
    code,
    interpreter: language === "python" ? python : process.execPath,
    env: (socket) => ({ PATH: process.env.PATH ?? "", HERMES_RPC_SOCKET: socket }),
    tools: [{ name: "noop", params: [] }],
    callTool: async () => '{"ok":true}',
    refuse: (name) => `unknown ${name}`,
    maxToolCalls,
    timeoutMs: 120_000,
    ...extra,
  });

/** Round-trip figures swing with vCPU scheduling: the median of a few runs, with the range. */
const RPC_REPEATS = Number(process.env.BENCH_RPC_REPEATS ?? 5);

/**
 * The floor set by the machine: a bare Node server answering a bare Python client over a Unix
 * socket with the same newline-delimited JSON, none of execute_code's code on either side.
 */
async function bareSocketRate() {
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-sock-"));
  const path = join(dir, "s.sock");
  const server = createServer((c) => {
    c.setEncoding("utf8");
    let buf = "";
    c.on("data", (d) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const { id } = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        c.write(`${JSON.stringify({ id, result: '{"ok":true}' })}\n`);
      }
    });
  });
  await new Promise((r) => server.listen(path, r));
  const client = [
    "import json, socket, sys, time",
    "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); r = s.makefile('rb')",
    `n = ${ROUND_TRIPS}; t = time.perf_counter()`,
    "for i in range(n):",
    "    s.sendall((json.dumps({'id': i, 'tool': 'noop', 'args': {}}) + '\\n').encode()); json.loads(r.readline())",
    "print(n / (time.perf_counter() - t))",
  ].join("\n");
  const rates = [];
  for (let i = 0; i < RPC_REPEATS; i++) {
    const out = await new Promise((resolve, reject) => {
      execFile(python, ["-c", client, path], (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    rates.push(Number(out));
  }
  server.close();
  rmSync(dir, { recursive: true, force: true });
  return rates;
}

async function roundTrips() {
  const bare = await bareSocketRate();
  const pyRates = [];
  for (let i = 0; i < RPC_REPEATS; i++) pyRates.push(Number((await pythonRoundTrips()).output));
  const js = await javascriptRoundTrips();
  if (js.status !== "success") throw new Error(js.error);
  const [seq, par] = js.output.trim().split(" ").map(Number);
  console.log(
    `execute_code RPC: ${fmt(median(pyRates), 0)} round trips/s from Python (sequential; median of ${RPC_REPEATS}, ` +
      `${fmt(Math.min(...pyRates), 0)}–${fmt(Math.max(...pyRates), 0)}), ` +
      `${fmt(seq, 0)}/s from JavaScript (sequential), ${fmt(par, 0)}/s (100 in flight) — ${ROUND_TRIPS} calls to a no-op tool per run`,
  );
  console.log(
    `execute_code RPC floor of this machine: a bare Python client and Node server on a Unix socket: ${fmt(median(bare), 0)}/s ` +
      `(median of ${RPC_REPEATS}, ${fmt(Math.min(...bare), 0)}–${fmt(Math.max(...bare), 0)})`,
  );
}

async function pythonRoundTrips() {
  const py = await run(
    "python",
    [
      "import time",
      "from hermes_tools import noop",
      "noop()",
      `n = ${ROUND_TRIPS}`,
      "t = time.perf_counter()",
      "for _ in range(n): noop()",
      "print(n / (time.perf_counter() - t))",
    ].join("\n"),
    ROUND_TRIPS + 1,
  );
  if (py.status !== "success") throw new Error(py.error);
  return py;
}

function javascriptRoundTrips() {
  return run(
    "javascript",
    [
      'import { noop } from "hermes_tools";',
      "await noop();",
      `const n = ${ROUND_TRIPS};`,
      "let t = performance.now();",
      "for (let i = 0; i < n; i++) await noop();",
      "const seq = n / ((performance.now() - t) / 1000);",
      "t = performance.now();",
      "for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: 100 }, () => noop()));",
      "console.log(seq, n / ((performance.now() - t) / 1000));",
    ].join("\n"),
    2 * ROUND_TRIPS + 1,
  );
}

async function startup() {
  for (const [language, code, bare] of [
    ["python", "pass", [python, "-c", "pass"]],
    ["javascript", "", [process.execPath, "-e", ""]],
  ]) {
    const runs = [];
    const base = [];
    for (let i = 0; i < STARTS; i++) {
      const t0 = performance.now();
      const r = await run(language, code);
      runs.push(performance.now() - t0);
      if (r.status !== "success") throw new Error(r.error);
      const t1 = performance.now();
      spawnSync(bare[0], bare.slice(1));
      base.push(performance.now() - t1);
    }
    console.log(
      `execute_code start-up (${language}, empty script): ${fmt(median(runs))} ms median of ${STARTS} ` +
        `(the bare interpreter alone: ${fmt(median(base))} ms)`,
    );
  }
}

/**
 * A script that starts `setsid sleep 30` (which keeps the script's stdout) and then sleeps: the
 * time until the result with a 1 s timeout, and after an interrupt sent 1 s in.
 */
async function setsidGrandchild() {
  const code = [
    "import subprocess, time",
    "subprocess.Popen(['setsid', 'sleep', '30'])",
    "print('started', flush=True)",
    "time.sleep(60)",
  ].join("\n");
  let t0 = performance.now();
  const timedOut = await run("python", code, 10, { timeoutMs: 1_000 });
  const timeoutMs = performance.now() - t0;
  if (timedOut.status !== "timeout") throw new Error(`expected a timeout: ${JSON.stringify(timedOut)}`);
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 1_000);
  t0 = performance.now();
  const interrupted = await run("python", code, 10, { signal: abort.signal });
  const interruptMs = performance.now() - t0 - 1_000;
  if (interrupted.status !== "interrupted")
    throw new Error(`expected an interrupt: ${JSON.stringify(interrupted)}`);
  console.log(
    `execute_code with a setsid grandchild holding stdout: 1 s timeout returns after ${fmt(timeoutMs / 1000, 2)} s; ` +
      `an interrupt returns ${fmt(interruptMs, 0)} ms after it is sent`,
  );
}

/** Ten source files to read, and the task both ways: one read per turn, or one script. */
async function comparison() {
  const project = mkdtempSync(join(tmpdir(), "hermes-bench-code-"));
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-code-home-"));
  const sources = readdirSync(join(ROOT, "src", "agent"))
    .filter((f) => f.endsWith(".ts"))
    .slice(0, 10);
  for (const f of sources) copyFileSync(join(ROOT, "src", "agent", f), join(project, f));
  const script = [
    "from hermes_tools import read_file",
    `files = ${JSON.stringify(sources)}`,
    "for f in files:",
    "    lines = read_file(f, limit=2000)['content'].splitlines()",
    "    hits = sum('signal' in l for l in lines)",
    "    print(f, len(lines), 'lines,', hits, 'mention signal')",
  ].join("\n");
  const call = (name, args) => ({ toolCalls: [{ name, arguments: args }] });
  const fake = await startFakeLlm();
  const registry = new ToolRegistry();
  registerBuiltinTools(registry, DEFAULT_CONFIG);
  const environments = createLocalEnvironmentProvider({ cwd: project, home });
  const measure = async (turns) => {
    fake.requests.length = 0;
    fake.enqueue(...turns, { text: "Summary: done." });
    const agent = new Agent({
      target: {
        provider: "custom",
        apiMode: "chat_completions",
        model: "bench",
        baseUrl: fake.openaiBaseUrl,
        apiKey: "k",
      },
      registry,
      toolNames: new Set(["read_file", "write_file", "patch", "search_files", "terminal", "execute_code"]),
      config: DEFAULT_CONFIG,
      home,
      environments,
      onEvent: () => {},
    });
    const r = await agent.runConversation("Which of these files mention signal, and how long are they?");
    if (r.status !== "completed") throw new Error(`run ended ${r.status}`);
    const bytes = fake.requests.reduce((n, q) => n + Buffer.byteLength(q.rawBody), 0);
    return { requests: fake.requests.length, bytes, tokens: r.usage.inputTokens };
  };
  const perTurn = await measure(sources.map((f) => call("read_file", { path: f, limit: 2000 })));
  const scripted = await measure([call("execute_code", { code: script })]);
  const last = fake.requests.at(-1).body.messages.at(-1);
  const outcome = JSON.parse(last.content);
  if (outcome.status !== "success" || outcome.tool_calls_made !== 10)
    throw new Error(`execute_code did not run as expected: ${last.content}`);
  const kb = (b) => `${fmt(b / 1024, 0)} KB`;
  console.log(
    `10 file reads, one per model turn: ${perTurn.requests} requests, ${kb(perTurn.bytes)} sent to the LLM; ` +
      `one execute_code call: ${scripted.requests} requests, ${kb(scripted.bytes)} ` +
      `(${fmt(perTurn.bytes / scripted.bytes)}× fewer bytes, ${fmt(perTurn.requests / scripted.requests)}× fewer requests)`,
  );
  await environments.disposeAll();
  await fake.close();
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}

if (!python) console.log("execute_code bench: no python3 found; skipped");
else {
  await roundTrips();
  await startup();
  await setsidGrandchild();
  await comparison();
}
