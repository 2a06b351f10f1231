// state.db bench: message insert rate (one transaction per turn, as the agent writes a turn), the
// cost of the batched full-text indexing that follows, and session_search latency (median / p95)
// over a generated store. Figures only, no pass/fail.
// HERMES_BENCH_MESSAGES overrides the store size (default 1,000,000); HERMES_BENCH_STORE_MODULE
// points at another build of the store (before/after comparisons); HERMES_BENCH_INDEX_BATCH sets
// how many waiting rows trigger an index catch-up (default 512, as the store does).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { SqliteSessionStore } = await import(
  process.env.HERMES_BENCH_STORE_MODULE ?? "../dist/state/sqlite/store.js"
);

const TOTAL = Number(process.env.HERMES_BENCH_MESSAGES ?? 1_000_000);
const PER_SESSION = 40;
const PER_TURN = 4;
const QUERIES = 200;
// The store's default batch: appends index once this many rows wait (timed apart here).
const INDEX_BATCH = Number(process.env.HERMES_BENCH_INDEX_BATCH ?? 512);

let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const syll = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "ta",
  "po",
  "shi",
  "an",
  "el",
  "or",
  "ix",
  "um",
  "ve",
  "zo",
  "qu",
];
const VOCAB = Array.from({ length: 5000 }, () => {
  let w = "";
  const n = 2 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) w += syll[Math.floor(rand() * syll.length)];
  return w;
});
const CJK = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学";
const word = () => VOCAB[Math.floor(rand() ** 2 * VOCAB.length)];
const cjkSamples = [];
function text() {
  const n = 15 + Math.floor(rand() * 45);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(word());
  if (rand() < 0.1) {
    let c = "";
    for (let i = 0; i < 12; i++) c += CJK[Math.floor(rand() * CJK.length)];
    parts.push(c);
    if (cjkSamples.length < 1000) cjkSamples.push(c);
  }
  return parts.join(" ");
}
function turn(i) {
  const id = `call_${i}`;
  return [
    { role: "user", content: text() },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: "terminal", arguments: JSON.stringify({ command: `grep ${word()} .` }) },
        },
      ],
    },
    { role: "tool", tool_call_id: id, name: "terminal", content: text() },
    { role: "assistant", content: text() },
  ];
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

// HERMES_BENCH_DB=path: search an existing store (e.g. a kept copy) instead of generating one.
const reuse = process.env.HERMES_BENCH_DB;
const dir = reuse ? undefined : mkdtempSync(join(tmpdir(), "hermes-bench-state-"));
const store = new SqliteSessionStore(reuse ?? join(dir, "state.db"), { indexBatch: Infinity });
const deferred = typeof store.indexPending === "function";
try {
  if (reuse)
    for (let i = 0; i < 5000; i++) turn(i); // replays the generator: same CJK samples
  else generate();

  const kinds = {
    "words, relevance": () => ({ query: `${word()} ${word()}`, limit: 8 }),
    "one word, recency": () => ({ query: word(), limit: 8, sort: "recency" }),
    "substring (trigram)": () => ({ query: word().slice(1, 5), limit: 8 }),
    "CJK (trigram)": () => {
      const c = cjkSamples[Math.floor(rand() * cjkSamples.length)] ?? "的一是";
      const i = Math.floor(rand() * 9);
      return { query: c.slice(i, i + 3), limit: 8 };
    },
  };
  for (const [name, make] of Object.entries(kinds)) {
    const times = [];
    let hits = 0;
    for (let i = 0; i < QUERIES; i++) {
      const q = make();
      const s = performance.now();
      hits += store.search({ ...q, excludeSessionIds: ["bench-0"] }).length;
      times.push(performance.now() - s);
    }
    console.log(
      `session_search ${name}: median ${pct(times, 50).toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms (avg hits ${(hits / QUERIES).toFixed(1)})`,
    );
  }
  const st = store.stats();
  console.log(
    `store: ${st.sessions.toLocaleString("en")} sessions, ${st.messages.toLocaleString("en")} messages, ${(st.fileBytes / 1024 / 1024).toFixed(0)} MB`,
  );
} finally {
  await store.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

function generate() {
  console.log(`state bench: generating ${TOTAL.toLocaleString("en")} messages in ${dir}`);
  let written = 0;
  let session = 0;
  let insertMs = 0;
  let indexMs = 0;
  let indexedAt = 0;
  const t0 = performance.now();
  let lastReport = t0;
  while (written < TOTAL) {
    const id = `bench-${session++}`;
    store.createSession({ id, source: "cli", startedAt: Date.now() - (TOTAL - written) * 1000 });
    for (let k = 0; k < PER_SESSION / PER_TURN && written < TOTAL; k++) {
      const msgs = turn(written);
      const s = performance.now();
      store.appendMessages(id, msgs);
      insertMs += performance.now() - s;
      written += msgs.length;
      if (deferred && written - indexedAt >= INDEX_BATCH) {
        const t = performance.now();
        store.indexPending();
        indexMs += performance.now() - t;
        indexedAt = written;
      }
    }
    const now = performance.now();
    if (now - lastReport > 5000) {
      lastReport = now;
      const rate = Math.round(written / (insertMs / 1000));
      console.log(`  ${written.toLocaleString("en")} messages, ${rate.toLocaleString("en")} inserts/s`);
    }
  }
  if (deferred) {
    const t = performance.now();
    store.indexPending();
    indexMs += performance.now() - t;
  }
  const rate = Math.round(written / (insertMs / 1000));
  console.log(`generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  console.log(
    `insert rate (transaction per ${PER_TURN}-message turn): ${rate.toLocaleString("en")} messages/s`,
  );
  if (deferred) {
    const idx = Math.round(written / (indexMs / 1000));
    const all = Math.round(written / ((insertMs + indexMs) / 1000));
    console.log(`full-text indexing (batches of ${INDEX_BATCH}): ${idx.toLocaleString("en")} messages/s`);
    console.log(`sustained, inserts + indexing: ${all.toLocaleString("en")} messages/s`);
  }
}
