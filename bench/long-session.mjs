// A 200-step session through the real binary (`hermes -z`) against an instant fake LLM server: one
// request whose model makes 200 tool calls, one per model call, before answering. Prints
// spawn-to-exit wall time, the time per step, and peak RSS (what a long task costs in memory as its
// history grows to 400 messages).
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { BIN, fmt, median, memoryAtExit, repeat, runOnce, sessionSandbox } from "./lib.mjs";

const STEPS = Number(process.env.BENCH_STEPS ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const fake = await startFakeLlm();

const call = (name, args) => ({ toolCalls: [{ name, arguments: args }], chunkSize: 64 });
/** A cycle of everyday tools; each step's output is a few hundred bytes, as in a coding task. */
const stepAt = (i) => {
  switch (i % 4) {
    case 0:
      return call("write_file", {
        path: `notes/step-${i}.md`,
        content: `# Step ${i}\n${"finding ".repeat(40)}\n`,
      });
    case 1:
      return call("read_file", { path: `notes/step-${i - 1}.md` });
    case 2:
      return call("search_files", { pattern: `Step ${i - 2}`, target: "content", path: "notes" });
    default:
      return call("patch", {
        path: `notes/step-${i - 3}.md`,
        old_string: `# Step ${i - 3}`,
        new_string: `# Step ${i - 3} (checked)`,
      });
  }
};
const script = () => [...Array.from({ length: STEPS }, (_, i) => stepAt(i)), { text: "Done." }];

// Budget above the step count, and a window large enough that no compression call interleaves.
const sandbox = () =>
  sessionSandbox(
    `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n  context_length: 2000000\n` +
      `agent:\n  max_turns: ${STEPS + 10}\n`,
    "hermes-bench-long-",
  );

async function oneSession() {
  const { env, work, memOut } = sandbox();
  fake.enqueue(...script());
  const before = fake.requests.length;
  const r = await runOnce([process.execPath, BIN, "-z", "work through the notes"], { env, cwd: work });
  const calls = fake.requests.length - before;
  if (r.code !== 0 || r.stdout !== "Done.\n" || calls !== STEPS + 1)
    throw new Error(`session failed: code ${r.code}, ${calls} calls, stdout ${JSON.stringify(r.stdout)}`);
  return { ...r, ...memoryAtExit(memOut) };
}

await oneSession(); // warm-up (compile cache)
const rs = await repeat(RUNS, oneSession);
const ms = median(rs.map((r) => r.ms));
console.log(
  `${STEPS}-step session (one tool call per model call), hermes -z against an instant server (median of ${RUNS})`,
);
console.log(
  `  spawn-to-exit ${fmt(ms, 0)} ms (${fmt(ms / STEPS, 2)} ms per step, tools included)   peak RSS ${fmt(median(rs.map((r) => r.rssMb)))} MB`,
);
console.log(
  `  at exit: PSS ${fmt(median(rs.map((r) => r.pss)))} MB, private ${fmt(median(rs.map((r) => r.priv)))} MB`,
);
await fake.close();
