// Child process for the state.db tests with several writers. Two modes:
//
//   append DB SESSION TAG COUNT: prints "ready", waits for a line on stdin (so writers overlap), then
//     appends COUNT messages "TAG i" to SESSION one by one (every fifth as a two-message turn), waits
//     for anything it had to queue and prints {"queued": n, "left": n, "unwritten": n} as JSON.
//   hold DB MS: takes the write lock (BEGIN IMMEDIATE), prints "locked", keeps it MS ms, commits,
//     prints "released".
//   hold-until-told DB: takes the write lock, prints "locked", keeps it until a line (or the end)
//     arrives on stdin, commits, prints "released".
//
// Usage: node --experimental-transform-types --import ./ts-child.mjs state-writer.mjs MODE ...
import { DatabaseSync } from "node:sqlite";

const [mode, path, ...rest] = process.argv.slice(2);

if (mode === "hold") {
  const db = new DatabaseSync(path, { timeout: 10_000 });
  db.exec("BEGIN IMMEDIATE");
  process.stdout.write("locked\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(rest[0]));
  db.exec("COMMIT");
  db.close();
  process.stdout.write("released\n");
} else if (mode === "hold-until-told") {
  const db = new DatabaseSync(path, { timeout: 10_000 });
  db.exec("BEGIN IMMEDIATE");
  process.stdout.write("locked\n");
  await new Promise((resolve) => {
    process.stdin.once("data", resolve);
    process.stdin.once("end", resolve);
  });
  db.exec("COMMIT");
  db.close();
  process.stdout.write("released\n");
  process.exit(0);
} else if (mode === "append") {
  const [session, tag, count, startAt] = rest;
  const { SqliteSessionStore } = await import(
    new URL("../../src/state/sqlite/store.ts", import.meta.url).href
  );
  const store = new SqliteSessionStore(path);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
  let queued = 0;
  for (let i = 0; i < Number(count); i++) {
    // A pause between messages, as an agent makes: the writers take turns for the whole run.
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (i % 5 === 4 && i + 1 < Number(count)) {
      store.appendMessages(session, [
        { role: "user", content: `${tag} ${i}` },
        { role: "assistant", content: `${tag} ${i + 1}` },
      ]);
      i++;
    } else if (store.appendMessage(session, { role: "user", content: `${tag} ${i}` }) === undefined) {
      queued++;
    }
  }
  const left = await store.flush(30_000);
  const report = await store.close();
  process.stdout.write(JSON.stringify({ queued, left, unwritten: report.unwritten.length }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
