/**
 * Who is running: code of a plugin, an MCP server's client, a platform adapter or a shell hook runs
 * inside `runAsSource`, and everything it starts from there (timers, promises, sockets, child
 * processes) carries that source. The long-running servers' crash guard reads it to say where an
 * error nobody caught came from (Node hands the failing callback's context to the
 * `uncaughtException` and `unhandledRejection` listeners).
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** `plugin:<name>`, `mcp:<server>`, `adapter:<platform>` or `hook:<command>`. */
export type FaultSource = `${"plugin" | "mcp" | "adapter" | "hook"}:${string}`;

const current = new AsyncLocalStorage<FaultSource>();

/** Runs `fn` (and whatever it starts) as `source`. */
export function runAsSource<T>(source: FaultSource, fn: () => T): T {
  return current.run(source, fn);
}

/** The source of the code running now, if any. */
export function currentSource(): FaultSource | undefined {
  return current.getStore();
}

/** A source as a person reads it: `plugin 'weather'`, `MCP server 'github'`. */
export function describeSource(source: FaultSource | "unknown"): string {
  if (source === "unknown") return "an unknown source";
  const at = source.indexOf(":");
  const kind = source.slice(0, at);
  const name = source.slice(at + 1);
  switch (kind) {
    case "plugin":
      return `plugin '${name}'`;
    case "mcp":
      return `MCP server '${name}'`;
    case "adapter":
      return `platform adapter '${name}'`;
    default:
      return `shell hook '${name}'`;
  }
}
