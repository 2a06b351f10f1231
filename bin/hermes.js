#!/usr/bin/env node
// Entry point. `--version` is answered here without loading the CLI; everything else loads dist/.
// This file must parse on old Node too (no top-level await, no `?.`) so that the version check below
// runs first there and says what to do, instead of failing on a Node 24 built-in.
import { readFileSync } from "node:fs";
import module from "node:module";

if (Number(process.versions.node.split(".")[0]) < 24) {
  process.stderr.write(
    `hermes needs Node.js 24 or newer (this is v${process.versions.node}): run 'bash scripts/install.sh' or put Node 24 first on PATH\n`,
  );
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
module.enableCompileCache();
import("../dist/bundle/hermes.js")
  .then(({ main }) => main(args))
  .then((code) => {
    // Exit once stdout has drained: idle keep-alive sockets must not hold the process open.
    process.stdout.write("", () => process.exit(code));
  });
