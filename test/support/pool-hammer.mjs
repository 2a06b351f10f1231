// Child process for the credential-pool concurrency test: selects and benches keys of one
// auth.json as fast as it can, logging when each operation started and finished (wall clock, sub-ms)
// so the parent can check the order across processes. Imports the TypeScript source directly:
// Node strips the types, and ts-child.mjs maps the sources' ".js" specifiers to ".ts" files.
//
// Usage: node pool-hammer.mjs AUTH_FILE STRATEGY ITERATIONS
import "./ts-child.mjs";

const [file, strategy, iterations] = process.argv.slice(2);
const { CredentialPool } = await import(new URL("../../src/llm/credential-pool.ts", import.meta.url).href);
const clock = () => performance.timeOrigin + performance.now();
const pool = new CredentialPool({ file, provider: "test", strategy });
const events = [];
for (let i = 0; i < Number(iterations); i++) {
  pool.release();
  const started = clock();
  const key = pool.select();
  events.push({ op: "select", id: key.id, started, done: clock() });
  if (i % 2 === 0) {
    const markStarted = clock();
    pool.markExhausted(key.id, { status: 429, message: `benched by ${process.pid}` });
    events.push({ op: "mark", id: key.id, started: markStarted, done: clock() });
  }
}
process.stdout.write(JSON.stringify(events));
