// Child process for the orphan tests: starts background processes through a ProcessRegistry of
// HOME (one plain, one kept with nohup, one owned by a chat user), prints their records as one JSON
// line, then idles until it is killed (SIGKILL: it gets no chance to end them itself).
//
// Usage: node --experimental-transform-types --import ./ts-child.mjs orphan-starter.mjs HOME
const [home] = process.argv.slice(2);
const { ProcessRegistry } = await import(
  new URL("../../src/tools/process/registry.ts", import.meta.url).href
);

const registry = new ProcessRegistry(home);
const spec = { shell: "/bin/sh", prelude: "", cwd: home, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } };
const start = (command, extra = {}) =>
  registry.start({ command, spec, pty: false, notifyOnComplete: false, watchPatterns: [], ...extra });
const plain = await start("sleep 1000");
const kept = await start("sleep 1001", { keep: true });
const user = await start("sleep 1002", { owner: "telegram:42" });
process.stdout.write(`${JSON.stringify({ plain, kept, user })}\n`);
setInterval(() => {}, 60_000);
