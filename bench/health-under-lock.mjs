// The API server (the built binary, `hermes api serve`) while another process holds state.db's
// write lock for 5 s: GET /health and GET /api/sessions are timed back to back for the whole hold,
// and a DELETE /api/sessions/{id} and a chat completion are sent during it (they wait for the lock
// in the store's queue, not on the event loop). Prints p50 / p99 / max of the reads during the hold
// and for as long without it (the machine's own noise), and what the writes answered and when.
// Figures only, no pass/fail.
// Uses dist/ (`npm run build` first). BENCH_HOLD_MS changes the hold (5000).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "../test/support/fake-llm.ts";
import { BIN, fmt, ROOT } from "./lib.mjs";

const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 5000);
const KEY = "bench-api-key-0123456789abcdef";

const fake = await startFakeLlm();
fake.setResponder(() => ({ text: "ok" }));
const root = mkdtempSync(join(tmpdir(), "hermes-bench-lock-"));
const home = join(root, "home");
const work = join(root, "work");
mkdirSync(home);
mkdirSync(work);
writeFileSync(
  join(home, "config.yaml"),
  `model:\n  provider: custom\n  base_url: ${fake.openaiBaseUrl}\n  default: bench\n`,
);
const server = spawn(process.execPath, [BIN, "api", "serve", "--port", "0"], {
  cwd: work,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HERMES_HOME: home,
    API_SERVER_KEY: KEY,
    OPENAI_API_KEY: "x",
  },
  stdio: ["ignore", "pipe", "pipe"],
});
let stderr = "";
server.stderr.on("data", (d) => {
  stderr += d;
});
const url = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    const m = /API server listening on (\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
  server.on("exit", (code) => reject(new Error(`hermes api serve exited (${code}): ${stderr}`)));
});

const auth = { authorization: `Bearer ${KEY}` };
const timed = async (path, init = {}) => {
  const t0 = performance.now();
  const res = await fetch(`${url}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
};
const chat = (content) =>
  timed("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench", messages: [{ role: "user", content }] }),
  });
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const line = (name, xs) =>
  console.log(
    `${name}: ${xs.length} requests, p50 ${fmt(pct(xs, 50), 2)} ms, p99 ${fmt(pct(xs, 99), 2)} ms, max ${fmt(Math.max(...xs), 2)} ms`,
  );

try {
  for (let i = 0; i < 5; i++) await chat(`warm-up ${i}`);
  const sessions = await (await fetch(`${url}/api/sessions`, { headers: auth })).json();
  const victim = sessions.data[0].id;

  // The same reads for as long without the lock: what the machine's own noise looks like.
  const before = { health: [], list: [] };
  const until = performance.now() + HOLD_MS;
  while (performance.now() < until) {
    before.health.push((await timed("/health")).ms);
    before.list.push((await timed("/api/sessions")).ms);
  }

  // The other process: state-writer's "hold" mode takes the write lock and keeps it HOLD_MS.
  const holder = spawn(
    process.execPath,
    [join(ROOT, "test", "support", "state-writer.mjs"), "hold", join(home, "state.db"), String(HOLD_MS)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let holding = true;
  await new Promise((resolve) => holder.stdout.on("data", (d) => String(d).includes("locked") && resolve()));
  holder.stdout.on("data", (d) => {
    if (String(d).includes("released")) holding = false;
  });
  const lockedAt = performance.now();
  const during = { health: [], list: [] };
  const writes = [];
  const write = (name, p) =>
    writes.push(
      p.then(
        (r) =>
          `${name}: ${r.status} after ${fmt(r.ms, 0)} ms (lock held ${fmt(performance.now() - lockedAt, 0)} ms so far)`,
      ),
    );
  write("DELETE /api/sessions/{id}", timed(`/api/sessions/${victim}`, { method: "DELETE" }));
  write("POST /v1/chat/completions", chat("during the hold"));
  const worst = { ms: 0, at: 0, path: "" };
  while (holding) {
    for (const [path, into] of [
      ["/health", during.health],
      ["/api/sessions", during.list],
    ]) {
      const r = await timed(path);
      into.push(r.ms);
      if (r.ms > worst.ms) Object.assign(worst, { ms: r.ms, at: performance.now() - lockedAt, path });
    }
  }

  console.log(`health under lock: state.db write lock held ${HOLD_MS} ms by another process`);
  line("GET /health without the lock", before.health);
  line("GET /api/sessions without the lock", before.list);
  line("GET /health during the hold", during.health);
  line("GET /api/sessions during the hold", during.list);
  console.log(
    `slowest read during the hold: ${worst.path} ${fmt(worst.ms, 1)} ms, ${fmt(worst.at, 0)} ms into it`,
  );
  for (const w of await Promise.all(writes)) console.log(w);
} finally {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
