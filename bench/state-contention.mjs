// state.db with two writer processes: this process appends TURNS 4-message turns (one transaction
// each, as the agent writes a turn) alone, then while a second process appends turns as fast as it
// can, first to another session, then to the same one. Prints append throughput (until every
// queued write is stored), how many turns had to queue behind the other process's lock, and how
// long one append call held the event loop (p50 / p99 / max). Figures only, no pass/fail.
// Uses dist/ (`npx tsc -p tsconfig.build.json` first). HERMES_BENCH_TURNS overrides TURNS (2,000).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { SqliteSessionStore } = await import("../dist/state/sqlite/store.js");

const TURNS = Number(process.env.HERMES_BENCH_TURNS ?? 2_000);

const turn = (tag, i) => [
  { role: "user", content: `${tag} question ${i} about the deploy script and its nginx proxy settings` },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: `c${i}`, type: "function", function: { name: "terminal", arguments: '{"command":"ls"}' } },
    ],
  },
  { role: "tool", tool_call_id: `c${i}`, name: "terminal", content: `deploy.sh nginx.conf README.md ${i}` },
  {
    role: "assistant",
    content: `${tag} answer ${i}: the proxy passes /api to port 8080 and caches the rest`,
  },
];

if (process.argv[2] === "--writer") {
  // The second process: appends turns until its stdin closes, then reports how many it stored.
  const [, , , path, session] = process.argv;
  const store = new SqliteSessionStore(path);
  let stop = false;
  process.stdin.on("end", () => {
    stop = true;
  });
  process.stdin.resume();
  process.stdout.write("ready\n");
  let i = 0;
  while (!stop) {
    store.appendMessages(session, turn("other", i++));
    // Yield now and then so the stdin "end" is seen.
    if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const left = await store.flush(30_000);
  await store.close();
  process.stdout.write(`${JSON.stringify({ turns: i, left })}\n`);
  process.exit(0);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function startWriter(path, session) {
  const child = spawn(process.execPath, [import.meta.filename, "--writer", path, session], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  const ready = new Promise((resolve) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("ready\n")) resolve();
    });
  });
  const done = new Promise((resolve) => child.on("close", () => resolve(JSON.parse(out.split("\n")[1]))));
  return { ready, stop: () => child.stdin.end(), done };
}

async function run(store, label, session) {
  const calls = [];
  let queued = 0;
  const t0 = performance.now();
  for (let i = 0; i < TURNS; i++) {
    const before = store.pendingWrites();
    const s = performance.now();
    store.appendMessages(session, turn("main", i));
    calls.push(performance.now() - s);
    if (store.pendingWrites() > before) queued++;
    // The loop gets a turn between appends, as it does between an agent's messages.
    if (i % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const left = await store.flush(60_000);
  const ms = performance.now() - t0;
  const rate = Math.round((TURNS * 4) / (ms / 1000));
  console.log(
    `${label}: ${rate.toLocaleString("en")} messages/s; ${queued} of ${TURNS} turns queued behind the other writer` +
      `${left ? ` (${left} still queued!)` : ""}; one append call held the loop p50 ${pct(calls, 50).toFixed(2)} ms, ` +
      `p99 ${pct(calls, 99).toFixed(2)} ms, max ${Math.max(...calls).toFixed(2)} ms`,
  );
  return rate;
}

const dir = mkdtempSync(join(tmpdir(), "hermes-bench-contention-"));
const path = join(dir, "state.db");
const store = new SqliteSessionStore(path);
try {
  for (const id of ["main", "other", "shared"]) store.createSession({ id, source: "cli" });
  console.log(
    `state.db contention bench: ${TURNS.toLocaleString("en")} turns of 4 messages per run in ${dir}`,
  );
  const alone = await run(store, "alone", "main");
  for (const [label, otherSession, mine] of [
    ["second writer, other session", "other", "main"],
    ["second writer, same session", "shared", "shared"],
  ]) {
    const writer = startWriter(path, otherSession);
    await writer.ready;
    const rate = await run(store, label, mine);
    writer.stop();
    const other = await writer.done;
    console.log(
      `  the second process stored ${(other.turns * 4).toLocaleString("en")} messages meanwhile` +
        `${other.left ? ` (${other.left} writes left queued!)` : ""}; this process at ${((rate / alone) * 100).toFixed(0)}% of alone`,
    );
  }
  const seqs = store.loadMessages("shared").map((m) => m.seq);
  const gapFree = seqs.every((s, i) => s === i);
  console.log(
    `same-session seqs: ${seqs.length.toLocaleString("en")} messages, unique and gap-free: ${gapFree}`,
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
