// A scripted 10-tool-call session through the real binary (`hermes -z`) against an instant fake
// LLM server: spawn-to-exit wall time and peak RSS. Also the interrupt latency of a running command.
// `node bench/session.mjs [path/to/bin/hermes.js]` measures another build (e.g. an older one).
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { fmt, median, memoryAtExit, BIN as OWN_BIN, repeat, runOnce, sessionSandbox } from "./lib.mjs";

const BIN = process.argv[2] ? resolve(process.argv[2]) : OWN_BIN;

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const fake = await startFakeLlm();

const call = (name, args) => ({ toolCalls: [{ name, arguments: args }], chunkSize: 64 });
const script = () => [
  call("terminal", { command: "mkdir -p proj && cd proj && echo started > log.txt" }),
  call("write_file", { path: "app.py", content: "def greet(name):\n    return 'hello ' + name\n" }),
  call("read_file", { path: "app.py" }),
  call("patch", { path: "app.py", old_string: "'hello '", new_string: "'Hello, '" }),
  call("search_files", { pattern: "def greet", target: "content", path: "." }),
  call("terminal", { command: "grep -c Hello app.py > out.txt" }),
  call("write_file", { path: "notes.md", content: "# Notes\nstatus: draft\n" }),
  call("search_files", { pattern: "*.md", target: "files" }),
  call("patch", { path: "notes.md", old_string: "status: draft", new_string: "status: done" }),
  call("terminal", { command: "ls > listing.txt" }),
  { text: "Done." },
];

const sandbox = () =>
  sessionSandbox(`model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n`);

async function oneSession() {
  const { env, work, memOut } = sandbox();
  fake.enqueue(...script());
  const r = await runOnce([process.execPath, BIN, "-z", "set up the project"], { env, cwd: work });
  const memory = memoryAtExit(memOut);
  rmSync(dirname(work), { recursive: true, force: true });
  if (r.code !== 0 || r.stdout !== "Done.\n") throw new Error(`session failed: code ${r.code} ${r.stdout}`);
  return { ...r, ...memory };
}

await oneSession(); // warm-up (compile cache)
const rs = await repeat(RUNS, oneSession);
console.log(`scripted 10-tool-call session, hermes -z against an instant server (median of ${RUNS}; ${BIN})`);
console.log(
  `  spawn-to-exit ${fmt(median(rs.map((r) => r.ms)))} ms   peak RSS ${fmt(median(rs.map((r) => r.hwm)))} MB (VmHWM of the hermes process; GNU time: ${fmt(median(rs.map((r) => r.rssMb)))} MB)`,
);
console.log(
  `  at exit: PSS ${fmt(median(rs.map((r) => r.pss)))} MB, private ${fmt(median(rs.map((r) => r.priv)))} MB (the rest of RSS is the shared Node binary)`,
);

async function interruptLatency() {
  const { env, work } = sandbox();
  const cleanup = () => rmSync(dirname(work), { recursive: true, force: true });
  fake.enqueue(call("terminal", { command: "sleep 30" }));
  let sentAt = 0;
  // No GNU time wrapper here: the signal must reach hermes itself.
  const r = await runOnce([process.execPath, BIN, "chat", "-q", "wait"], {
    env,
    cwd: work,
    measureRss: false,
    onStderr: (text, child) => {
      if (!sentAt && text.includes("terminal: sleep")) {
        sentAt = performance.now();
        child.kill("SIGINT");
      }
    },
  });
  cleanup();
  return { ...r, latency: performance.now() - sentAt };
}
const ir = await repeat(3, interruptLatency);
console.log(
  `  interrupt of a running 'sleep 30': exit ${fmt(median(ir.map((r) => r.latency)))} ms after SIGINT`,
);
await fake.close();
