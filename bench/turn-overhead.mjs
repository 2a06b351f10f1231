// Framework overhead per turn: the agent loop with an instant in-process model and an instant tool,
// so everything measured is Hermes's own work (message assembly, dispatch, events, bookkeeping).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../dist/agent/agent.js";
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
async function run(turns) {
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
    config: { ...DEFAULT_CONFIG, agent: { ...DEFAULT_CONFIG.agent, max_turns: turns + 5 } },
    home,
    environments,
    streamFn: makeStream(turns),
    onEvent: () => {},
  });
  await agent.prepareSession();
  const t0 = performance.now();
  const r = await agent.runConversation("go");
  const ms = performance.now() - t0;
  if (r.status !== "completed") throw new Error(`run ended ${r.status}`);
  return ms;
}
await run(200); // warm-up (JIT)
const ms = await run(TURNS);
console.log(
  `framework overhead: ${fmt(ms / TURNS, 3)} ms per turn (${TURNS} turns, each one model call + one tool call, history growing to ${TURNS * 2} messages)`,
);
await environments.disposeAll();
