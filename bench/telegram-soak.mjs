// 200 Telegram chats through the gateway (the built binary, `hermes gateway run`) on the fake Bot
// API (test/support/fake-telegram.ts) against an instant scripted LLM, 100 chats talking at once.
// Each chat sends 5 messages, the next once the previous answer shows in the chat; each message
// carries a unique token the model echoes, so every answer is matched to its chat and message:
// lost, duplicated, mixed up (in another chat), out of order and unexpected bot messages must all
// be 0. Prints latency p50/p99 (message sent → final answer visible in the chat), throughput, and
// the gateway's RSS sampled every 250 ms: peak, and a curve per 10 % of the answers that should be
// flat after warm-up (checked: RSS at the end over 10 % above the half-way point fails the run;
// the gateway runs under its default heap budget, gateway.max_heap_mb) (BENCH_LIVE_HEAP=1 adds the live heap at the same points). BENCH_CHATS,
// BENCH_MESSAGES and BENCH_IN_FLIGHT make it smaller or larger; BENCH_MAX_LIVE_AGENTS and
// BENCH_FAULTS=1 stress eviction and Telegram errors. Exits 1 on any wrong answer.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, cpuSecondsOf, curveChart, fmt, reportFlatAfterWarmUp } from "./lib.mjs";

// The fake Bot API is TypeScript with parameter properties and ".js" imports of its siblings: run
// again with Node's type transform and the test hook that maps those imports to the ".ts" files.
if (process.features.typescript !== "transform") {
  const hook = join(import.meta.dirname, "..", "test", "support", "ts-child.mjs");
  const again = spawnSync(
    process.execPath,
    [
      "--experimental-transform-types",
      "--disable-warning=ExperimentalWarning",
      "--import",
      hook,
      import.meta.filename,
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  );
  process.exit(again.status ?? 1);
}

const { startFakeLlm } = await import("../test/support/fake-llm.ts");
const { startFakeTelegram } = await import("../test/support/fake-telegram.ts");

const CHATS = Number(process.env.BENCH_CHATS ?? 200);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5);
const IN_FLIGHT = Math.min(CHATS, Number(process.env.BENCH_IN_FLIGHT ?? 100));
/** An answer not in its chat by then is counted lost, and the chat goes on with its next message. */
const ANSWER_TIMEOUT_MS = Number(process.env.BENCH_ANSWER_TIMEOUT_MS ?? 60_000);
/**
 * BENCH_LIVE_HEAP=1: also the gateway's live heap after a full collection at each point of the
 * curve (heap-probe.mjs). Those collections shrink the heap V8 keeps, so RSS is then lower than in
 * a gateway left alone: the default run measures RSS untouched.
 */
const LIVE_HEAP = process.env.BENCH_LIVE_HEAP === "1";
/** BENCH_MAX_LIVE_AGENTS=8: agents evicted and resumed from state.db between a chat's messages. */
const MAX_LIVE_AGENTS = process.env.BENCH_MAX_LIVE_AGENTS;
/** BENCH_FAULTS=1: Telegram fails or holds some calls (500, 429 with retry_after, 502, 2 s waits). */
const FAULTS = process.env.BENCH_FAULTS === "1";
const FIRST_CHAT_ID = 500_000;

const TOKEN = /tok-(\d+)-(\d+)-[0-9a-f]{8}/;
const TOKENS = new RegExp(TOKEN.source, "g");
const ANSWER = /^echo (tok-(\d+)-(\d+)-[0-9a-f]{8}), as asked\.$/;
const answerTo = (token) => `echo ${token}, as asked.`;

// ---- the model: echoes the token of the latest user message ----

const fake = await startFakeLlm();
let modelRequests = 0;
let requestsWithoutToken = 0;
/** Model requests per token: a message the model was asked about twice shows here. */
const asked = new Map();
/** chat index → tokens sent, in order. */
const sent = new Map();
/** Requests whose conversation was not exactly the chat's own messages so far, in order. */
let wrongHistory = 0;
let wrongHistoryExample = "";
const textOf = (content) =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("")
      : "";
fake.setResponder((req) => {
  modelRequests++;
  const messages = req.body?.messages ?? [];
  const last = messages.findLast((m) => m.role === "user");
  const token = TOKEN.exec(textOf(last?.content))?.[0];
  // The recorded requests (whole prompts) would only grow this process: they are not needed.
  fake.requests.length = 0;
  if (!token) {
    requestsWithoutToken++;
    return { text: "ok" };
  }
  asked.set(token, (asked.get(token) ?? 0) + 1);
  const [, chat, index] = TOKEN.exec(token);
  const history = messages
    .filter((m) => m.role === "user")
    .flatMap((m) => textOf(m.content).match(TOKENS) ?? []);
  const expected = (sent.get(Number(chat)) ?? []).slice(0, Number(index) + 1);
  if (history.join() !== expected.join()) {
    wrongHistory++;
    wrongHistoryExample ||= `chat ${chat} message ${index} saw [${history.join(", ")}]`;
  }
  return { text: answerTo(token), chunkSize: 8 };
});

// ---- Telegram and the gateway ----

const tg = await startFakeTelegram();
const root = mkdtempSync(join(tmpdir(), "hermes-bench-telegram-"));
const home = join(root, "home");
const work = join(root, "work");
mkdirSync(home);
mkdirSync(work);
/** Where heap-probe.mjs (preloaded into the gateway) reports its live heap. */
const heapDir = join(root, "heap");
mkdirSync(heapDir);
writeFileSync(
  join(home, "config.yaml"),
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n` +
    (MAX_LIVE_AGENTS ? `gateway:\n  max_live_agents: ${Number(MAX_LIVE_AGENTS)}\n` : "") +
    `platforms:\n  telegram:\n    api_root: ${tg.apiRoot}\n`,
);
const gateway = spawn(process.execPath, [BIN, "gateway", "run"], {
  cwd: work,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HERMES_HOME: home,
    OPENAI_API_KEY: "x",
    TELEGRAM_BOT_TOKEN: tg.token,
    GATEWAY_ALLOW_ALL_USERS: "true",
    ...(LIVE_HEAP ? { HERMES_BENCH_HEAP_DIR: heapDir } : {}),
    NODE_OPTIONS: `${LIVE_HEAP ? `--import ${join(import.meta.dirname, "heap-probe.mjs")} ` : ""}${process.env.BENCH_NODE_OPTIONS ?? ""}`,
  },
  stdio: ["ignore", "pipe", "pipe"],
});
/** Resolves with the gateway's exit code (or signal) whenever it exits. */
const exited = new Promise((resolve) => gateway.on("exit", (code, signal) => resolve(code ?? signal)));
let gatewayGone = false;
void exited.then(() => {
  gatewayGone = true;
});
let output = "";
gateway.stdout.on("data", (d) => {
  output += d;
});
await new Promise((resolve, reject) => {
  gateway.stderr.on("data", (d) => {
    output += d;
    if (output.includes("Gateway running")) resolve();
  });
  gateway.on("exit", (code) => reject(new Error(`hermes gateway run exited (${code}):\n${output}`)));
});

const rssMb = () => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gateway.pid}/status`, "utf8"))?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
};
const cpuSeconds = () => cpuSecondsOf(gateway.pid);
const cpuAtStart = cpuSeconds();
if (FAULTS) {
  tg.fail("sendMessage", { status: 500, times: 15 });
  tg.fail("sendMessage", { status: 429, retryAfter: 1, times: 15 });
  tg.fail("editMessageText", { status: 500, times: 15 });
  tg.fail("editMessageText", { status: 429, retryAfter: 1, times: 15 });
  tg.fail("getUpdates", { status: 502, times: 2 });
  tg.fail("sendMessage", { delayMs: 2000, times: 10 });
}
let answered = 0;
let peak = rssMb();
/** The probe's answers so far: lines "<from>-<to> <live heap bytes>". */
const heapLines = () => {
  try {
    return readFileSync(join(heapDir, "heap.txt"), "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};
/**
 * Asks the gateway's heap probe for its live heap after a full collection, for every tenth up to
 * `to` it has not answered yet (signals sent close together arrive as one).
 */
const probeHeap = (to) => {
  if (!LIVE_HEAP) return;
  const answeredUpTo = Math.max(-1, ...heapLines().map((line) => Number(line.split(/[- ]/)[1])));
  writeFileSync(join(heapDir, "request"), `${answeredUpTo + 1}-${to}`);
  gateway.kill("SIGUSR2");
};
/** RSS when each tenth of the messages had been answered; [0] is the idle gateway before the first. */
const curve = [peak];
probeHeap(0);
const sampler = setInterval(() => {
  const rss = rssMb();
  if (rss > peak) peak = rss;
  const tenth = Math.floor((answered * 10) / (CHATS * MESSAGES));
  if (tenth < curve.length) return;
  probeHeap(tenth);
  for (let t = curve.length; t <= tenth; t++) curve[t] = rss;
}, 250);

// ---- watching the chats: every finished Bot API call re-checks the chat it touched ----

/** chat id → the answer the chat waits for. */
const waiting = new Map();
const openCalls = new Set();
let seenCalls = 0;
function answerShown(chatId) {
  const w = waiting.get(chatId);
  if (!w) return;
  if (!tg.messagesIn(chatId).some((m) => m.from === "bot" && m.text === w.text)) return;
  waiting.delete(chatId);
  w.resolve(true);
}
function scanCalls() {
  for (; seenCalls < tg.calls.length; seenCalls++) {
    const call = tg.calls[seenCalls];
    if (call.method !== "getUpdates") openCalls.add(call);
  }
  for (const call of openCalls) {
    if (call.status === undefined && !call.dropped) continue;
    openCalls.delete(call);
    if (call.params.chat_id !== undefined) answerShown(String(call.params.chat_id));
  }
}
let stopWatching = false;
const watching = tg.waitFor(
  () => {
    scanCalls();
    return stopWatching;
  },
  2 ** 31 - 1,
);
const expiry = setInterval(() => {
  const now = performance.now();
  for (const [chatId, w] of waiting)
    if (gatewayGone || now - w.sentAt > ANSWER_TIMEOUT_MS) {
      waiting.delete(chatId);
      w.resolve(false);
    }
}, 1000);

// ---- the chats ----

const latencies = [];
let timedOut = 0;
async function converse(chat) {
  const chatId = FIRST_CHAT_ID + chat;
  const tokens = [];
  sent.set(chat, tokens);
  for (let m = 0; m < MESSAGES && !gatewayGone; m++) {
    const token = `tok-${chat}-${m}-${crypto.randomUUID().slice(0, 8)}`;
    tokens.push(token);
    const sentAt = performance.now();
    const shown = new Promise((resolve) =>
      waiting.set(String(chatId), { text: answerTo(token), sentAt, resolve }),
    );
    tg.sendUserMessage({ chatId, userId: chatId, text: `please echo ${token}` });
    if (await shown) latencies.push(performance.now() - sentAt);
    else timedOut++;
    answered++;
  }
}
let nextChat = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (nextChat < CHATS) {
      await converse(nextChat++);
    }
  }),
);
const wall = (performance.now() - started) / 1000;
clearInterval(sampler);
clearInterval(expiry);
if (curve.length <= 10) {
  probeHeap(10);
  for (let t = curve.length; t <= 10; t++) curve[t] = rssMb();
}
peak = Math.max(peak, rssMb());
const cpuUsed = cpuSeconds() - cpuAtStart;

// Late answers and stray messages get a moment to show before the chats are judged.
await new Promise((resolve) => setTimeout(resolve, 1500));
const diedEarly = gatewayGone;
gateway.kill("SIGTERM");
const code = await exited;
stopWatching = true;
await watching.catch(() => undefined);
/** Live heap (MB) after a full collection per tenth; a tenth the probe missed stays empty. */
const liveHeap = [];
for (const line of heapLines()) {
  const [from, to, bytes] = line.split(/[- ]/).map(Number);
  for (let t = from; t <= to; t++) liveHeap[t] ??= bytes / 1024 / 1024;
}
/** gateway.log records by level (JSON lines; 40 warn, 50 error), and the first error's message. */
const logged = { warn: 0, error: 0, firstError: "", agentsClosed: 0 };
try {
  for (const line of readFileSync(join(home, "logs", "gateway.log"), "utf8").split("\n")) {
    if (!line) continue;
    const record = JSON.parse(line);
    if (record.msg === "agent closed") logged.agentsClosed++;
    if (record.level >= 50) {
      logged.error++;
      logged.firstError ||= `${record.msg}${record.error ? `: ${record.error}` : ""}`;
    } else if (record.level >= 40) logged.warn++;
  }
} catch (err) {
  logged.firstError = `gateway.log unreadable: ${err}`;
  logged.error = Number.NaN;
}

// ---- judging every chat by what it shows ----

let matched = 0;
let duplicated = 0;
let mixed = 0;
let outOfOrder = 0;
let unexpected = 0;
const strays = [];
for (let chat = 0; chat < CHATS; chat++) {
  const seen = new Map();
  let lastIndex = -1;
  for (const m of tg.messagesIn(FIRST_CHAT_ID + chat).filter((x) => x.from === "bot")) {
    const a = ANSWER.exec(m.text);
    if (!a) {
      unexpected++;
      if (strays.length < 3) strays.push(`chat ${chat}: ${JSON.stringify(m.text.slice(0, 120))}`);
      continue;
    }
    if (Number(a[2]) !== chat) {
      mixed++;
      continue;
    }
    seen.set(a[1], (seen.get(a[1]) ?? 0) + 1);
    const index = Number(a[3]);
    if (index < lastIndex) outOfOrder++;
    lastIndex = Math.max(lastIndex, index);
  }
  for (const token of sent.get(chat) ?? []) {
    const n = seen.get(token) ?? 0;
    if (n > 0) matched++;
    if (n > 1) duplicated += n - 1;
  }
}
const total = CHATS * MESSAGES;
const lost = total - matched;
const askedTwice = [...asked.values()].filter((n) => n > 1).length;

await tg.close();
await fake.close();
rmSync(root, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
console.log(
  `Gateway soak: ${CHATS} Telegram chats × ${MESSAGES} messages, ${IN_FLIGHT} chats at once, hermes gateway run on the fake Bot API against an instant server${MAX_LIVE_AGENTS ? `; max_live_agents ${MAX_LIVE_AGENTS}` : ""}${FAULTS ? "; Telegram faults injected" : ""}`,
);
console.log(
  `  answers: ${matched} matched, ${lost} lost, ${duplicated} duplicated, ${mixed} mixed up, ${outOfOrder} out of order, ${unexpected} unexpected; gateway exit code ${code}`,
);
for (const s of strays) console.log(`    unexpected: ${s}`);
if (diedEarly) console.log(`  the gateway exited during the run; its last output:\n${output.slice(-2000)}`);
console.log(
  `  latency p50 ${fmt(pct(50), 0)} ms, p99 ${fmt(pct(99), 0)} ms (sent → final answer shown)   throughput ${fmt(total / wall, 1)} messages/s`,
);
console.log(
  `  model requests: ${modelRequests} (${requestsWithoutToken} without a token, ${askedTwice} messages asked twice); ${timedOut} answers not shown within ${ANSWER_TIMEOUT_MS / 1000} s`,
);
console.log(
  `  conversations the model saw: ${modelRequests - requestsWithoutToken - wrongHistory} exactly the chat's own messages, ${wrongHistory} not${wrongHistoryExample ? ` (first: ${wrongHistoryExample})` : ""}`,
);
console.log(
  `  gateway.log: ${logged.error} errors, ${logged.warn} warnings, ${logged.agentsClosed} idle agents closed to make room${logged.firstError ? ` (first error: ${logged.firstError})` : ""}`,
);
console.log(
  `  gateway peak RSS ${fmt(peak)} MB (sampled every 250 ms); CPU ${fmt(cpuUsed)} s, ${fmt((cpuUsed * 1000) / total)} ms per message`,
);
console.log(
  `  RSS per 10 % of the answers (MB): ${curve.map((v, i) => `${i * 10}%:${fmt(v, 0)}`).join(" ")}`,
);
if (LIVE_HEAP)
  console.log(
    `  live heap after a full GC, same points (MB): ${curve.map((_, i) => `${i * 10}%:${fmt(liveHeap[i], 0)}`).join(" ")}`,
  );
console.log("  RSS curve, share of the answers → MB:");
console.log(
  curveChart(
    curve.map((_, i) => `${i * 10}%`),
    curve,
  ),
);
reportFlatAfterWarmUp(curve, "gateway RSS");
if (lost + duplicated + mixed + outOfOrder + unexpected + askedTwice + wrongHistory > 0 || logged.error !== 0)
  process.exitCode = 1;
