// A scripted 10-tool-call session through the real binary (`hermes -z`) against an instant fake
// LLM server: spawn-to-exit wall time and peak RSS. Also the interrupt latency of a running command.
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { BIN, fmt, median, memoryAtExit, repeat, runOnce, sessionSandbox } from "./lib.mjs";

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
  if (r.code !== 0 || r.stdout !== "Done.\n") throw new Error(`session failed: code ${r.code} ${r.stdout}`);
  return { ...r, ...memoryAtExit(memOut) };
}

await oneSession(); // warm-up (compile cache)
const rs = await repeat(RUNS, oneSession);
console.log(`scripted 10-tool-call session, hermes -z against an instant server (median of ${RUNS})`);
console.log(
  `  spawn-to-exit ${fmt(median(rs.map((r) => r.ms)))} ms   peak RSS ${fmt(median(rs.map((r) => r.rssMb)))} MB`,
);
console.log(
  `  at exit: PSS ${fmt(median(rs.map((r) => r.pss)))} MB, private ${fmt(median(rs.map((r) => r.priv)))} MB (the rest of RSS is the shared Node binary)`,
);

async function interruptLatency() {
  const { env, work } = sandbox();
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
  return { ...r, latency: performance.now() - sentAt };
}
const ir = await repeat(3, interruptLatency);
console.log(
  `  interrupt of a running 'sleep 30': exit ${fmt(median(ir.map((r) => r.latency)))} ms after SIGINT`,
);
await fake.close();
