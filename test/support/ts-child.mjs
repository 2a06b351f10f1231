// Preloaded into child processes of tests (`node --experimental-transform-types --import
// ./ts-child.mjs script.mjs`) so they run the TypeScript sources, not a build that may be stale:
// the sources import each other as ".js", which this hook maps to the ".ts" file.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (specifier.startsWith(".") && specifier.endsWith(".js")) return next(specifier.slice(0, -3) + ".ts", context);
    throw err;
  }
}`)}`,
);

/** Prints "ready" and resolves on the first line (or the end) of stdin: the parent's start signal. */
export function waitForGo() {
  process.stdout.write("ready\n");
  return new Promise((resolve) => {
    process.stdin.once("data", resolve);
    process.stdin.once("end", resolve);
  });
}
