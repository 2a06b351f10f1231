#!/usr/bin/env node
// Entry point. `--version` is answered here without loading the CLI; everything else loads dist/.
import { readFileSync } from "node:fs";
import module from "node:module";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
module.enableCompileCache?.();
const { main } = await import("../dist/bundle/hermes.js");
const code = await main(args);
// Exit once stdout has drained: idle keep-alive sockets must not hold the process open.
process.stdout.write("", () => process.exit(code));
