// Framework overhead per turn: the agent loop with an instant in-process model and an instant tool,
// so everything measured is Hermes's own work (message assembly, dispatch, events, bookkeeping).
// Measured with context compression on (the default: every call first estimates the request's
// tokens) and off (the loop alone).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../dist/agent/agent.js";
import { HookBus } from "../dist/agent/hooks.js";
import { DEFAULT_CONFIG } from "../dist/core/config.js";
import { createLocalEnvironmentProvider } from "../dist/tools/environments/local.js";
import { ToolRegistry } from "../dist/tools/registry.js";
import { fmt } from "./lib.mjs";

const TURNS = Number(process.env.BENCH_TURNS ?? 2000);
const home = mkdtempSync(join(tmpdir(), "hermes-bench-turn-"));
const registry = new ToolRegistry();
registry.register({
  name: "noop",
  toolset: "bench",
  schema: { description: "does nothing", parameters: { type: "object", properties: {} } },
  handler: () => '{"ok":true}',
  parallelSafe: true,
});
const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
function makeStream(turns) {
  let left = turns;
  let id = 0;
  return async function* () {
    left -= 1;
    if (left > 0) {
      const tool_calls = [{ id: `c${++id}`, type: "function", function: { name: "noop", arguments: "{}" } }];
      yield {
        type: "done",
        message: { role: "assistant", content: null, tool_calls },
        usage,
        finishReason: "tool_calls",
      };
    } else {
      yield { type: "done", message: { role: "assistant", content: "done" }, usage, finishReason: "stop" };
    }
  };
}
const environments = createLocalEnvironmentProvider({ cwd: home, home });
async function run(turns, compression = true, hooks = undefined) {
  const agent = new Agent({
    target: {
      provider: "custom",
      apiMode: "chat_completions",
      model: "bench",
      baseUrl: "http://x",
      apiKey: "k",
    },
    registry,
    toolNames: new Set(["noop"]),
    config: {
      ...DEFAULT_CONFIG,
      agent: { ...DEFAULT_CONFIG.agent, max_turns: turns + 5 },
      compression: { ...DEFAULT_CONFIG.compression, enabled: compression },
    },
    home,
    environments,
    streamFn: makeStream(turns),
    onEvent: () => {},
    ...(hooks ? { hooks } : {}),
  });
  await agent.prepareSession();
  const t0 = performance.now();
  const r = await agent.runConversation("go");
  const ms = performance.now() - t0;
  if (r.status !== "completed") throw new Error(`run ended ${r.status}`);
  return ms;
}
await run(200); // warm-up (JIT)
await run(200, false);
const ms = await run(TURNS);
const bare = await run(TURNS, false);
console.log(
  `framework overhead: ${fmt(ms / TURNS, 3)} ms per turn (${TURNS} turns, each one model call + one tool call, history growing to ${TURNS * 2} messages)`,
);
console.log(`  of which the loop alone (compression off): ${fmt(bare / TURNS, 3)} ms per turn`);

// Hooks: with none registered every call site skips them (has() is false), so an empty bus must
// cost what no bus costs; one no-op post_tool_call hook shows what a listener adds per tool call.
// Compression off, best of 3 alternating rounds, to keep the loop's own noise out of the difference.
const emptyBus = new HookBus({ timeoutMs: 5000, report: () => {} });
const oneHook = new HookBus({ timeoutMs: 5000, report: () => {} });
oneHook.on({ name: "post_tool_call", label: "bench", handler: () => undefined });
const hookBest = { none: Infinity, empty: Infinity, one: Infinity };
for (let round = 0; round < 3; round++) {
  hookBest.none = Math.min(hookBest.none, await run(TURNS, false));
  hookBest.empty = Math.min(hookBest.empty, await run(TURNS, false, emptyBus));
  hookBest.one = Math.min(hookBest.one, await run(TURNS, false, oneHook));
}
console.log(
  `hooks: ${fmt(hookBest.empty / TURNS, 3)} ms per turn with none registered (${fmt(hookBest.none / TURNS, 3)} without a hook bus); ` +
    `one post_tool_call hook: ${fmt(hookBest.one / TURNS, 3)} ms per turn`,
);

// Argument validation per dispatch: a tool with terminal's schema against one with an open schema
// (which skips the check), same instant handler; plus the first validated call, which loads ajv.
const shaped = {
  type: "object",
  properties: {
    command: { type: "string" },
    background: { type: "boolean" },
    timeout: { type: "integer", minimum: 1, maximum: 3600 },
    workdir: { type: "string" },
    watch_patterns: { type: "array", items: { type: "string" } },
  },
  required: ["command"],
};
const dispatchRegistry = new ToolRegistry();
for (const [name, parameters] of [
  ["checked", shaped],
  ["open", { type: "object", properties: {} }],
]) {
  dispatchRegistry.register({
    name,
    toolset: "bench",
    schema: { description: "d", parameters },
    handler: () => "{}",
  });
}
const DISPATCHES = 50_000;
const args = { command: "ls -la", timeout: 30, watch_patterns: ["ready"] };
const started = performance.now();
await dispatchRegistry.dispatch("checked", args, {});
const firstMs = performance.now() - started;
async function perDispatch(name, a) {
  const t0 = performance.now();
  for (let i = 0; i < DISPATCHES; i++) await dispatchRegistry.dispatch(name, a, {});
  return ((performance.now() - t0) / DISPATCHES) * 1000;
}
// Rounds alternate the three cases; the best of each filters out noise from other processes.
const best = { open: Infinity, checked: Infinity, repaired: Infinity };
const repairArgs = { command: "ls", timeout: "30", background: "false" };
for (let round = 0; round < 6; round++) {
  best.open = Math.min(best.open, await perDispatch("open", args));
  best.checked = Math.min(best.checked, await perDispatch("checked", args));
  best.repaired = Math.min(best.repaired, await perDispatch("checked", repairArgs));
}
console.log(
  `argument validation: ${fmt(best.checked - best.open, 2)} µs per dispatch (${fmt(best.checked, 2)} vs ${fmt(best.open, 2)} µs unchecked; ` +
    `${fmt(best.repaired - best.open, 2)} µs when "30"/"false" need repair; first validated call, loading ajv: ${fmt(firstMs, 1)} ms)`,
);
await environments.disposeAll();
