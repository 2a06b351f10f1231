// 1,000 conversations through the API server (the built binary, `hermes api serve`) against an
// instant scripted LLM, 100 in flight. Each request carries a unique token the model echoes, so every
// answer is matched to its request (none lost, none mixed up). Prints latency p50/p99, throughput,
// and the server's RSS sampled every 250 ms: peak, and a curve per 100 conversations that should be
// flat after warm-up (checked: the run fails when RSS at the end is over 10 % above the half-way
// point; the server runs under its default heap budget, gateway.max_heap_mb). One in ten requests streams. BENCH_CONVERSATIONS and BENCH_IN_FLIGHT change
// the load; BENCH_NODE_OPTIONS is passed to the server (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
// BENCH_EXTRA_YAML is appended to its config.yaml (e.g. "security:\n  redact_secrets: false\n").
import { readFileSync } from "node:fs";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { cpuSecondsOf, curveChart, fmt, reportFlatAfterWarmUp, startApiServe } from "./lib.mjs";

const TOTAL = Number(process.env.BENCH_CONVERSATIONS ?? 1000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);
const KEY = "bench-api-key-0123456789abcdef";

const fake = await startFakeLlm();
fake.setResponder((req) => {
  const messages = req.body?.messages ?? [];
  const last = messages.findLast((m) => m.role === "user");
  const token = /token-[0-9a-f-]+/.exec(typeof last?.content === "string" ? last.content : "")?.[0];
  return { text: token ? `echo ${token}` : "no token", chunkSize: 32 };
});

const {
  url,
  child: server,
  stop,
} = await startApiServe(
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n` +
    `platforms:\n  api_server:\n    max_concurrent_runs: ${IN_FLIGHT}\n` +
    (process.env.BENCH_EXTRA_YAML ?? ""),
  {
    key: KEY,
    env: process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {},
  },
);

const rssMb = () => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
};
const cpuAtStart = cpuSecondsOf(server.pid);
let finished = 0;
let peak = 0;
const curve = [];
const sampler = setInterval(() => {
  const rss = rssMb();
  if (rss > peak) peak = rss;
  const bucket = Math.floor(finished / 100);
  if (bucket > curve.length - 1 && finished > 0) curve[bucket] = rss;
}, 250);

/** The answer text of one request (streamed or not). */
async function ask(i, token) {
  const stream = i % 10 === 0;
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "hermes-agent",
      stream,
      messages: [
        { role: "system", content: "Echo the token." },
        { role: "user", content: `conversation ${i} starts` },
        { role: "assistant", content: "ready" },
        { role: "user", content: `please echo ${token}` },
      ],
    }),
  });
  if (res.status !== 200) throw new Error(`request ${i}: HTTP ${res.status} ${await res.text()}`);
  if (!stream) return (await res.json()).choices[0].message.content;
  let text = "";
  for (const line of (await res.text()).split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    text += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "";
  }
  return text;
}

const latencies = [];
let matched = 0;
let mixed = 0;
let lost = 0;
let next = 0;
const started = performance.now();
async function worker() {
  while (next < TOTAL) {
    const i = next++;
    const token = `token-${i}-${crypto.randomUUID()}`;
    const t0 = performance.now();
    try {
      const answer = await ask(i, token);
      latencies.push(performance.now() - t0);
      if (answer === `echo ${token}`) matched++;
      else mixed++;
    } catch (err) {
      lost++;
      if (lost <= 3)
        console.error(
          `request ${i}: ${err}${err?.cause ? ` (${err.cause.code ?? ""} ${err.cause.message})` : ""}`,
        );
    }
    finished++;
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
const wall = (performance.now() - started) / 1000;
clearInterval(sampler);
curve[Math.floor(finished / 100)] ??= rssMb();
peak = Math.max(peak, rssMb());
const cpuUsed = cpuSecondsOf(server.pid) - cpuAtStart;

const code = await stop();
await fake.close();

latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
console.log(
  `API server soak: ${TOTAL} conversations, ${IN_FLIGHT} in flight, hermes api serve against an instant server`,
);
console.log(`  answers: ${matched} matched, ${mixed} mixed up, ${lost} lost; server exit code ${code}`);
console.log(
  `  latency p50 ${fmt(pct(50), 0)} ms, p99 ${fmt(pct(99), 0)} ms   throughput ${fmt(TOTAL / wall, 0)} conversations/s`,
);
console.log(
  `  server peak RSS ${fmt(peak)} MB (sampled every 250 ms); CPU ${fmt(cpuUsed)} s, ${fmt((cpuUsed * 1000) / TOTAL)} ms per conversation`,
);
console.log(
  `  RSS per 100 conversations (MB): ${curve
    .map((v, i) => (v === undefined ? undefined : `${i * 100}:${fmt(v, 0)}`))
    .filter(Boolean)
    .join(" ")}`,
);
const points = curve.map((v, i) => [`${i * 100}`, v]).filter(([, v]) => v !== undefined);
console.log("  RSS curve, conversations done → MB:");
console.log(
  curveChart(
    points.map(([l]) => l),
    points.map(([, v]) => v),
  ),
);
reportFlatAfterWarmUp(
  points.map(([, v]) => v),
  "server RSS",
);
if (matched !== TOTAL) process.exitCode = 1;
