#!/usr/bin/env node
// Entry point. `--version` is answered here without loading the CLI; everything else loads dist/.
// This file must parse on old Node too (no top-level await, no `?.`) so that the version check below
// runs first there and says what to do, instead of failing on a Node 24 built-in.
// Built-ins are taken with process.getBuiltinModule(), not `import`: an ESM import of node:fs reads
// every export, and its `promises` getter alone loads fs/promises, streams and readline (~3 MB).

if (Number(process.versions.node.split(".")[0]) < 24) {
  process.stderr.write(
    `hermes needs Node.js 24 or newer (this is v${process.versions.node}): run 'bash scripts/install.sh' or put Node 24 first on PATH\n`,
  );
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { readFileSync } = process.getBuiltinModule("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
// The root help is pre-rendered by the build (dist/root-help.txt, 80 columns): printed without
// loading the CLI, unless a terminal is too narrow for it (the CLI then wraps it to fit).
if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
  const out = process.stdout;
  if (!out.isTTY || !(out.columns < 80)) {
    let help = "";
    try {
      help = process
        .getBuiltinModule("node:fs")
        .readFileSync(new URL("../dist/root-help.txt", import.meta.url), "utf8");
    } catch (_) {
      // Not built yet (a tsc-only build): the CLI formats it.
    }
    if (help) {
      out.write(help);
      process.exit(0);
    }
  }
}
process.getBuiltinModule("node:module").enableCompileCache();
// A run that ends within seconds never pays back V8's optimizing compilers (Maglev, TurboFan: ~10 MB
// of peak memory and their compile threads in a one-answer run) nor a young generation grown to
// 16 MB. Both stay off for the first seconds; a process still running then (chat, gateway) gets
// them back. V8 reads these flags when it decides, so they can change while the process runs.
// Printing help is done before this would pay for loading node:v8.
if (!args.some((a) => a === "--help" || a === "-h") && args[0] !== "help") {
  const v8 = process.getBuiltinModule("node:v8");
  const setFlags = (flags) => {
    for (const flag of flags) v8.setFlagsFromString(flag);
  };
  setFlags(["--no-maglev", "--no-turbofan", "--semi-space-growth-factor=1"]);
  setTimeout(() => setFlags(["--maglev", "--turbofan", "--semi-space-growth-factor=2"]), 10_000).unref();
}
import("../dist/bundle/hermes.js")
  .then(({ main }) => main(args))
  .then((code) => {
    // Exit once stdout has drained: idle keep-alive sockets must not hold the process open.
    process.stdout.write("", () => process.exit(code));
  });
