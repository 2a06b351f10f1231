// Child process for the processes.json test: starts COUNT short background processes through a
// ProcessRegistry of HOME (each records itself when it starts and again when it ends), waits for
// them all, and prints their ids as JSON. Prints "ready" and waits for a line on stdin first, so two
// children overlap.
//
// Usage: node --experimental-transform-types --import ./ts-child.mjs process-starter.mjs HOME COUNT
const [home, count] = process.argv.slice(2);
const { ProcessRegistry } = await import(
  new URL("../../src/tools/process/registry.ts", import.meta.url).href
);
const { waitForGo } = await import(new URL("./ts-child.mjs", import.meta.url).href);

const registry = new ProcessRegistry(home);
const spec = { shell: "/bin/sh", prelude: "", cwd: home, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } };
await waitForGo();
const views = await Promise.all(
  Array.from({ length: Number(count) }, () =>
    registry.start({ command: "exit 3", spec, pty: false, notifyOnComplete: false, watchPatterns: [] }),
  ),
);
for (const v of views) await registry.wait(v.id, 10_000);
await registry.shutdown();
process.stdout.write(JSON.stringify(views.map((v) => v.id)));
