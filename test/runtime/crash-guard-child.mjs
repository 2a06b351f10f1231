// A process with the real plugin runtime and the crash guard, whose plugin, an MCP client and
// nobody leave errors uncaught one after another: node --import ts-child.mjs crash-guard-child.mjs HOME
// Prints one JSON line with what is left standing at the end.
import { DEFAULT_CONFIG } from "../../src/core/config-defaults.js";
import { runAsSource } from "../../src/core/fault-source.js";
import { createLogger } from "../../src/core/log.js";
import { installCrashGuard } from "../../src/runtime/crash-guard.js";
import { setupPlugins } from "../../src/runtime/plugins.js";
import { ToolRegistry } from "../../src/tools/registry.js";

const home = process.argv[2];
const config = { ...DEFAULT_CONFIG, plugins: { ...DEFAULT_CONFIG.plugins, enabled: ["stray"] } };
const logger = createLogger(home);
const registry = new ToolRegistry();
const plugins = setupPlugins({ config, home, cwd: home, env: {}, registry, logger, warnings: [] });
installCrashGuard({
  runtime: { plugins },
  log: logger.log,
  say: (line) => process.stderr.write(`${line}\n`),
});

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const fireHook = () =>
  plugins.hooks.emit("post_tool_call", { tool_name: "terminal", args: {}, session_id: "s" });
const ctx = {
  sessionId: "s",
  taskId: "t",
  platform: "cli",
  signal: new AbortController().signal,
  env: { getCwd: () => home },
};

// The plugin's timer runs JSON.parse: no frame of the plugin in the stack, only its context.
await fireHook();
await pause(100);
// The plugin's tool answers but leaves a rejected promise behind.
process.stdout.write(`tool: ${(await registry.dispatch("stray_tool", {}, ctx)).trim()}\n`);
await pause(100);
runAsSource("mcp:files", () =>
  setTimeout(() => {
    throw new Error("mcp client failure");
  }, 5),
);
await pause(100);
setTimeout(() => {
  throw new Error("nobody's failure");
}, 5);
await pause(100);
// The third failure of the plugin disables it.
await fireHook();
await pause(100);
// A flood from one source: written ten times a minute, the rest only counted.
for (let i = 0; i < 15; i++)
  setTimeout(() => {
    throw new Error(`flood ${i}`);
  }, 5);
await pause(100);
await logger.flush();
process.stdout.write(
  `${JSON.stringify({
    disabled: plugins.service.get("stray").disabledBecause ?? null,
    tool: registry.get("stray_tool") !== undefined,
    hooks: plugins.hooks.has("post_tool_call"),
  })}\n`,
);
