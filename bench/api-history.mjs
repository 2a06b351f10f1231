// Long conversations through the API server. Three figures:
//  1. The shared body reader on a 3.9 MB chat body, in this process: the longest the event loop
//     went without a turn while the body was parsed (JSON.parse in one call, for comparison).
//  2. `hermes api serve` (the built binary) given a first request whose history is 3.9 MB: the
//     request's latency and the slowest GET /health answered meanwhile (a /health probe every 5 ms
//     stands in for every other client of the server).
//  3. 40 turns of one chat client that resends its history each time: sessions and message rows
//     the API created (GET /api/sessions).
// BENCH_HISTORY_MB changes the size of the big body.
import { parseJsonBody } from "../dist/core/http-body.js";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { fmt, startApiServe } from "./lib.mjs";

const KEY = "bench-api-key-0123456789abcdef";
const TARGET_BYTES = Number(process.env.BENCH_HISTORY_MB ?? 3.9) * 1024 * 1024;

/**
 * A chat body of about TARGET_BYTES, shaped like an agent client's history: questions, answers of
 * varied length, and assistant tool calls with their results (as many small objects as text).
 */
function bigBody() {
  const messages = [];
  let bytes = 0;
  const words = (n) => "lorem ipsum dolor sit amet ".repeat(n).trim();
  for (let i = 0; bytes < TARGET_BYTES; i++) {
    const turn = [
      { role: "user", content: `question ${i}: ${words(8 + (i % 20))}` },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `call_${i}`,
            type: "function",
            function: {
              name: "read_file",
              arguments: JSON.stringify({ path: `src/file-${i}.ts`, offset: i }),
            },
          },
        ],
      },
      { role: "tool", tool_call_id: `call_${i}`, content: `${words(40 + (i % 60))}` },
      { role: "assistant", content: `answer ${i}: ${words(20 + (i % 80))}` },
    ];
    messages.push(...turn);
    bytes += JSON.stringify(turn).length;
  }
  messages.push({ role: "user", content: "summarise the conversation in one line" });
  return { model: "hermes-agent", messages };
}

/** The longest gap between event-loop turns while `work` runs (ms), and how long it took. */
async function loopGap(work) {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  running = false;
  // The gap that covers the end of the work.
  longest = Math.max(longest, performance.now() - last);
  return { longest, ms };
}

const body = bigBody();
const text = JSON.stringify(body);
const mb = text.length / 1024 / 1024;
const bytes = Buffer.from(text);
const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const plain = [];
const shared = [];
// One warm-up round, then five: medians (a young-generation GC pause lands in either at random).
for (let round = 0; round < 6; round++) {
  const p = await loopGap(async () => JSON.parse(bytes.toString("utf8")));
  const s = await loopGap(async () => parseJsonBody(bytes));
  if (round === 0) continue;
  plain.push(p.longest);
  shared.push(s);
}
console.log(`API history bench: a ${fmt(mb, 1)} MB chat body of ${body.messages.length} messages`);
console.log(
  `  body reader (in process, median of 5): longest event-loop gap ${fmt(median(shared.map((s) => s.longest)), 1)} ms over ${fmt(median(shared.map((s) => s.ms)), 0)} ms of parsing; JSON.parse in one call holds it ${fmt(median(plain), 1)} ms`,
);

const fake = await startFakeLlm();
fake.setResponder((req) => {
  const last = (req.body?.messages ?? []).findLast((m) => m.role === "user");
  const content = typeof last?.content === "string" ? last.content : "";
  return { text: `answer to ${content.slice(-12)}` };
});
// A window large enough that the big history is not compressed: the copy is what is measured.
const { url, stop } = await startApiServe(
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n  context_length: 4000000\n`,
  { key: KEY, prefix: "hermes-bench-history-" },
);
const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const chat = async (payload) => {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify(payload),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()).choices[0].message.content;
};

// Warm up (first request loads the agent's modules), then the big first request under a /health probe.
await chat({ messages: [{ role: "user", content: "warm up" }] });
const health = [];
let probing = true;
const probe = (async () => {
  while (probing) {
    const t0 = performance.now();
    await fetch(`${url}/health`).then((r) => r.text());
    health.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 5));
  }
})();
const t0 = performance.now();
await chat(body);
const bigMs = performance.now() - t0;
probing = false;
await probe;
health.sort((a, b) => a - b);
console.log(
  `  hermes api serve, first request with the ${fmt(mb, 1)} MB history: ${fmt(bigMs, 0)} ms; GET /health meanwhile: ${health.length} answers, p50 ${fmt(health[Math.floor(health.length / 2)], 1)} ms, slowest ${fmt(health.at(-1), 1)} ms`,
);

// 40 turns of one client resending its history.
const history = [{ role: "system", content: "Be brief." }];
const before = await sessionsNow();
const turnsStarted = performance.now();
for (let i = 1; i <= 40; i++) {
  history.push({ role: "user", content: `turn ${i}` });
  history.push({ role: "assistant", content: await chat({ messages: history }) });
}
const turnsMs = performance.now() - turnsStarted;
const after = await sessionsNow();
console.log(
  `  40 turns of one client: ${after.sessions - before.sessions} session(s), ${after.messages - before.messages} message rows (80 messages sent back and forth), ${fmt(turnsMs / 40, 1)} ms per turn`,
);

async function sessionsNow() {
  const res = await fetch(`${url}/api/sessions?limit=100`, { headers });
  const list = (await res.json()).data;
  return { sessions: list.length, messages: list.reduce((n, s) => n + s.message_count, 0) };
}

await stop();
await fake.close();
